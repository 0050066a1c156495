package introspect

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/netfail"
)

// adminTarget is the AdminServer of one member.
type adminTarget struct {
	member string
	client adminClient
	conf   map[string]string
}

// adminIdentity is what an AdminServer says of the member it belongs to:
// its client port, and its TLS client port (secureClientPort, read from
// the initial configuration, as a TLS-only member reports client_port
// -1). Nothing else of the raw configuration is kept: it may hold the
// key and trust store passwords (ssl.*.password).
type adminIdentity struct {
	clientPort, securePort string
	// secureKnown: the configuration said whether there is a TLS client
	// port. A standalone 3.8 server's says nothing of it (no initial
	// configuration, no secure_client_port), so a member dialled on its
	// TLS port cannot be told by port.
	secureKnown bool
}

// askIdentity asks an AdminServer for its configuration.
func askIdentity(ctx context.Context, c adminClient, timeout time.Duration) (map[string]string, adminIdentity, error) {
	var raw map[string]any
	if err := c.get(ctx, "configuration", timeout, &raw); err != nil {
		return nil, adminIdentity{}, err
	}
	conf := adminFlat(raw)
	id := adminIdentity{clientPort: conf["client_port"], securePort: conf["secure_client_port"]}
	_, initial := conf["initial_configuration"]
	id.secureKnown = id.securePort != "" || initial
	if id.securePort == "" {
		id.securePort = secureClientPort(conf["initial_configuration"])
	}
	delete(conf, "initial_configuration") // the raw zoo.cfg: passwords may be in it
	return conf, id, nil
}

// secureClientPort finds secureClientPort=N in a zoo.cfg text.
func secureClientPort(cfg string) string {
	sc := bufio.NewScanner(strings.NewReader(cfg))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && strings.TrimSpace(k) == "secureClientPort" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// serves reports whether the identity fits a member's client address: its
// port is the member's plain or TLS client port.
func (id adminIdentity) serves(member string) bool {
	_, port, err := net.SplitHostPort(member)
	if err != nil {
		return false
	}
	return port == id.clientPort || (id.securePort != "" && port == id.securePort)
}

// mayServeSecurely reports whether, its configuration silent on TLS, the
// AdminServer may belong to a member dialled over TLS on host: the member's
// port is then its secure port, which only its host can confirm.
func (id adminIdentity) mayServeSecurely(opts Options) bool {
	return opts.TLS != nil && !id.secureKnown
}

// resolveAdmins asks every AdminServer of opts.AdminURLs, at once, which
// member it is, and matches it to one of servers: by port, and by host
// when several members share the port (zk1:2181, zk2:2181). URLs that
// match no member, or the same member as another, are problems; URLs that
// could not be asked at all (no answer, refused) are returned apart, for
// the caller to presume whose they are (presumeAdmins).
func resolveAdmins(ctx context.Context, servers []string, opts Options) (map[string]*adminTarget, []Problem, []adminAnswer) {
	answers := make([]adminAnswer, len(opts.AdminURLs))
	var wg sync.WaitGroup
	for i, raw := range opts.AdminURLs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = resolveAdmin(ctx, servers, raw, opts)
		}()
	}
	wg.Wait()
	out := map[string]*adminTarget{}
	var problems []Problem
	var unreached []adminAnswer
	for _, a := range answers {
		switch {
		case a.unreached:
			unreached = append(unreached, a)
		case a.err != nil:
			problems = append(problems, Problem{Member: a.url, Command: "admin", Err: a.err})
		case out[a.target.member] != nil:
			problems = append(problems, Problem{Member: a.url, Command: "admin", Err: fmt.Errorf(
				"it is the AdminServer of %s, as %s is", a.target.member, out[a.target.member].client.shown())})
		default:
			out[a.target.member] = a.target
		}
	}
	return out, problems, unreached
}

// adminAnswer is what one URL of opts.AdminURLs turned out to be.
type adminAnswer struct {
	target *adminTarget
	err    error
	url    string
	// unreached: the request got no HTTP answer at all (silence, a
	// refused connection), so which member it belongs to is not known.
	unreached bool
}

// resolveAdmin asks one AdminServer which member it is.
func resolveAdmin(ctx context.Context, servers []string, raw string, opts Options) (a adminAnswer) {
	a.url = display.URL(raw)
	base, err := adminBase(raw)
	if err != nil {
		a.err = err
		return a
	}
	a.url = display.URL(base)
	t := &adminTarget{client: adminClient{base: base, http: opts.HTTPClient}}
	conf, id, err := askIdentity(ctx, t.client, opts.Timeout)
	if err != nil {
		var nf *netfail.Error
		a.err, a.unreached = err, errors.As(err, &nf)
		return a
	}
	t.conf = conf
	var byPort []string
	for _, s := range servers {
		if id.serves(s) {
			byPort = append(byPort, s)
		}
	}
	u, _ := url.Parse(base)
	if len(byPort) > 1 {
		byPort = sameHost(byPort, u.Hostname())
	}
	if len(byPort) == 0 && id.mayServeSecurely(opts) {
		byPort = sameHost(servers, u.Hostname())
	}
	if len(byPort) != 1 {
		n, _ := strconv.Atoi(id.clientPort)
		a.err = fmt.Errorf("it serves client port %d, which does not single out a member of %s", n, strings.Join(servers, ","))
		return a
	}
	t.member = byPort[0]
	a.target = t
	return a
}

// sameHost keeps the members on host: by name, else by address (a URL may
// name a member by its IP and the connect string by its name).
func sameHost(members []string, host string) []string {
	var out []string
	for _, m := range members {
		if h, _, _ := net.SplitHostPort(m); h == host {
			out = append(out, m)
		}
	}
	if len(out) > 0 {
		return out
	}
	want, _ := net.LookupHost(host)
	for _, m := range members {
		h, _, _ := net.SplitHostPort(m)
		have, _ := net.LookupHost(h)
		if overlaps(want, have) {
			out = append(out, m)
		}
	}
	return out
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// discoveryTimeout bounds the look for an AdminServer on a member that
// was not given one: a port nobody listens on answers at once; a
// filtered one costs this.
const discoveryTimeout = 1500 * time.Millisecond

// tablesMissing reports whether the four-letter words left a table of the
// member unread (refused, or failed).
func (p *memberProbe) tablesMissing() bool {
	m := &p.member
	watches := m.Watches != nil || p.bySession != nil || p.byPath != nil // assembled once the probe ends
	return m.Connections == nil || !watches || m.Dump == nil
}

// discoverAdmin looks for the member's AdminServer on its host at
// opts.AdminPort and keeps it when it says it is this member. What
// happened is kept in the member's AdminNote either way.
func (p *memberProbe) discoverAdmin(ctx context.Context) *adminTarget {
	host, _, err := net.SplitHostPort(p.member.Addr)
	if err != nil {
		return nil
	}
	scheme := "http"
	if p.opts.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + net.JoinHostPort(host, strconv.Itoa(p.opts.AdminPort)) + "/commands"
	t := &adminTarget{client: adminClient{base: base, http: p.opts.HTTPClient}}
	conf, id, err := askIdentity(ctx, t.client, min(p.timeout, discoveryTimeout))
	switch {
	case err != nil:
		p.member.AdminNote = "no AdminServer at " + base + ": " + shortAdminError(err)
		return nil
	case !id.serves(p.member.Addr) && !id.mayServeSecurely(p.opts):
		p.member.AdminNote = fmt.Sprintf("the AdminServer at %s is another member's (client port %s)", base, id.clientPort)
		return nil
	}
	t.member, t.conf = p.member.Addr, conf
	p.member.AdminNote = "found at " + base
	return t
}

// shortAdminError keeps the cause of a failed AdminServer request, not
// the URL the note names already.
func shortAdminError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.Contains(msg, "GET ") {
		return msg[i+2:]
	}
	return msg
}
