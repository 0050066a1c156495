package tui

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipePage is one recipe directory full screen: its recipe view, and
// the actions that take part in it as "you" (acquire, release, enqueue,
// dequeue, volunteer, resign) or break a stuck lock (force-release).
type recipePage struct {
	ctx  *Shared
	view *recipePane
}

func newRecipePage(ctx *Shared, p string) page {
	return &recipePage{ctx: ctx, view: newRecipePane(ctx, p)}
}

func (p *recipePage) Init() tea.Cmd { return p.view.init() }
func (p *recipePage) Title() string { return display.Line(p.view.path) }
func (p *recipePage) Close()        { p.view.close() }

func (p *recipePage) SetSize(w, h int) { p.view.setSize(w, h) }
func (p *recipePage) View() string     { return p.view.view(true) }

func (p *recipePage) SetFilter(f widget.Filter) { p.view.tbl.SetFilter(f) }
func (p *recipePage) Filter() widget.Filter     { return p.view.tbl.Filter }

func (p *recipePage) nextFrame() time.Duration {
	switch {
	case p.view.tbl.Flashing(p.ctx.Now()):
		return 100 * time.Millisecond
	case p.view.animates():
		return time.Second
	}
	return 0
}

func (p *recipePage) Keys() []key.Binding {
	n, a := p.ctx.Keys.Nav, p.ctx.Keys.Action
	keys := []key.Binding{n.Up, n.Down}
	if p.system() != "" {
		// A real system's lock, election or queue: zkx does not take part
		// in it, it only clears a stale holder.
		return append(keys, a.ForceRelease)
	}
	switch p.view.recipe.(type) {
	case *recognize.Lock, nil:
		keys = append(keys, a.Acquire, a.Release, a.ForceRelease)
	case *recognize.Queue:
		keys = append(keys, a.Enqueue, a.Dequeue)
	case *recognize.Election:
		keys = append(keys, a.Volunteer, a.Resign, a.ForceRelease)
	}
	return keys
}

func (p *recipePage) Mouse(msg tea.MouseMsg) tea.Cmd {
	widget.MouseTable(p.view.tbl, msg, len(p.view.summary()))
	return nil
}

func (p *recipePage) Update(msg tea.Msg) (page, tea.Cmd) {
	key, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return p, p.view.update(msg)
	}
	return p, p.key(key)
}

func (p *recipePage) key(msg tea.KeyPressMsg) tea.Cmd {
	a := p.ctx.Keys.Action
	switch {
	case widget.Navigate(p.view.tbl, p.ctx.Keys.Nav, msg):
	case p.ctx.Actor == nil || p.ctx.Writer == nil:
		return nil // read-only: no action exists
	case key.Matches(msg, a.ForceRelease):
		return p.forceRelease()
	case p.system() != "":
		return nil // see Keys: no part in a real system's coordination
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
	if p.ctx.Actor.LockState(dir) != ActorNone {
		return failure(fmt.Errorf("you already hold or wait for %s (u releases)", dir))
	}
	actor, ctx := p.ctx.Actor, p.ctx.Ctx
	return tea.Batch(status("queued for "+dir+": you appear in the chain; u stops waiting"), func() tea.Msg {
		if err := actor.Acquire(ctx, dir, format); err != nil {
			return statusMsg{text: err.Error(), err: true}
		}
		return statusMsg{text: "you hold " + dir + " (u releases)"}
	})
}

func (p *recipePage) release() tea.Cmd {
	dir := p.view.path
	if p.ctx.Actor.LockState(dir) == ActorNone {
		return failure(fmt.Errorf("you neither hold nor wait for %s", dir))
	}
	actor, ctx := p.ctx.Actor, p.ctx.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		if err := actor.Release(ctx, dir); err != nil {
			return statusMsg{text: err.Error(), err: true}
		}
		return statusMsg{text: "released " + dir}
	}
}

// forceRelease deletes the selected holder's node after a confirmation
// naming its session and client. The delete is conditional on the node
// still belonging to that session, so a lock that changed hands in the
// meantime is left alone.
func (p *recipePage) forceRelease() tea.Cmd {
	c, ok := p.view.selected()
	if !ok {
		return failure(fmt.Errorf("select the holder to force-release"))
	}
	node := recognize.ContenderPath(p.view.path, c.Node)
	client := c.Client
	if client == "" {
		client = "unknown (cons not readable)"
	}
	held := "unknown"
	if !c.Created.IsZero() {
		held = display.Duration(p.ctx.Now().Sub(c.Created))
	}
	body := []string{
		"Delete " + display.Line(node) + "?",
		"",
		"session  " + c.Session,
		"client   " + client,
		"held     " + held,
		"",
		p.ctx.Styles.Warning.Render("Its owner is not told: if it is alive it may still believe it holds the lock."),
		"The next waiter is notified and takes over.",
	}
	if sys := p.system(); sys != "" {
		body = append(body, p.ctx.Styles.Warning.Render(fmt.Sprintf("It is %s's %s: %s reacts as to its holder's crash.", sys, p.view.recipe.Info().Role, sys)))
	}
	c0, w, ctx, session := p.ctx.Client, p.ctx.Writer, p.ctx.Ctx, c.SessionID
	return openDialog(widget.Confirm("Force-release", body, func() tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, requestTimeout)
			defer cancel()
			if err := deleteOwnedBy(ctx, c0, w, node, session); err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: "deleted " + node}
		}
	}))
}

// deleteOwnedBy deletes node if it is still the ephemeral node of session
// at the version just read.
func deleteOwnedBy(ctx context.Context, c *zkview.Client, w *zkview.Writer, node string, session int64) error {
	st, err := c.Exists(ctx, node)
	if err != nil {
		return err
	}
	if st == nil {
		return fmt.Errorf("%s is already gone", node)
	}
	if session != 0 && st.EphemeralOwner != session {
		return fmt.Errorf("%s now belongs to session %s, not %s: left alone", node, display.Hex(st.EphemeralOwner), display.Hex(session))
	}
	if err := w.Delete(ctx, node, st.Version); err != nil {
		if zkview.IsNoNode(err) {
			return fmt.Errorf("%s is already gone", node)
		}
		return err
	}
	return nil
}

func (p *recipePage) enqueue() tea.Cmd {
	q, ok := p.view.recipe.(*recognize.Queue)
	if !ok {
		return failure(fmt.Errorf("%s is not a queue", p.view.path))
	}
	dir, format, actor, ctx := p.view.path, q.Format, p.ctx.Actor, p.ctx.Ctx
	return openDialog(widget.Ask("Enqueue on "+display.Line(dir), []string{"The item's data (text):"}, "> ", "", func(data string) tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, requestTimeout)
			defer cancel()
			node, err := actor.Enqueue(ctx, dir, format, []byte(data))
			if err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: "enqueued " + node}
		}
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
	dir, format, actor, ctx := p.view.path, q.Format, p.ctx.Actor, p.ctx.Ctx
	body := []string{"Take the head of " + display.Line(dir) + "?", "", "node  " + display.Line(head.Node), "data  " + head.Data,
		"", "The item is removed: the consumers of this queue will not see it."}
	return openDialog(widget.Confirm("Dequeue", body, func() tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, requestTimeout)
			defer cancel()
			data, err := actor.Dequeue(ctx, dir, format)
			if err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: "dequeued: " + decode.Summary(data, 60)}
		}
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
	actor, ctx := p.ctx.Actor, p.ctx.Ctx
	return tea.Batch(status("standing in "+dir+"; R withdraws"), func() tea.Msg {
		if err := actor.Volunteer(ctx, dir, format); err != nil {
			return statusMsg{text: err.Error(), err: true}
		}
		return statusMsg{text: "you lead " + dir + " (R resigns)"}
	})
}

func (p *recipePage) resign() tea.Cmd {
	dir, actor, ctx := p.view.path, p.ctx.Actor, p.ctx.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		if err := actor.Resign(ctx, dir); err != nil {
			return statusMsg{text: err.Error(), err: true}
		}
		return statusMsg{text: "resigned from " + dir}
	}
}
