package introspect

import (
	"context"
	"errors"
	"net/url"
	"sync"

	"github.com/zkx-dev/zkx/internal/netfail"
)

// Reaching the members: every member is first asked srvr, and every
// AdminServer of Options.AdminURLs which member it is, all at once, each
// bounded by Options.Timeout. A member that answers neither is silent: it
// is named once (MemberNotes) and asked nothing more, so that a frozen
// member costs one bounded wait, in parallel with everything else, rather
// than a wait per question.

// fourLetterAnswer is one four-letter word's answer, once asked.
type fourLetterAnswer struct {
	asked bool
	text  string
	err   error
}

// greet asks the member for srvr: its mode, version and zxid, and whether
// it answers at all.
func (p *memberProbe) greet(ctx context.Context) {
	text, err := askFourLetter(ctx, p.member.Addr, "srvr", p.timeout, p.opts)
	p.greeting = fourLetterAnswer{asked: true, text: text, err: err}
}

// silent reports whether the member answered neither srvr (a refusal is
// an answer) nor, when it has one, its AdminServer.
func (p *memberProbe) silent() bool {
	g := p.greeting
	return g.asked && g.err != nil && !errors.Is(g.err, errWordRefused) && p.admin == nil
}

// reach greets every member and resolves every AdminServer URL, at once,
// and gives each member its AdminServer. A URL that did not answer is
// presumed to be a silent member's (presumeAdmins); the problems of the
// others are returned.
func reach(ctx context.Context, probes []*memberProbe, servers []string, opts Options) []Problem {
	var wg sync.WaitGroup
	var admins map[string]*adminTarget
	var problems []Problem
	var failed []adminAnswer
	wg.Add(1)
	go func() {
		defer wg.Done()
		admins, problems, failed = resolveAdmins(ctx, servers, opts)
	}()
	for _, p := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.greet(ctx)
		}()
	}
	wg.Wait()
	for _, p := range probes {
		p.admin = admins[p.member.Addr]
	}
	for _, a := range presumeAdmins(probes, failed) {
		problems = append(problems, Problem{Member: a.url, Command: "admin", Err: a.err})
	}
	return problems
}

// presumeAdmins gives each silent member the AdminServer URL that failed
// and is most likely its own, so that its note can say its AdminServer
// was silent too. Among the silent members that failed the same way (a
// frozen member is silent on both ports, a stopped one refuses both):
// the only one on the URL's host, or, when one such member and one such
// URL are left, that one. It returns the failed URLs given to no member.
func presumeAdmins(probes []*memberProbe, failed []adminAnswer) []adminAnswer {
	var silent []*memberProbe
	for _, p := range probes {
		if p.silent() {
			silent = append(silent, p)
		}
	}
	given := map[*memberProbe]bool{}
	alike := func(a adminAnswer) []*memberProbe {
		var out []*memberProbe
		for _, p := range silent {
			if !given[p] && netfail.NoAnswer(p.greeting.err) == netfail.NoAnswer(a.err) {
				out = append(out, p)
			}
		}
		return out
	}
	var left []adminAnswer
	for _, a := range failed {
		u, err := url.Parse(a.url)
		if err != nil || !a.unreached {
			left = append(left, a)
			continue
		}
		var onHost []*memberProbe
		for _, p := range alike(a) {
			if len(sameHost([]string{p.member.Addr}, u.Hostname())) == 1 {
				onHost = append(onHost, p)
			}
		}
		if len(onHost) == 1 {
			onHost[0].presumeAdmin(a)
			given[onHost[0]] = true
			continue
		}
		left = append(left, a)
	}
	if len(left) == 1 && left[0].unreached {
		if candidates := alike(left[0]); len(candidates) == 1 {
			candidates[0].presumeAdmin(left[0])
			return nil
		}
	}
	return left
}

// presumeAdmin records that the member's AdminServer is presumably a, which
// did not answer.
func (p *memberProbe) presumeAdmin(a adminAnswer) {
	p.member.AdminUnanswered = a.url
	p.adminErr = a.err
}
