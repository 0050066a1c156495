package introspect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/netfail"
)

// ServerStatus asks one member for srvr only (mntr when srvr is refused):
// the cheap question a header asks after connecting or reconnecting,
// where Ask would ask every word of every member. Of o, only TLS and Dial
// are used.
func ServerStatus(ctx context.Context, addr string, timeout time.Duration, o Options) (ServerStats, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	text, err := askFourLetter(ctx, addr, "srvr", timeout, o)
	if err == nil {
		st, err := parseSrvr(text)
		if err != nil {
			return ServerStats{}, fmt.Errorf("srvr on %s: %w", addr, err)
		}
		return st, nil
	}
	if !errors.Is(err, errWordRefused) {
		return ServerStats{}, fmt.Errorf("srvr on %s: %w", addr, err)
	}
	text, err = askFourLetter(ctx, addr, "mntr", timeout, o)
	if err != nil {
		return ServerStats{}, fmt.Errorf("srvr and mntr on %s: %w", addr, err)
	}
	mon, err := parseMntr(text)
	if err != nil {
		return ServerStats{}, fmt.Errorf("mntr on %s: %w", addr, err)
	}
	return statsFromMonitor(mon), nil
}

// MemberStatus is one member's answer to srvr (Statuses): its stats, or
// why it gave none.
type MemberStatus struct {
	Addr  string
	Stats *ServerStats // nil when it did not answer, or does not serve
	Err   error        // why not
}

// Trouble says in a few words why the member gave no stats ("no answer
// within 2s", "connection refused", "not serving"), "" when it did.
func (m MemberStatus) Trouble() string {
	var nf *netfail.Error
	switch {
	case m.Err == nil:
		return ""
	case errors.Is(m.Err, errNotServing):
		return "not serving"
	case errors.As(m.Err, &nf):
		return nf.Text
	}
	return m.Err.Error()
}

// Brief says Trouble in a word or two, for a header: "no answer",
// "connection refused", "not serving".
func (m MemberStatus) Brief() string {
	if m.Err != nil && netfail.NoAnswer(m.Err) {
		return "no answer"
	}
	return m.Trouble()
}

// Statuses asks every member srvr at once (mntr where srvr is refused),
// each bounded by o.Timeout (DefaultTimeout when zero; of o, only Timeout,
// TLS and Dial are used): the explorer's header names from it the members
// that do not answer, in the connect string's order.
func Statuses(ctx context.Context, servers []string, o Options) []MemberStatus {
	out := make([]MemberStatus, len(servers))
	var wg sync.WaitGroup
	for i, addr := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := ServerStatus(ctx, addr, o.Timeout, o)
			out[i] = MemberStatus{Addr: addr, Err: err}
			if err == nil {
				out[i].Stats = &st
			}
		}()
	}
	wg.Wait()
	return out
}

// ConnectionLimit asks one member for conf and returns its maxClientCnxns:
// how many connections it accepts from one client address, 0 for no
// limit. known is false when the member does not say (conf refused, or
// the key missing). Of o, only TLS and Dial are used.
func ConnectionLimit(ctx context.Context, addr string, timeout time.Duration, o Options) (limit int, known bool, err error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	text, err := askFourLetter(ctx, addr, "conf", timeout, o)
	if errors.Is(err, errWordRefused) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("conf on %s: %w", addr, err)
	}
	conf, err := parseConf(text)
	if err != nil {
		return 0, false, fmt.Errorf("conf on %s: %w", addr, err)
	}
	v, ok := conf["maxClientCnxns"]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("conf on %s: maxClientCnxns=%q is not a count", addr, v)
	}
	return n, true, nil
}
