package tui

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// sessionsPage is :sessions: every session the servers' tables list
// (cons, dump, wchc on every member), the explorer's own marked "you".
//
// Those tables have no watches, so the page asks again on ctrl+r, on a
// change of the explorer's session, and every pollEvery while it is on
// top (see refresher); below another page it asks nothing.
type sessionsPage struct {
	shared  *sharedState
	poll    poller
	pageCtx context.Context
	cancel  context.CancelFunc
	src     source

	// The tree's ephemeral nodes by owner, read when the servers would not
	// list them (dump refused): the sessions they name are known even so.
	tree      map[int64][]string
	treeNodes int
	treeErr   error
	treeState walkState

	tbl *widget.ListTable

	width, height int
}

// walkState is where the page's read of the tree's ephemerals is.
type walkState int

const (
	walkNone walkState = iota
	walkRunning
	walkDone
)

// ephemeralsMsg is a read of the tree's ephemeral nodes by owner.
type ephemeralsMsg struct {
	owner  *sessionsPage
	owners map[int64][]string
	nodes  int
	err    error
}

func newSessionsPage(shared *sharedState) page {
	return newSessionsPageFrom(shared, clientSource(shared))
}

func newSessionsPageFrom(shared *sharedState, src source) *sessionsPage {
	ctx, cancel := context.WithCancel(shared.Ctx)
	p := &sessionsPage{shared: shared, pageCtx: ctx, cancel: cancel, src: src}
	p.poll.ask = src.introspect
	p.tbl = widget.NewListTable(sessionColumns()...)
	return p
}

func sessionColumns() []widget.ListColumn {
	return []widget.ListColumn{
		{Title: "SESSION", Fit: true, Most: 22},
		{Title: "CLIENT", Fit: true, Most: 21},
		{Title: "SERVER", Fit: true, Most: 21, Hide: 2},
		{Title: "CONN", Fit: true, Most: 4},
		{Title: "HEARD", Fit: true, Most: 10, Right: true, Hide: 4},
		{Title: "EPHEMERALS", Weight: 1, Min: 12},
		{Title: "WATCHES", Fit: true, Most: 7, Right: true, Hide: 3},
		{Title: "TIMEOUT", Fit: true, Most: 7, Right: true, Hide: 1},
		{Title: "LAST OP", Fit: true, Most: 7, Hide: 1},
	}
}

func (p *sessionsPage) Init() tea.Cmd { return p.poll.start(p.pageCtx, p.shared.Now()) }
func (p *sessionsPage) Title() string { return "sessions" }
func (p *sessionsPage) Close()        { p.cancel() }

func (p *sessionsPage) Keys() []key.Binding {
	k := p.shared.Keys
	open := k.Nav.Enter
	open.SetHelp(open.Help().Key, "the session's ephemerals and watches")
	again := k.Global.Refresh
	again.SetHelp(again.Help().Key, "ask the servers again")
	return []key.Binding{open, again, k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom}
}

func (p *sessionsPage) SetFilter(f widget.Filter) { p.tbl.SetFilter(f) }
func (p *sessionsPage) Filter() widget.Filter     { return p.tbl.Filter }

func (p *sessionsPage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if key.Matches(msg, p.shared.Keys.Nav.Enter) {
			return p, p.open()
		}
		widget.Navigate(p.tbl.Table, p.shared.Keys.Nav, msg)
	case introspectionMsg:
		if ok, next := p.poll.taken(msg, p.shared.Now()); ok {
			p.rebuild()
			if msg.err != nil {
				return p, tea.Batch(next, failureLine(fmt.Errorf("sessions: %w", msg.err)))
			}
			return p, tea.Batch(next, p.walkIfRefused())
		}
	case ephemeralsMsg:
		if msg.owner == p {
			p.tree, p.treeNodes, p.treeErr, p.treeState = msg.owners, msg.nodes, msg.err, walkDone
			p.rebuild()
		}
	case refreshMsg:
		if p.treeState == walkDone {
			p.treeState = walkNone // read the tree again with the next answer
		}
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

// walkIfRefused reads the tree's ephemeral nodes when the servers would
// not list them (no member's dump was read), once per page and ctrl+r: a
// walk of the tree is too dear to repeat at every poll.
func (p *sessionsPage) walkIfRefused() tea.Cmd {
	if _, listed := p.poll.last.Ephemerals(); listed || p.poll.last == nil || p.treeState != walkNone || p.src.ephemerals == nil {
		return nil
	}
	p.treeState = walkRunning
	ctx, read, owner := p.pageCtx, p.src.ephemerals, p
	return func() tea.Msg {
		owners, nodes, err := read(ctx)
		return ephemeralsMsg{owner: owner, owners: owners, nodes: nodes, err: err}
	}
}

// open pushes the detail of the selected session.
func (p *sessionsPage) open() tea.Cmd {
	r, ok := p.tbl.Selected()
	if !ok {
		return nil
	}
	id, err := strconv.ParseUint(r.Key, 16, 64)
	if err != nil {
		return nil
	}
	return push(newSessionPageFrom(p.shared, int64(id), p.poll.last, p.src))
}

func (p *sessionsPage) Mouse(msg tea.MouseMsg) tea.Cmd {
	if widget.MouseTable(p.tbl.Table, msg, p.headLines()) {
		return p.open()
	}
	return nil
}

func (p *sessionsPage) nextFrame() time.Duration {
	now := p.shared.Now()
	return p.tbl.NextFlash(now)
}

func (p *sessionsPage) rebuild() {
	in := p.poll.last
	if in == nil {
		return
	}
	st := p.shared.Styles
	now := p.shared.Now()
	tables := in.Tables()
	rows := make([]widget.TableRow, 0, len(in.Sessions)+len(p.tree))
	listed := map[int64]bool{}
	for _, s := range in.Sessions {
		listed[s.ID] = true
		id := s.Hex
		if p.shared.isOwnSession(s.ID) {
			id += " " + st.You.Render("you")
		}
		conn := "?"
		switch c, known := tables.Connected(s.ID); {
		case c:
			conn = "yes"
		case known:
			conn = st.Warning.Render("no")
		}
		heard := "?"
		if l, ok := tables.LastHeard(s.ID); ok {
			heard = display.Duration(l.Silence(now))
			if l.AtLeast {
				heard = "≥" + heard
			}
			if l.Silent(now) {
				heard = st.Error.Render("SILENT " + heard)
			}
		}
		ephemerals := s.Ephemerals
		if len(ephemerals) == 0 {
			ephemerals = p.tree[s.ID]
		}
		eph := ""
		if n := len(ephemerals); n > 0 {
			eph = fmt.Sprintf("%d  %s", n, display.Line(ephemerals[0]))
		}
		timeout := ""
		if s.Timeout > 0 {
			timeout = s.Timeout.String()
		}
		rows = append(rows, widget.TableRow{Key: strconv.FormatUint(uint64(s.ID), 16), Cells: []string{
			id, display.Line(s.Client), display.Line(s.Server), conn, heard, eph,
			strconv.Itoa(s.WatchCount), timeout, display.Line(s.LastOp)}})
	}
	for _, id := range p.treeOnly(listed) {
		paths := p.tree[id]
		hex := display.Hex(id)
		if p.shared.isOwnSession(id) {
			hex += " " + st.You.Render("you")
		}
		rows = append(rows, widget.TableRow{Key: strconv.FormatUint(uint64(id), 16), Cells: []string{
			hex, "?", "?", "?", "?", fmt.Sprintf("%d  %s", len(paths), display.Line(paths[0])), "?", "?", ""}})
	}
	p.tbl.SetSize(p.width, p.tableHeight())
	p.tbl.SetRows(rows, now)
}

// treeOnly are the sessions the tree's ephemeral nodes name that the
// servers' tables do not list, in id order.
func (p *sessionsPage) treeOnly(listed map[int64]bool) []int64 {
	var ids []int64
	for id, paths := range p.tree {
		if !listed[id] && len(paths) > 0 {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func (p *sessionsPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.tbl.SetSize(w, p.tableHeight())
}

func (p *sessionsPage) headLines() int {
	if p.height < 10 {
		return min(1, p.height)
	}
	return min(len(p.head()), max(p.height/3, 1))
}

// head is the summary and the notes, wrapped to the page's width; at most
// a third of the page, the rest behind !.
func (p *sessionsPage) head() []string {
	return append(widget.Wrap(p.summary(), max(p.width, 20)), wrapNotes(p.shared.Styles, p.notes(), max(p.width, 20), max(p.height/3-1, 1))...)
}

func (p *sessionsPage) tableHeight() int {
	h := p.height - p.headLines()
	if p.height >= 6 {
		h--
	}
	return max(h, 0)
}

func (p *sessionsPage) View() string {
	st := p.shared.Styles
	lines := p.head()
	lines = lines[:min(len(lines), p.headLines())]
	if p.tableHeight() > 0 {
		lines = append(lines, widget.SplitLines(p.tbl.View(st, true, p.shared.Now()))...)
	}
	if p.height >= 6 {
		lines = append(lines, st.Dim.Render("server tables have no watches: asked again every 5s while shown, and on ctrl+r · ! shows the notes in full"))
	}
	return widget.Block(lines, p.width, p.height)
}

func (p *sessionsPage) summary() string {
	st := p.shared.Styles
	in := p.poll.last
	if in == nil {
		if p.poll.err != nil {
			return st.Error.Render("✗ the servers did not answer: " + firstLine(p.poll.err.Error()))
		}
		return st.Title.Render("asking the servers for their sessions…")
	}
	connected, ephemerals := 0, 0
	for _, s := range in.Sessions {
		if s.Connected {
			connected++
		}
		ephemerals += len(s.Ephemerals)
	}
	listed := map[int64]bool{}
	for _, s := range in.Sessions {
		listed[s.ID] = true
	}
	fromTree := p.treeOnly(listed)
	for _, id := range fromTree {
		ephemerals += len(p.tree[id])
	}
	n := len(in.Sessions) + len(fromTree)
	_, dumped := in.Ephemerals()
	var head string
	switch {
	case !dumped && p.treeState == walkRunning:
		head = fmt.Sprintf("%d %s listed by the servers · reading the tree for the sessions its ephemeral nodes name…", len(in.Sessions), plural(len(in.Sessions), "session", "sessions"))
	case !dumped && n == 0 && p.treeState == walkDone:
		head = fmt.Sprintf("no session is listed by the servers, and none owns an ephemeral node (a read of %s nodes)", display.Count(int64(p.treeNodes)))
	case !dumped && p.treeState == walkDone:
		head = fmt.Sprintf("%d %s · %d known only from their ephemeral nodes (a read of %s nodes): their clients, connections and watches are unknown",
			n, plural(n, "session", "sessions"), len(fromTree), display.Count(int64(p.treeNodes)))
	default:
		head = fmt.Sprintf("%d %s", n, plural(n, "session", "sessions"))
	}
	conns := fmt.Sprintf("%d connected", connected)
	if !connectionsRead(in) {
		conns = "connections unknown"
	}
	return st.Title.Render(head) +
		st.Dim.Render(fmt.Sprintf(" · %s · %d ephemeral %s · %s · read at %s",
			conns, ephemerals, plural(ephemerals, "node", "nodes"), membersText(in), in.At.Format("15:04:05")))
}

// connectionsRead reports whether any member's connection list was read
// (cons, the AdminServer, or dump's connection section).
func connectionsRead(in *introspect.Snapshot) bool {
	for _, m := range in.Members {
		if m.Connections != nil {
			return true
		}
	}
	for _, s := range in.Sessions {
		if s.Connected {
			return true
		}
	}
	return false
}

// notes are what the servers would not tell and how to let zkx read it,
// and a failed last ask.
func (p *sessionsPage) notes() []string {
	notes := introspectionNotes(p.shared, p.poll.last, p.poll.err)
	if p.treeErr != nil {
		notes = append(notes, p.shared.Styles.Warning.Render("⚠ the read of the tree's ephemeral nodes ended early: "+firstLine(p.treeErr.Error())))
	}
	return notes
}

// Notes implements noter: ! shows them in full.
func (p *sessionsPage) Notes() []string { return p.notes() }

// membersText says how many members answered.
func membersText(in *introspect.Snapshot) string {
	up := 0
	for _, m := range in.Members {
		if m.Mode != introspect.ModeUnreachable {
			up++
		}
	}
	if up == len(in.Members) {
		return fmt.Sprintf("%d %s", up, plural(up, "member", "members"))
	}
	return fmt.Sprintf("%d of %d members answering", up, len(in.Members))
}

// introspectionNotes are the refusals and problems of an introspection, how to
// let zkx read what is refused, and the failure of the last ask when it
// failed after an earlier answer.
func introspectionNotes(shared *sharedState, in *introspect.Snapshot, err error) []string {
	st := shared.Styles
	var out []string
	if err != nil && in != nil {
		out = append(out, st.Error.Render("✗ the last ask failed, showing the one before: "+firstLine(err.Error())))
	}
	if in == nil {
		return out
	}
	out = append(out, memberNoteLines(shared, in)...)
	if line := in.SourcesLine(); line != "" && !in.TablesComplete() {
		out = append(out, st.Warning.Render("⚠ "+line))
	} else if line != "" {
		out = append(out, st.Dim.Render(line))
	}
	if remedy := in.TablesRemedy(adminHow); remedy != "" && !shared.Past {
		out = append(out, st.Dim.Render("To read them: "+remedy))
	}
	for _, pr := range in.OtherProblems() {
		out = append(out, st.Warning.Render("⚠ "+firstLine(pr.String())))
	}
	return out
}

// memberNoteLines are the introspection's notes on the members (those that
// did not answer or do not serve, and the member the explorer reads
// through when it lagged), the same words as the commands'.
func memberNoteLines(shared *sharedState, in *introspect.Snapshot) []string {
	var out []string
	for _, n := range in.MemberNotes(shared.readThrough()) {
		style := shared.Styles.Error
		if n.Kind == introspect.NoteBehind {
			style = shared.Styles.Warning
		}
		out = append(out, style.Render("⚠ "+display.Line(n.Text)))
	}
	return out
}

// wrapNotes wraps notes to width and keeps at most maxLines lines, the last
// then saying that ! shows them all.
func wrapNotes(st theme.Styles, notes []string, width, maxLines int) []string {
	lines := widget.WrapAll(notes, width)
	if len(lines) <= maxLines || maxLines < 1 {
		return lines
	}
	return append(lines[:maxLines-1:maxLines-1], st.Dim.Render(fmt.Sprintf("… %d more lines: ! shows every note in full", len(lines)-maxLines+1)))
}

// soonest is the smallest positive duration, 0 when none is.
func soonest(ds ...time.Duration) time.Duration {
	var next time.Duration
	for _, d := range ds {
		if d > 0 && (next == 0 || d < next) {
			next = d
		}
	}
	return next
}
