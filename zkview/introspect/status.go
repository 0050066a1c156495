package introspect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
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
