package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/tui/widget"
)

// Sizes of the demo's layout.
const (
	demoMinColumn  = 24 // narrower lanes are stacked instead of side by side
	demoWideColumn = 34 // from here on counters have their long labels
	demoGutter     = 2  // the arrows left of each contender
)

// demoColumnSep separates the lanes.
const demoColumnSep = " │ "

func (p *demoPage) View() string {
	if p.width <= 0 || p.height <= 0 {
		return widget.Block(nil, p.width, p.height)
	}
	now := p.shared.Now()
	lanes := p.laneViews(now)
	if len(lanes) == 0 {
		return widget.Block([]string{p.shared.Styles.Dim.Render("no demo lanes are running: start them with zkx demo")}, p.width, p.height)
	}
	n := len(lanes)
	cw := (p.width - lipgloss.Width(demoColumnSep)*(n-1)) / n
	if cw < demoMinColumn {
		return widget.Block(p.stacked(lanes), p.width, p.height)
	}
	return widget.Block(p.columns(lanes, cw), p.width, p.height)
}

// laneView is one lane ready to draw.
type laneView struct {
	index    int
	snap     demo.LaneSnapshot
	rows     []demoRow
	live     int
	style    lipgloss.Style
	selected bool
}

func (p *demoPage) laneViews(now time.Time) []laneView {
	flashFor := demoFlashFor(p.hold())
	var out []laneView
	for i, s := range p.snaps {
		hidden := func(c demo.ContenderSnapshot) bool { return p.ghosts.hidden(i, s, c, now) }
		flashed := func(c demo.ContenderSnapshot) bool { return p.flashes.flashed(i, c, now, flashFor) }
		out = append(out, laneView{
			index: i, snap: s, rows: demoRows(s, hidden, flashed), live: liveContenders(s),
			style: p.laneStyle(s.Kind), selected: p.target < 0 || p.target == i,
		})
	}
	return out
}

// demoFlashFor is how long a notified contender flashes: long enough to
// be seen at a frame or two, short enough that a chain, which wakes one
// waiter per release, does not light up everyone at short hold times.
func demoFlashFor(hold time.Duration) time.Duration {
	return min(max(hold*2, demoFrame+10*time.Millisecond), 400*time.Millisecond)
}

func (p *demoPage) laneStyle(k demo.Kind) lipgloss.Style {
	s := p.shared.Styles
	switch k {
	case demo.Herd:
		return s.LaneHerd
	case demo.Spin:
		return s.LaneSpin
	case demo.Redis:
		return s.LaneRedis
	}
	return s.LaneChain
}

// header is the page's first line: the shared settings, shorter when
// the screen is narrow.
func (p *demoPage) header(lanes []laneView) string {
	st := p.shared.Styles
	n := lanes[0].live
	for _, l := range lanes {
		n = min(n, l.live)
	}
	run := st.Info.Render("● running")
	if p.paused() {
		run = st.Warning.Render("❚❚ paused")
	}
	target := p.targetName()
	parts := []string{
		st.Title.Render(fmt.Sprintf("%d contenders per lane", n)),
		st.Dim.Render("hold ") + st.HeaderValue.Render(fmtDuration(p.hold())),
		st.Dim.Render("k/K/z act on ") + st.HeaderValue.Render(target),
		run,
	}
	line := strings.Join(parts, st.Dim.Render("  ·  "))
	if lipgloss.Width(line) <= p.width {
		return line
	}
	if p.target >= 0 && p.target < len(p.lanes) {
		target = p.laneName(p.target)
	} else {
		target = "all"
	}
	parts = []string{
		st.Title.Render(fmt.Sprintf("%d/lane", n)),
		st.Dim.Render("hold ") + st.HeaderValue.Render(fmtDuration(p.hold())),
		st.Dim.Render("k/K/z: ") + st.HeaderValue.Render(target),
		run,
	}
	return strings.Join(parts, st.Dim.Render(" · "))
}

// columns lays the lanes side by side, every section at the same height
// in each column so the counters line up across lanes.
func (p *demoPage) columns(lanes []laneView, cw int) []string {
	st := p.shared.Styles
	wide := cw >= demoWideColumn
	maxRows := 1
	why, how := 0, 0
	for _, l := range lanes {
		maxRows = max(maxRows, len(l.rows))
		why = max(why, len(demoWrap(laneWhy(l.snap.Kind, l.live), cw)))
		_, h := laneHeadline(l.snap.Kind)
		how = max(how, len(demoWrap(h, cw)))
	}
	legend := p.legend()
	// Fixed: header, title, the lock line, two rules and the counters;
	// the contenders come next (the sparkline gives way to them when space
	// is short); then, if there is room, the extras in this order.
	fixed := 1 + 1 + 1 + 2 + demoCounters
	room := p.height - fixed
	spark := room > maxRows
	if spark {
		room--
	}
	rows := min(maxRows, max(room, 1))
	spare := room - rows
	take := func(n int) bool {
		if spare >= n {
			spare -= n
			return true
		}
		return false
	}
	// Each text shows whole or not at all: a sentence cut off tells less
	// than none.
	showLesson := take(2)
	showHow := take(how)
	showLegend := take(len(legend))
	showWhy := why > 0 && take(why+1)
	showGap := take(1)
	showTip := p.hold() < demoTipBelow && take(1)

	cols := make([][]string, len(lanes))
	for i, l := range lanes {
		var c []string
		c = append(c, p.laneTitle(l, cw))
		if showHow {
			_, h := laneHeadline(l.snap.Kind)
			c = append(c, padLines(demoWrap(h, cw), how, st.Dim)...)
		}
		if showWhy {
			c = append(c, padLines(demoWrap(laneWhy(l.snap.Kind, l.live), cw), why, lipgloss.NewStyle())...)
			c = append(c, "")
		}
		rule := st.Border.Render(strings.Repeat("─", cw))
		c = append(c, p.lockLine(l, cw))
		c = append(c, rule)
		c = append(c, p.contenderLines(l, cw, rows)...)
		c = append(c, rule)
		c = append(c, p.counterLines(l, lanes, cw, wide, spark)...)
		cols[i] = c
	}
	out := []string{p.header(lanes)}
	if showLegend {
		out = append(out, legend...)
	}
	if showGap {
		out = append(out, "")
	}
	height := len(cols[0])
	sep := st.Border.Render(demoColumnSep)
	for r := 0; r < height; r++ {
		var b strings.Builder
		for i, c := range cols {
			if i > 0 {
				b.WriteString(sep)
			}
			line := ""
			if r < len(c) {
				line = c[r]
			}
			b.WriteString(widget.Fit(line, cw))
		}
		out = append(out, b.String())
	}
	if showLesson {
		out = append(out, "", p.lesson(lanes))
	}
	if showTip {
		out = append(out, st.Dim.Render("H holds the lock longer and slows every lane down, so each handoff and each ✱ can be followed."))
	}
	return out
}

// demoTipBelow is the hold time under which the page suggests slowing down.
const demoTipBelow = 200 * time.Millisecond

// padLines gives lines exactly n entries (blank ones after), styled.
func padLines(lines []string, n int, style lipgloss.Style) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(lines) {
			out[i] = style.Render(lines[i])
		}
	}
	return out
}

// legend says what the glyphs mean, in as many lines as the page's width
// needs, an item never split.
func (p *demoPage) legend() []string {
	st := p.shared.Styles
	items := []string{
		st.Holder.Render("●") + st.Dim.Render(" holds"),
		st.Waiter.Render("○") + st.Dim.Render(" waits (arrow: the node it watches)"),
		st.Waiter.Render("↻") + st.Dim.Render(" retries create"),
		st.Flash.Render("✱") + st.Dim.Render(" a watch just fired"),
		st.Error.Render("✗") + st.Dim.Render(" crashed, lock kept to expiry"),
		st.Warning.Render("‖") + st.Dim.Render(" stalled"),
	}
	var lines []string
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = it
		case lipgloss.Width(line)+2+lipgloss.Width(it) <= p.width:
			line += "  " + it
		default:
			lines = append(lines, line)
			line = it
		}
	}
	return append(lines, line)
}

// laneTitle is "▸ CHAIN  12 contenders", marked when k and K act on it.
func (p *demoPage) laneTitle(l laneView, cw int) string {
	name, _ := laneHeadline(l.snap.Kind)
	if l.snap.Name != "" && name == "" {
		name = strings.ToUpper(l.snap.Name)
	}
	mark := "  "
	if l.selected && p.target >= 0 {
		mark = "▸ "
	}
	count := fmt.Sprintf("%d contenders", l.live)
	if cw < demoWideColumn {
		count = fmt.Sprintf("%d", l.live)
	}
	left := mark + l.style.Render(name)
	gap := cw - lipgloss.Width(left) - lipgloss.Width(count)
	if gap < 1 {
		return left + " " + p.shared.Styles.Dim.Render(count)
	}
	return left + strings.Repeat(" ", gap) + p.shared.Styles.Dim.Render(count)
}

// stacked draws each lane in a few lines, one lane under the other, for
// screens too narrow for columns.
func (p *demoPage) stacked(lanes []laneView) []string {
	st := p.shared.Styles
	out := []string{p.header(lanes)}
	for _, l := range lanes {
		c := l.snap.Counters
		name, _ := laneHeadline(l.snap.Kind)
		mark := "  "
		if l.selected && p.target >= 0 {
			mark = "▸ "
		}
		figure := func(label, value string, vs lipgloss.Style) string {
			return st.Dim.Render(label+" ") + vs.Render(value)
		}
		title := mark + l.style.Render(name) + st.Dim.Render(fmt.Sprintf(" %d  ", l.live)) + l.style.Render(demoRate(l.snap.History)+"/s") + "   "
		title += p.lockLine(l, max(p.width-lipgloss.Width(title), 0))
		// A blank line between lanes, when four of them still fit.
		if p.height >= 1+len(lanes)*6 {
			out = append(out, "")
		}
		out = append(out, title,
			"  "+p.strip(l),
			"  "+figure("notif/release", fmt.Sprintf("%.2f", c.NotificationsPerRelease), l.style)+"   "+
				figure("reads/acq", fmt.Sprintf("%.2f", c.ReadsPerAcquisition), st.HeaderValue)+"   "+
				figure("creates/acq", fmt.Sprintf("%.2f", c.CreatesPerAcquisition), st.HeaderValue),
			"  "+figure("p50/p99", fmt.Sprintf("%s/%s ms", fmtMs(c.HandoffP50Ms), fmtMs(c.HandoffP99Ms)), st.HeaderValue)+"   "+
				figure("violations", fmt.Sprintf("%d", c.Violations), violationStyle(st, c.Violations))+"   "+
				figure("unsafe/refused", fmt.Sprintf("%d/%d", c.UnsafeWrites, c.StaleRejected), violationStyle(st, c.UnsafeWrites)))
		// The failure figures, when every lane still fits with them.
		if p.height >= 1+len(lanes)*5 {
			out = append(out, "  "+figure("renewals", renewals(l.snap), st.HeaderValue)+"   "+figure("crash recovery", recovery(c), st.HeaderValue))
		}
	}
	return out
}

// lockLine says where a lane's lock lives: a ZooKeeper lane's directory
// and session timeout; the Redis lane's key, whose token holds it (the
// contender), and its lease counting down, as last read from the server.
func (p *demoPage) lockLine(l laneView, cw int) string {
	st := p.shared.Styles
	s := l.snap
	if s.Kind != demo.Redis {
		return widget.Clip(st.Dim.Render("session timeout ")+st.HeaderValue.Render(fmtDuration(s.Session)), cw)
	}
	k := s.Key
	if k == nil {
		return widget.Clip(st.Dim.Render("key "+s.Dir), cw)
	}
	var state string
	switch {
	case k.Err != "":
		state = st.Error.Render(k.Err)
	case k.Token == "":
		state = st.Dim.Render("key free")
	default:
		owner := "?"
		if k.Owner > 0 {
			owner = fmt.Sprintf("#%d", k.Owner)
		}
		state = st.Dim.Render("key: ") + st.Holder.Render(owner) + st.Dim.Render(" ttl ") +
			st.HeaderValue.Render(fmt.Sprintf("%.1fs", k.Remaining(p.shared.Now()).Seconds())) +
			st.Dim.Render("/"+fmtDuration(s.Lease))
	}
	// The key's name when it fits whole: the lock line says where the
	// lock is, and a cut name says nothing.
	if named := state + st.Dim.Render("  "+k.Key); lipgloss.Width(named) <= cw {
		return named
	}
	return widget.Clip(state, cw)
}
