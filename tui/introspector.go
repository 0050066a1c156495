package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/zkview/introspect"
)

// introspector asks the servers for their tables (srvr, mntr, cons,
// wchc, dump… on every member) on behalf of one page, one question at a
// time, and keeps the last answer. ZooKeeper has no watch on any of it:
// it is asked again only when the page says so.
type introspector struct {
	ask  func(ctx context.Context) (*introspect.Snapshot, error)
	gen  int
	busy bool
	// last is the last answer; a failed question keeps it and sets err.
	last *introspect.Snapshot
	err  error
	// started is when the last question was asked, answered when the
	// last answer (or failure) came.
	started, answered time.Time
}

// start asks, unless a question is already out.
func (r *introspector) start(ctx context.Context, now time.Time) tea.Cmd {
	if r.busy || r.ask == nil {
		return nil
	}
	r.busy, r.started = true, now
	r.gen++
	gen, ask := r.gen, r.ask
	return func() tea.Msg {
		in, err := ask(ctx)
		return introspectionMsg{owner: r, gen: gen, snapshot: in, err: err}
	}
}

// take keeps msg's answer when it is r's; ok is false for another
// page's.
func (r *introspector) take(msg introspectionMsg, now time.Time) (ok bool) {
	if msg.owner != r || msg.gen != r.gen {
		return false
	}
	r.busy, r.answered = false, now
	if msg.err != nil {
		r.err = msg.err
		return true
	}
	r.last, r.err = msg.snapshot, nil
	return true
}

// pollEvery is how often a page about the servers' tables asks again
// while it is on top.
const pollEvery = 5 * time.Second

// poller asks the servers again every pollEvery, but only while its page
// is on top. The app asks only the top page for its next frame, so the page
// learns it is on top when nextFrame is called; the one frame that may
// arrive after it left the top costs at most one more question.
type poller struct {
	introspector
	onTop bool
}

// nextFrame is when the next question is due; 0 while one is out.
func (p *poller) nextFrame(now time.Time) time.Duration {
	if p.busy {
		return 0
	}
	p.onTop = true
	return max(p.answered.Add(pollEvery).Sub(now), time.Millisecond)
}

// frame asks when a question is due and the page is on top.
func (p *poller) frame(ctx context.Context, now time.Time) tea.Cmd {
	if !p.onTop || p.busy || now.Before(p.answered.Add(pollEvery)) {
		return nil
	}
	p.onTop = false
	return p.start(ctx, now)
}
