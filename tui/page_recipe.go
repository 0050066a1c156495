package tui

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/decode"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipePage is one recipe directory full screen: its recipe view, and
// the actions that take part in it as "you" (acquire, release, enqueue,
// dequeue, volunteer, resign) or break a stuck lock (force-release).
type recipePage struct {
	shared *sharedState
	view   *recipePane
}

func newRecipePage(shared *sharedState, p string) page {
	return &recipePage{shared: shared, view: newRecipePane(shared, p)}
}

func (p *recipePage) Init() tea.Cmd { return p.view.init() }
func (p *recipePage) Title() string { return display.Line(p.view.path) }
func (p *recipePage) Close()        { p.view.close() }

func (p *recipePage) SetSize(w, h int) { p.view.setSize(w, h) }
func (p *recipePage) View() string     { return p.view.view(true) }

func (p *recipePage) SetFilter(f widget.Filter) { p.view.tbl.SetFilter(f) }
func (p *recipePage) Filter() widget.Filter     { return p.view.tbl.Filter }

// nextFrame asks for frames while rows flash, and every second while
// durations are on screen.
func (p *recipePage) nextFrame() time.Duration {
	switch now := p.shared.Now(); {
	case p.view.tbl.Flashing(now):
		return 100 * time.Millisecond
	case p.view.animates():
		return time.Second
	}
	return 0
}

func (p *recipePage) Keys() []key.Binding {
	n, a := p.shared.Keys.Nav, p.shared.Keys.Action
	keys := []key.Binding{n.Up, n.Down}
	warnings := p.shared.Keys.Global.Warnings
	if p.system() != "" {
		// A real system's lock, election or queue: zkx does not take part
		// in it, it only clears a stale holder.
		return append(keys, a.ForceRelease, warnings)
	}
	switch p.view.recipe.(type) {
	case *recognize.Lock, nil:
		keys = append(keys, a.ForceRelease, a.Acquire, a.Release, a.Revoke)
	case *recognize.Queue:
		keys = append(keys, a.Enqueue, a.Dequeue)
	case *recognize.Election:
		keys = append(keys, a.ForceRelease, a.Volunteer, a.Resign)
	}
	return append(keys, warnings)
}

func (p *recipePage) Mouse(msg tea.MouseMsg) tea.Cmd {
	widget.MouseTable(p.view.tbl, msg, p.view.summaryHeight())
	return nil
}

func (p *recipePage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p, p.key(msg)
	case syncedVerdictMsg:
		if msg.path != p.view.path {
			return p, nil
		}
		if msg.err != nil {
			return p, failure(msg.err)
		}
		p.view.takeVerdict(msg.recipe, msg.readErr)
		return p, p.forceRelease()
	}
	return p, p.view.update(msg)
}

func (p *recipePage) key(msg tea.KeyPressMsg) tea.Cmd {
	a := p.shared.Keys.Action
	switch {
	case widget.Navigate(p.view.tbl, p.shared.Keys.Nav, msg):
	case key.Matches(msg, p.shared.Keys.Global.Warnings):
		return p.showWarnings()
	case p.shared.Actor == nil || p.shared.Writer == nil:
		return nil // read-only: no action exists
	case key.Matches(msg, a.ForceRelease):
		return p.view.syncedVerdict() // then forceRelease, on the synced verdict
	case p.system() != "":
		return nil // see Keys: no part in a real system's coordination
	case key.Matches(msg, a.Revoke):
		return p.revoke()
	case key.Matches(msg, a.Acquire):
		return p.acquire()
	case key.Matches(msg, a.Release):
		return p.release()
	case key.Matches(msg, a.Enqueue):
		return p.enqueue()
	case key.Matches(msg, a.Dequeue):
		return p.dequeue()
	case key.Matches(msg, a.Volunteer):
		return p.volunteer()
	case key.Matches(msg, a.Resign):
		return p.resign()
	}
	return nil
}

// system is the real system the page's recipe belongs to ("" for none).
func (p *recipePage) system() string {
	if p.view.recipe == nil {
		return ""
	}
	return p.view.recipe.Info().System
}

func (p *recipePage) acquire() tea.Cmd {
	dir := p.view.path
	format := ""
	switch r := p.view.recipe.(type) {
	case *recognize.Lock:
		if r.Recipe != "mutex" {
			return failure(fmt.Errorf("zkx acquires mutexes only; %s is a %s", dir, r.Recipe))
		}
		format = r.Format
	case nil:
		if !p.view.loaded {
			return nil
		}
	default:
		return failure(fmt.Errorf("%s is not a lock", dir))
	}
	if p.shared.Actor.LockState(dir) != actorNone {
		return failure(fmt.Errorf("you already hold or wait for %s (u releases)", dir))
	}
	actor := p.shared.Actor
	return tea.Batch(status("queued for "+dir+": you appear in the chain; u stops waiting"), act(p.shared.Ctx, 0, func(ctx context.Context) (string, error) {
		return "you hold " + dir + " (u releases)", actor.Acquire(ctx, dir, format)
	}))
}

func (p *recipePage) release() tea.Cmd {
	dir := p.view.path
	if p.shared.Actor.LockState(dir) == actorNone {
		return failure(fmt.Errorf("you neither hold nor wait for %s", dir))
	}
	actor := p.shared.Actor
	return act(p.shared.Ctx, requestTimeout, func(ctx context.Context) (string, error) {
		return "released " + dir, actor.Release(ctx, dir)
	})
}

// Notes implements noter: the warnings and what the servers' tables say,
// for ! to show in full.
func (p *recipePage) Notes() []string {
	var out []string
	if p.view.recipe != nil {
		for _, w := range p.view.recipe.Info().Warnings {
			out = append(out, "⚠ "+display.Line(w))
		}
	}
	return append(out, p.view.tablesLines(p.shared.Now())...)
}

// showWarnings opens every warning of the recipe in full.
func (p *recipePage) showWarnings() tea.Cmd {
	if p.view.recipe == nil {
		return nil
	}
	ws := p.view.recipe.Info().Warnings
	if len(ws) == 0 {
		return status("no warnings on " + p.view.path)
	}
	body := make([]string, 0, 2*len(ws))
	for i, w := range ws {
		if i > 0 {
			body = append(body, "")
		}
		body = append(body, "⚠ "+display.Line(w))
	}
	return openDialog(widget.Show("Warnings on "+display.Line(p.view.path), body))
}

// holding are the places of the recipe that hold: a lock's holders, a
// semaphore's leases, an election's leader.
func (p *recipePage) holding() []recognize.Place {
	var out []recognize.Place
	for _, pl := range p.view.places() {
		if pl.Holding() {
			out = append(out, pl)
		}
	}
	return out
}

// forceRelease deletes a holder's node after a confirmation that names
// it, and says who takes over by the model. With one holder it is that
// one, wherever the cursor is; with several (a semaphore's leases, a
// broken lock) the user picks.
func (p *recipePage) forceRelease() tea.Cmd {
	holders := p.holding()
	switch len(holders) {
	case 0:
		return failure(fmt.Errorf("nobody holds %s: nothing to release", p.view.path))
	case 1:
		return p.confirmRelease(holders[0])
	}
	st := p.shared.Styles
	var body []string
	if l, ok := p.view.recipe.(*recognize.Lock); ok && present.FirstWarning(l) != "" {
		_, sev := present.LockState(l)
		body = append(body, severe(st, sev, present.FirstWarning(l)), "", "Which holder's node is to go?")
	} else {
		body = append(body, fmt.Sprintf("%d hold at once. Which one's node is to go?", len(holders)))
	}
	now := p.shared.Now()
	choices := make([]string, len(holders))
	for i, h := range holders {
		choices[i] = p.view.holderLine(h, now)
	}
	return openDialog(widget.Choose("Force-release: which holder?", body, widget.Numbered(choices, func(i int) tea.Cmd {
		return p.confirmRelease(holders[i])
	}), nil))
}

// confirmRelease asks before deleting h's node, in the presenter's
// words (as zkx unlock says them): whose it is, since when it holds, when
// its server last heard from it, who takes over, and who else may believe
// it holds. The delete is conditional on the node still belonging to that
// session at the version just read, so a lock that changed hands in the
// meantime is left alone.
func (p *recipePage) confirmRelease(h recognize.Place) tea.Cmd {
	st := p.shared.Styles
	now := p.shared.Now()
	c := h.Contender
	node := recognize.ContenderPath(p.view.path, c.Node)
	body := []string{"Delete " + display.Line(node) + "?", ""}
	facts := present.Facts(p.view.recipe, h, now)
	for _, f := range facts {
		text := f.Text
		if f.Alarm {
			text = st.Error.Render(text)
		}
		body = append(body, fmt.Sprintf("%-*s %s", present.FactWidth, f.Label, text))
	}
	if l, ok := p.view.recipe.(*recognize.Lock); ok {
		if others := present.MayAlsoHold(l); len(others) > 0 {
			body = append(body, "", st.Warning.Render("May also believe it holds:"))
			for _, o := range others {
				body = append(body, st.Warning.Render("  "+o))
			}
		}
	}
	body = append(body, "", st.Warning.Render(present.NotTold))
	if sys := p.system(); sys != "" {
		body = append(body, st.Warning.Render(fmt.Sprintf("It is %s's %s: %s reacts as to its holder's crash.", sys, p.view.recipe.Info().Role, sys)))
	}
	next := present.Next(p.view.recipe, c.Node)
	w, session := p.shared.Writer, c.SessionID
	return openDialog(widget.Confirm("Force-release", body, func() tea.Cmd {
		return act(p.shared.Ctx, requestTimeout, func(ctx context.Context) (string, error) {
			return "deleted " + node + "; next: " + next, w.DeleteOwned(ctx, node, session)
		})
	}))
}

func (p *recipePage) enqueue() tea.Cmd {
	q, ok := p.view.recipe.(*recognize.Queue)
	if !ok {
		return failure(fmt.Errorf("%s is not a queue", p.view.path))
	}
	dir, format, actor := p.view.path, q.Format, p.shared.Actor
	return openDialog(widget.Ask("Enqueue on "+display.Line(dir), []string{"The item's data (text):"}, "> ", "", func(data string) tea.Cmd {
		return act(p.shared.Ctx, requestTimeout, func(ctx context.Context) (string, error) {
			node, err := actor.Enqueue(ctx, dir, format, []byte(data))
			return "enqueued " + node, err
		})
	}))
}

func (p *recipePage) dequeue() tea.Cmd {
	q, ok := p.view.recipe.(*recognize.Queue)
	if !ok {
		return failure(fmt.Errorf("%s is not a queue", p.view.path))
	}
	if len(q.Items) == 0 {
		return failure(fmt.Errorf("%s is empty", p.view.path))
	}
	head := q.Items[0]
	dir, format, actor := p.view.path, q.Format, p.shared.Actor
	body := []string{"Take the head of " + display.Line(dir) + "?", "", "node  " + display.Line(head.Node), "data  " + head.Data,
		"", "The item is removed: the consumers of this queue will not see it."}
	return openDialog(widget.Confirm("Dequeue", body, func() tea.Cmd {
		return act(p.shared.Ctx, requestTimeout, func(ctx context.Context) (string, error) {
			data, err := actor.Dequeue(ctx, dir, format)
			return "dequeued: " + decode.Summary(data, 60), err
		})
	}))
}

func (p *recipePage) volunteer() tea.Cmd {
	dir := p.view.path
	format := ""
	switch r := p.view.recipe.(type) {
	case *recognize.Election:
		format = r.Format
	case nil:
	default:
		return failure(fmt.Errorf("%s is not an election", dir))
	}
	actor := p.shared.Actor
	return tea.Batch(status("standing in "+dir+"; R withdraws"), act(p.shared.Ctx, 0, func(ctx context.Context) (string, error) {
		return "you lead " + dir + " (R resigns)", actor.Volunteer(ctx, dir, format)
	}))
}

func (p *recipePage) resign() tea.Cmd {
	dir, actor := p.view.path, p.shared.Actor
	return act(p.shared.Ctx, requestTimeout, func(ctx context.Context) (string, error) {
		return "resigned from " + dir, actor.Resign(ctx, dir)
	})
}
