package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/live"
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

// refresher is the one way a page refreshes what has no watch (the
// servers' tables): again every `every` while the page is on top, never
// while it is not. The app tells the page when it comes on top and when
// it leaves (focusMsg, blurMsg); the page passes them on, and asks when a
// tick of its refresher is due (refreshDueMsg).
type refresher struct {
	every time.Duration
	onTop bool
	gen   int // of the tick that counts; a tick of an older one is ignored
	// after delivers a tick after d (tea.Tick; tests hold it).
	after func(d time.Duration, msg tea.Msg) tea.Cmd
}

// focus says the page came on top.
func (r *refresher) focus() { r.onTop = true }

// blur says the page left the top: its tick in flight is ignored.
func (r *refresher) blur() {
	r.onTop = false
	r.gen++
}

// schedule sets the tick for the next refresh, d from now (at once when
// overdue); none while the page is not on top.
func (r *refresher) schedule(d time.Duration) tea.Cmd {
	if !r.onTop {
		return nil
	}
	r.gen++
	after := r.after
	if after == nil {
		after = afterDelay
	}
	return after(max(d, time.Millisecond), refreshDueMsg{owner: r, gen: r.gen})
}

// due reports whether msg is the refresher's tick, with its page on top:
// time to refresh.
func (r *refresher) due(msg refreshDueMsg) bool {
	return msg.owner == r && msg.gen == r.gen && r.onTop
}

// poller is an introspector refreshed every pollEvery while its page is
// on top.
type poller struct {
	introspector
	refresh refresher
}

// focus says the page came on top: it asks when the next question is due
// (at once when overdue).
func (p *poller) focus(now time.Time) tea.Cmd {
	p.refresh.focus()
	if p.busy {
		return nil // the answer sets the next tick
	}
	return p.refresh.schedule(p.answered.Add(pollEvery).Sub(now))
}

// blur says the page left the top.
func (p *poller) blur() { p.refresh.blur() }

// due asks when msg is the poller's tick.
func (p *poller) due(msg refreshDueMsg, ctx context.Context, now time.Time) tea.Cmd {
	if !p.refresh.due(msg) {
		return nil
	}
	return p.start(ctx, now)
}

// taken keeps msg's answer when it is p's (ok), and sets the next tick.
func (p *poller) taken(msg introspectionMsg, now time.Time) (ok bool, next tea.Cmd) {
	if !p.take(msg, now) {
		return false, nil
	}
	return true, p.refresh.schedule(pollEvery)
}

// tablesRefresher asks a live model's servers again every `every` while
// its page is on top: a contender's session may go quiet, lose its
// connection or vanish without any change to the recipes' nodes, which
// is all the model follows by itself.
type tablesRefresher struct {
	refresh refresher
	model   *live.Model
	now     func() time.Time
}

func newTablesRefresher(model *live.Model, every time.Duration, now func() time.Time) tablesRefresher {
	return tablesRefresher{refresh: refresher{every: every}, model: model, now: now}
}

// update takes the page's focus, blur and the refresher's ticks; asked is
// set when the model was asked again (the page draws what it did at once).
func (t *tablesRefresher) update(msg tea.Msg) (cmd tea.Cmd, asked bool) {
	switch msg := msg.(type) {
	case focusMsg:
		t.refresh.focus()
		due := t.refresh.every // the first answer is on its way
		if at := t.model.Snapshot().TablesAnswered; !at.IsZero() {
			due = at.Add(t.refresh.every).Sub(t.now())
		}
		return t.refresh.schedule(due), false
	case blurMsg:
		t.refresh.blur()
	case refreshDueMsg:
		if t.refresh.due(msg) {
			t.model.AskTables()
			return t.refresh.schedule(t.refresh.every), true
		}
	}
	return nil, false
}
