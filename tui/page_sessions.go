package tui

import (
	"context"
	"fmt"
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
// top (see poller); below another page, or with the explorer idle on
// another page, it asks nothing.
type sessionsPage struct {
	ctx    *Shared
	poll   poller
	pctx   context.Context
	cancel context.CancelFunc

	tbl *widget.ListTable

	width, height int
}

func newSessionsPage(ctx *Shared) page { return newSessionsPageFrom(ctx, clientSource(ctx)) }

func newSessionsPageFrom(ctx *Shared, src source) *sessionsPage {
	pctx, cancel := context.WithCancel(ctx.Ctx)
	p := &sessionsPage{ctx: ctx, pctx: pctx, cancel: cancel}
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
		{Title: "EPHEMERALS", Weight: 1, Min: 12},
		{Title: "WATCHES", Fit: true, Most: 7, Right: true, Hide: 3},
		{Title: "TIMEOUT", Fit: true, Most: 7, Right: true, Hide: 1},
		{Title: "LAST OP", Fit: true, Most: 7, Hide: 1},
	}
}

func (p *sessionsPage) Init() tea.Cmd { return p.poll.start(p.pctx, p.ctx.Now()) }
func (p *sessionsPage) Title() string { return "sessions" }
func (p *sessionsPage) Close()        { p.cancel() }

func (p *sessionsPage) Keys() []key.Binding {
	k := p.ctx.Keys
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
		if key.Matches(msg, p.ctx.Keys.Nav.Enter) {
			return p, p.open()
		}
		widget.Navigate(p.tbl.Table, p.ctx.Keys.Nav, msg)
	case introMsg:
		if p.poll.take(msg, p.ctx.Now()) {
			p.rebuild()
			if msg.err != nil {
				return p, failureLine(fmt.Errorf("sessions: %w", msg.err))
			}
		}
	case refreshMsg, sessionMsg:
		return p, p.poll.start(p.pctx, p.ctx.Now())
	case frameMsg:
		return p, p.poll.frame(p.pctx, p.ctx.Now())
	}
	return p, nil
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
	return push(newSessionPageFrom(p.ctx, int64(id), p.poll.last, source{introspect: p.poll.ask}))
}

func (p *sessionsPage) Mouse(msg tea.MouseMsg) tea.Cmd {
	if widget.MouseTable(p.tbl.Table, msg, p.headLines()) {
		return p.open()
	}
	return nil
}

func (p *sessionsPage) nextFrame() time.Duration {
	now := p.ctx.Now()
	return soonest(p.poll.nextFrame(now), p.tbl.NextFlash(now))
}

func (p *sessionsPage) rebuild() {
	in := p.poll.last
	if in == nil {
		return
	}
	st := p.ctx.Styles
	rows := make([]widget.TableRow, 0, len(in.Sessions))
	for _, s := range in.Sessions {
		id := s.Hex
		if p.ctx.you(s.ID) {
			id += " " + st.You.Render("you")
		}
		conn := "yes"
		if !s.Connected {
			conn = st.Warning.Render("no")
		}
		eph := ""
		if n := len(s.Ephemerals); n > 0 {
			eph = fmt.Sprintf("%d  %s", n, display.Line(s.Ephemerals[0]))
		}
		timeout := ""
		if s.Timeout > 0 {
			timeout = s.Timeout.String()
		}
		rows = append(rows, widget.TableRow{Key: strconv.FormatUint(uint64(s.ID), 16), Cells: []string{
			id, display.Line(s.Client), display.Line(s.Server), conn, eph,
			strconv.Itoa(s.WatchCount), timeout, display.Line(s.LastOp)}})
	}
	p.tbl.SetSize(p.width, p.tableHeight())
	p.tbl.SetRows(rows, p.ctx.Now())
}

func (p *sessionsPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.tbl.SetSize(w, p.tableHeight())
}

func (p *sessionsPage) headLines() int {
	if p.height < 10 {
		return min(1, p.height)
	}
	return 1 + min(len(p.notes()), 3)
}

func (p *sessionsPage) tableHeight() int {
	h := p.height - p.headLines()
	if p.height >= 6 {
		h--
	}
	return max(h, 0)
}

func (p *sessionsPage) View() string {
	st := p.ctx.Styles
	lines := append([]string{p.summary()}, capNotes(st, p.notes(), 3)...)
	lines = lines[:min(len(lines), p.headLines())]
	if p.tableHeight() > 0 {
		lines = append(lines, widget.SplitLines(p.tbl.View(st, true, p.ctx.Now()))...)
	}
	if p.height >= 6 {
		lines = append(lines, st.Dim.Render("server tables have no watches: asked again every 5s while shown, and on ctrl+r"))
	}
	return widget.Block(lines, p.width, p.height)
}

func (p *sessionsPage) summary() string {
	st := p.ctx.Styles
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
	n := len(in.Sessions)
	return st.Title.Render(fmt.Sprintf("%d %s", n, plural(n, "session", "sessions"))) +
		st.Dim.Render(fmt.Sprintf(" · %d connected · %d ephemeral %s · %s · read at %s",
			connected, ephemerals, plural(ephemerals, "node", "nodes"), membersText(in), in.At.Format("15:04:05")))
}

// notes are what the servers would not tell, and a failed last ask.
func (p *sessionsPage) notes() []string {
	return introNotes(p.ctx.Styles, p.poll.last, p.poll.err)
}

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

// introNotes are the refusals and problems of an introspection, and the
// failure of the last ask when it failed after an earlier answer.
func introNotes(st theme.Styles, in *introspect.Snapshot, err error) []string {
	var out []string
	if err != nil && in != nil {
		out = append(out, st.Error.Render("✗ the last ask failed, showing the one before: "+firstLine(err.Error())))
	}
	if in == nil {
		return out
	}
	if line := in.SourcesLine(); line != "" && !in.TablesComplete() {
		out = append(out, st.Warning.Render("⚠ "+line))
	} else if line != "" {
		out = append(out, st.Dim.Render(line))
	}
	for _, pr := range in.OtherProblems() {
		out = append(out, st.Warning.Render("⚠ "+firstLine(pr.String())))
	}
	return out
}

// capNotes keeps at most n notes, the last saying how many were left out.
func capNotes(st theme.Styles, notes []string, n int) []string {
	if len(notes) <= n {
		return notes
	}
	more := len(notes) - n + 1
	return append(notes[:n-1:n-1], st.Dim.Render(fmt.Sprintf("… and %d more", more)))
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
