package tui

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// serverPage is :server: one row per member of the ensemble (srvr), and
// below them the selected member's mntr, which `/` filters. It asks the
// servers again as :sessions does: ctrl+r, session changes, and every
// pollEvery while on top.
type serverPage struct {
	shared  *sharedState
	poll    poller
	pageCtx context.Context
	cancel  context.CancelFunc
	tbl     *widget.ListTable
	filter  widget.Filter // of the mntr keys
	// membership is /zookeeper/config and whoAmI (page_server_membership.go).
	membership *membershipMsg

	width, height int
}

func newServerPage(shared *sharedState) page { return newServerPageFrom(shared, clientSource(shared)) }

func newServerPageFrom(shared *sharedState, src source) *serverPage {
	ctx, cancel := context.WithCancel(shared.Ctx)
	p := &serverPage{shared: shared, pageCtx: ctx, cancel: cancel}
	p.poll.ask = src.introspect
	p.tbl = widget.NewListTable(memberColumns()...)
	return p
}

func memberColumns() []widget.ListColumn {
	return []widget.ListColumn{
		{Title: "MEMBER", Fit: true, Most: 28},
		{Title: "MODE", Fit: true, Most: 11},
		{Title: "VERSION", Fit: true, Most: 18, Hide: 2},
		{Title: "ZXID", Fit: true, Most: 18},
		{Title: "ZNODES", Fit: true, Most: 11, Right: true, Hide: 3},
		{Title: "CONNS", Fit: true, Most: 7, Right: true},
		{Title: "OUTSTANDING", Fit: true, Most: 11, Right: true, Hide: 1},
		{Title: "LATENCY min/avg/max", Fit: true, Most: 24, Hide: 2},
		{Title: "TABLES", Fit: true, Most: 20, Hide: 4},
		{Title: "", Weight: 1, Min: 0},
	}
}

func (p *serverPage) Init() tea.Cmd {
	return tea.Batch(p.poll.start(p.pageCtx, p.shared.Now()), p.readMembership())
}
func (p *serverPage) Title() string { return "server" }
func (p *serverPage) Close()        { p.cancel() }

func (p *serverPage) Keys() []key.Binding {
	k := p.shared.Keys
	again := k.Global.Refresh
	again.SetHelp(again.Help().Key, "ask the servers again")
	filter := k.Global.Filter
	filter.SetHelp(filter.Help().Key, "filter the mntr keys")
	return []key.Binding{k.Nav.Up, k.Nav.Down, filter, again}
}

func (p *serverPage) SetFilter(f widget.Filter) { p.filter = f }
func (p *serverPage) Filter() widget.Filter     { return p.filter }

func (p *serverPage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		widget.Navigate(p.tbl.Table, p.shared.Keys.Nav, msg)
	case introspectionMsg:
		if ok, next := p.poll.taken(msg, p.shared.Now()); ok {
			p.rebuild()
			if msg.err != nil {
				return p, tea.Batch(next, failureLine(fmt.Errorf("server: %w", msg.err)))
			}
			return p, next
		}
	case membershipMsg:
		if msg.owner == p {
			p.membership = &msg
			p.layout()
		}
	case refreshMsg:
		return p, tea.Batch(p.poll.start(p.pageCtx, p.shared.Now()), p.readMembership())
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

func (p *serverPage) Mouse(msg tea.MouseMsg) tea.Cmd {
	widget.MouseTable(p.tbl.Table, msg, p.headLines())
	return nil
}

func (p *serverPage) nextFrame() time.Duration {
	now := p.shared.Now()
	return p.tbl.NextFlash(now)
}

func (p *serverPage) rebuild() {
	in := p.poll.last
	if in == nil {
		return
	}
	st := p.shared.Styles
	rows := make([]widget.TableRow, 0, len(in.Members))
	for _, m := range in.Members {
		cells := []string{display.Line(m.Addr), modeStyle(st, m.Mode).Render(display.Line(string(m.Mode))), "", "", "", "", "", "", tablesCell(st, m), ""}
		if s := m.Stats; s != nil {
			mode := string(m.Mode)
			if s.ReadOnly && m.Mode != introspect.ModeReadOnly {
				mode += ", r/o"
			}
			cells[1] = modeStyle(st, m.Mode).Render(mode)
			cells[2] = shortVersion(s.Version)
			cells[3] = display.Hex(s.Zxid)
			cells[4] = display.Count(s.NodeCount)
			cells[5] = strconv.FormatInt(s.Connections, 10)
			cells[6] = strconv.FormatInt(s.Outstanding, 10)
			cells[7] = fmt.Sprintf("%d/%.1f/%d ms", s.LatencyMin, s.LatencyAvg, s.LatencyMax)
		}
		if m.Error != "" && m.Mode != introspect.ModeUnreachable { // an unreachable member's note says why, whole
			cells[9] = st.Error.Render(firstLine(m.Error))
		}
		rows = append(rows, widget.TableRow{Key: m.Addr, Cells: cells})
	}
	p.tbl.SetRows(rows, p.shared.Now())
	p.layout()
}

// tablesCell says where a member's session tables came from: 4lw, its
// AdminServer, refused (dim: client addresses and watches are unknown).
func tablesCell(st theme.Styles, m introspect.Member) string {
	switch m.TablesFrom {
	case introspect.TablesFromFourLetter, introspect.TablesFromAdmin:
		return m.TablesFrom
	case introspect.TablesRefused, introspect.TablesPartial:
		return st.Warning.Render(m.TablesFrom)
	case string(introspect.ModeUnreachable):
		if m.NoAnswer {
			return st.Error.Render("no answer")
		}
	}
	return st.Dim.Render(m.TablesFrom)
}

// modeStyle colours a member's mode: green leads, red is down.
func modeStyle(st theme.Styles, m introspect.MemberMode) lipgloss.Style {
	switch m {
	case introspect.ModeLeader, introspect.ModeStandalone:
		return st.Leader
	case introspect.ModeFollower, introspect.ModeObserver:
		return st.Info
	case introspect.ModeReadOnly, introspect.ModeNotServing:
		return st.Warning
	case introspect.ModeUnreachable:
		return st.Error
	}
	return st.Dim
}

// shortVersion keeps the release of a version string, dropping the
// build (a commit id, or Debian's unexpanded "${mvngit.commit.id}"):
// "3.8.0-5a02a05…, built on 2022-02-25" → "3.8.0".
func shortVersion(v string) string {
	v, _, _ = strings.Cut(v, ",")
	if rel, build, ok := strings.Cut(v, "-"); ok && (len(build) >= 7 && isHex(build) || strings.HasPrefix(build, "${")) {
		v = rel
	}
	return display.Line(strings.TrimSpace(v))
}

func (p *serverPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.layout()
}

// layout gives the member table its rows (all of them when they fit in
// half the page) and leaves the rest to mntr.
func (p *serverPage) layout() {
	avail := max(p.height-p.headLines()-1, 0)
	if m := len(p.membershipLines()); m > 0 {
		avail = max(avail-m-1, 0) // the block and the blank line above it
	}
	p.tbl.SetSize(p.width, min(len(p.tbl.All)+1, max(avail/2, 2), avail))
}

func (p *serverPage) headLines() int {
	if p.height < 10 {
		return min(1, p.height)
	}
	return len(p.head())
}

// headNotes is how many lines the notes may take above the members: a
// member that does not answer is named whole, wrapped; the rest is
// behind !.
const headNotes = 5

// head is the summary and the notes, wrapped to the page's width.
func (p *serverPage) head() []string {
	return append([]string{p.summary()}, wrapNotes(p.shared.Styles, p.notes(), max(p.width, 20), headNotes)...)
}

func (p *serverPage) notes() []string { return introspectionNotes(p.shared, p.poll.last, p.poll.err) }

func (p *serverPage) summary() string {
	st := p.shared.Styles
	in := p.poll.last
	if in == nil {
		if p.poll.err != nil {
			return st.Error.Render("✗ the servers did not answer: " + firstLine(p.poll.err.Error()))
		}
		return st.Title.Render("asking the servers…")
	}
	s := st.Title.Render(fmt.Sprintf("ensemble of %d", len(in.Members)))
	if l := in.Leader(); l != nil && l.Mode == introspect.ModeStandalone {
		s = st.Title.Render("standalone server")
	} else if l != nil {
		s += st.Dim.Render(" · leader ") + display.Line(l.Addr)
	} else if len(in.Members) > 1 {
		s += st.Dim.Render(" · ") + st.Error.Render("no leader")
	}
	return s + st.Dim.Render(" · "+membersText(in)+" · read at "+in.At.Format("15:04:05"))
}

func (p *serverPage) View() string {
	st := p.shared.Styles
	lines := p.head()
	lines = lines[:min(len(lines), p.headLines())]
	if p.tbl.Height > 0 {
		lines = append(lines, widget.SplitLines(p.tbl.View(st, true, p.shared.Now()))...)
	}
	if m := p.membershipLines(); len(m) > 0 {
		lines = append(lines, "")
		lines = append(lines, m...)
	}
	if rest := p.height - len(lines); rest > 1 {
		lines = append(lines, "")
		lines = append(lines, p.monitor(rest-1)...)
	}
	return widget.Block(lines, p.width, p.height)
}

// monitor draws the selected member's mntr in columns, down then
// across, in height lines.
func (p *serverPage) monitor(height int) []string {
	st := p.shared.Styles
	r, ok := p.tbl.Selected()
	if !ok || p.poll.last == nil || height < 1 {
		return nil
	}
	m := p.poll.last.Member(r.Key)
	if m == nil {
		return nil
	}
	title := st.Title.Render("mntr of " + display.Line(m.Addr))
	if len(m.Monitor) == 0 {
		why := "nothing: refused or unreachable"
		if m.Error != "" {
			why = firstLine(m.Error)
		}
		return []string{title, st.Dim.Render(display.Line(why))}
	}
	var keys []string
	for k, v := range m.Monitor {
		if p.filter.Match(k + " " + v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if p.filter.Active() {
		title += st.Dim.Render(fmt.Sprintf(" · %d of %d keys match %s", len(keys), len(m.Monitor), display.Line(p.filter.Text)))
	} else {
		title += st.Dim.Render(fmt.Sprintf(" · %d keys · / filters them", len(keys)))
	}
	rows := height - 1
	if rows < 1 || len(keys) == 0 {
		return []string{title}
	}
	kw, vw := 0, 0
	for _, k := range keys {
		kw = max(kw, lipgloss.Width(k))
		vw = max(vw, lipgloss.Width(display.Line(m.Monitor[k])))
	}
	kw, vw = min(kw, 32), min(vw, 14) // two columns or more at 100 cells
	cellW := kw + 1 + vw
	ncols := max((p.width+3)/(cellW+3), 1)
	shown := min(len(keys), rows*ncols)
	if shown < len(keys) {
		shown = max(shown-1, 0) // room for "… more"
	}
	grid := make([]string, rows)
	for i := 0; i < shown; i++ {
		k := keys[i]
		cell := st.Dim.Render(widget.Pad(display.Line(k), kw, false)) + " " + widget.Pad(display.Line(m.Monitor[k]), vw, false)
		row := i % rows
		if grid[row] != "" {
			grid[row] += "   "
		}
		grid[row] += cell
	}
	if more := len(keys) - shown; more > 0 {
		row := shown % rows
		if grid[row] != "" {
			grid[row] += "   "
		}
		grid[row] += st.Dim.Render(fmt.Sprintf("… %d more: / to filter", more))
	}
	return append([]string{title}, grid...)
}

// isHex reports whether s is hex digits, as a commit id is.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}
