package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// sessionPage is one session from the servers' tables: where it is
// connected from and to, what it does in the recipes zkx recognises (what
// it holds, leads, where it waits and behind whom, the deadlocks it is
// in), and its ephemeral nodes and watched paths as a list. It asks the
// servers again as :sessions does, and recognises the recipes again when
// the session's ephemeral nodes change (or on ctrl+r).
type sessionPage struct {
	shared  *sharedState
	id      int64
	poll    poller
	src     source
	pageCtx context.Context
	cancel  context.CancelFunc
	tbl     *widget.Table
	story   storyState

	width, height int
}

// storyState is the session's story and the recognition behind it.
type storyState struct {
	gen     int
	running bool
	// of is the session's ephemeral nodes the last recognition was asked
	// for (one string); a new answer with others asks again.
	of    string
	story *recognize.SessionStory
	at    time.Time // when the recipes were read
	err   error
}

// storyMsg is a recognition of the recipes, told as the session's story.
type storyMsg struct {
	owner *sessionPage
	gen   int
	story recognize.SessionStory
	at    time.Time
	err   error
}

// newSessionPageFrom opens session id, showing what in (the list's last
// answer, may be nil) says of it until the page's own answer comes.
func newSessionPageFrom(shared *sharedState, id int64, in *introspect.Snapshot, src source) *sessionPage {
	ctx, cancel := context.WithCancel(shared.Ctx)
	p := &sessionPage{shared: shared, id: id, src: src, pageCtx: ctx, cancel: cancel,
		tbl: widget.NewTable(widget.Column{Title: "KIND", Width: 9}, widget.Column{Title: "PATH", Min: 10})}
	p.poll.ask = src.introspect
	if in != nil {
		p.poll.last, p.poll.answered = in, shared.Now()
		p.rebuild()
	}
	return p
}

func (p *sessionPage) Init() tea.Cmd {
	if p.poll.last != nil {
		return p.tell(false) // just read by the list; the next ask is when due
	}
	return p.poll.start(p.pageCtx, p.shared.Now())
}

// tell recognises the recipes again, from the ephemeral nodes the last
// answer lists (or a walk), when the session's own have changed since the
// last time, or always when again is set.
func (p *sessionPage) tell(again bool) tea.Cmd {
	in, s := p.poll.last, p.session()
	if in == nil || s == nil || p.src.scan == nil || p.story.running {
		return nil
	}
	of := strings.Join(s.Ephemerals, "\x00")
	if !again && p.story.story != nil && of == p.story.of {
		return nil
	}
	p.story.gen++
	p.story.running, p.story.of = true, of
	gen, owner, id, ephemerals, scan, ctx, now := p.story.gen, p, p.id, s.Ephemerals, p.src.scan, p.pageCtx, p.shared.Now
	opts := p.shared.scanOptions(nil)
	opts.Tables = in.Tables()
	return func() tea.Msg {
		res, err := scan(ctx, "/", opts, in)
		msg := storyMsg{owner: owner, gen: gen, at: now(), err: err}
		if err != nil && !res.Partial {
			return msg
		}
		deadlocks := recognize.MarkDeadlocks(res.Locks)
		msg.story = recognize.StoryOf(&res, id, ephemerals, deadlocks)
		return msg
	}
}

func (p *sessionPage) Title() string { return "session " + display.Hex(p.id) }
func (p *sessionPage) Close()        { p.cancel() }

func (p *sessionPage) Keys() []key.Binding {
	k := p.shared.Keys
	again := k.Global.Refresh
	again.SetHelp(again.Help().Key, "ask the servers again")
	open := k.Nav.Enter
	open.SetHelp(open.Help().Key, "go to the node in the tree")
	return []key.Binding{open, again, k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom}
}

func (p *sessionPage) SetFilter(f widget.Filter) { p.tbl.SetFilter(f) }
func (p *sessionPage) Filter() widget.Filter     { return p.tbl.Filter }

func (p *sessionPage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if key.Matches(msg, p.shared.Keys.Nav.Enter) {
			if r, ok := p.tbl.Selected(); ok && len(r.Key) > 1 {
				return p, goTo(r.Key[1:]) // an ephemeral node or a watched path
			}
			return p, nil
		}
		widget.Navigate(p.tbl, p.shared.Keys.Nav, msg)
	case introspectionMsg:
		if ok, next := p.poll.taken(msg, p.shared.Now()); ok {
			p.rebuild()
			p.layout()
			return p, tea.Batch(next, p.tell(false))
		}
	case storyMsg:
		if msg.owner == p && msg.gen == p.story.gen {
			p.story.running, p.story.err = false, msg.err
			if msg.err == nil || msg.story.Holds != nil {
				p.story.story, p.story.at = &msg.story, msg.at
			}
			p.rebuild()
			p.layout()
		}
	case refreshMsg:
		p.story.story = nil // recognise again with the next answer
		return p, p.poll.start(p.pageCtx, p.shared.Now())
	case sessionMsg:
		return p, p.poll.start(p.pageCtx, p.shared.Now())
	case focusMsg:
		return p, p.poll.focus(p.shared.Now())
	case blurMsg:
		p.poll.blur()
	case refreshDueMsg:
		return p, p.poll.due(msg, p.pageCtx, p.shared.Now())
	}
	return p, nil
}

func (p *sessionPage) Mouse(msg tea.MouseMsg) tea.Cmd {
	widget.MouseTable(p.tbl, msg, p.headLines())
	return nil
}

func (p *sessionPage) nextFrame() time.Duration {
	now := p.shared.Now()
	return p.tbl.NextFlash(now)
}

// session is what the last answer says of the session; nil when it no
// longer lists it.
func (p *sessionPage) session() *introspect.Session {
	if p.poll.last == nil {
		return nil
	}
	return p.poll.last.Session(p.id)
}

func (p *sessionPage) rebuild() {
	s := p.session()
	if s == nil {
		return // gone: the last rows stay, under a line that says so
	}
	rows := make([]widget.TableRow, 0, len(s.Ephemerals)+len(s.Watches))
	kinds := map[string]string{} // an ephemeral's part in a recipe, by path
	for _, l := range p.storyLines() {
		if l.Path != "" {
			kinds[l.Path] = l.Kind
		}
	}
	for _, e := range s.Ephemerals {
		kind := kinds[display.Line(e)]
		if kind == "" {
			kind = present.SessionEphemeral
		}
		rows = append(rows, widget.TableRow{Key: "e" + e, Cells: []string{kind, display.Line(e)}})
	}
	for _, w := range s.Watches {
		rows = append(rows, widget.TableRow{Key: "w" + w, Cells: []string{"watch", display.Line(w)}})
	}
	p.tbl.SetRows(rows, p.shared.Now())
}

func (p *sessionPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.layout()
}

// layout gives the list what the facts above it leave.
func (p *sessionPage) layout() {
	p.tbl.SetSize(p.width, max(p.height-p.headLines(), 0))
}

// head is the session's facts above its list.
func (p *sessionPage) head() []string {
	st := p.shared.Styles
	in, s := p.poll.last, p.session()
	switch {
	case in == nil && p.poll.err != nil:
		return []string{st.Error.Render("✗ the servers did not answer: " + firstLine(p.poll.err.Error()))}
	case in == nil:
		return []string{st.Title.Render("asking the servers…")}
	case s == nil:
		return []string{st.Warning.Render(fmt.Sprintf("session %s is no longer in the servers' tables (closed or expired) as of %s",
			display.Hex(p.id), in.At.Format("15:04:05")))}
	}
	who := st.Title.Render(s.Hex)
	if p.shared.isOwnSession(s.ID) {
		who += " " + st.You.Render("you")
	}
	conn := "connected"
	if !s.Connected {
		conn = st.Warning.Render("no live connection")
	}
	line1 := who + st.Dim.Render(" · ") + conn
	if s.Client != "" {
		line1 += st.Dim.Render(" · from ") + display.Line(s.Client)
	}
	if s.Server != "" {
		line1 += st.Dim.Render(" to ") + display.Line(s.Server)
	}
	var facts []string
	if s.Timeout > 0 {
		facts = append(facts, "timeout "+s.Timeout.String())
	}
	if s.LastOp != "" {
		facts = append(facts, "last op "+display.Line(s.LastOp))
	}
	if !s.Established.IsZero() {
		facts = append(facts, "connected since "+s.Established.Format("15:04:05"))
	}
	if !s.Expires.IsZero() {
		facts = append(facts, "expires at "+s.Expires.Format("15:04:05")+" unless its client is heard from")
	}
	counts := fmt.Sprintf("%d ephemeral %s · %d %s (%d listed: data watches under the root) · read at %s",
		len(s.Ephemerals), plural(len(s.Ephemerals), "node", "nodes"), s.WatchCount, plural(s.WatchCount, "watch", "watches"),
		len(s.Watches), in.At.Format("15:04:05"))
	lines := []string{line1}
	if len(facts) > 0 {
		lines = append(lines, st.Dim.Render(strings.Join(facts, " · ")))
	}
	lines = append(lines, st.Dim.Render(counts))
	return append(lines, p.storyHead()...)
}

// storyLines are what the session does, in the presenter's words (as
// zkx sessions SESSION says them); none before the first recognition.
func (p *sessionPage) storyLines() []present.SessionLine {
	if p.story.story == nil {
		return nil
	}
	return present.SessionLines(*p.story.story, p.shared.Now())
}

// storyHead tells what the session does above its list, wrapped: its
// deadlocks in red, then what it holds, leads and waits for, at most a
// third of the page; its other ephemerals are in the list.
func (p *sessionPage) storyHead() []string {
	st := p.shared.Styles
	w := max(p.width, 20)
	switch {
	case p.story.story == nil && p.story.err != nil:
		return widget.Wrap(st.Warning.Render("⚠ what it does in the recipes is not known: "+firstLine(p.story.err.Error())), w)
	case p.story.story == nil:
		return []string{st.Dim.Render("recognising the recipes to tell what it holds and waits for…")}
	}
	var notes []string
	told := 0
	for _, l := range p.storyLines() {
		if l.Kind == present.SessionEphemeral {
			continue
		}
		told++
		text := fmt.Sprintf("%-*s  %s", present.SessionKindWidth, l.Kind, l.Text)
		if l.Alarm {
			text = st.Error.Render("✗ " + text)
		}
		notes = append(notes, text)
	}
	if told == 0 {
		notes = append(notes, st.Dim.Render("it holds, leads and waits for nothing zkx recognises"))
	}
	when := "recipes read at " + p.story.at.Format("15:04:05") + ", again when its ephemeral nodes change (ctrl+r: now)"
	if p.story.err != nil {
		when += " · " + st.Warning.Render("partly: "+firstLine(p.story.err.Error()))
	}
	return append(wrapNotes(st, notes, w, max(p.height/3, 2)), widget.Wrap(st.Dim.Render(when), w)...)
}

func (p *sessionPage) headLines() int { return min(len(p.head())+1, max(p.height-2, 1)) }

func (p *sessionPage) View() string {
	st := p.shared.Styles
	head := p.head()
	lines := append(head, "")
	lines = lines[:min(len(lines), p.headLines())]
	if p.tbl.Height > 0 {
		lines = append(lines, widget.SplitLines(p.tbl.View(st, true, p.shared.Now()))...)
	}
	return widget.Block(lines, p.width, p.height)
}
