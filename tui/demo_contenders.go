package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/tui/widget"
)

// contenderLines draws exactly n lines of contenders; when they do not
// fit, the last line says how many more wait.
func (p *demoPage) contenderLines(l laneView, cw, n int) []string {
	rows := l.rows
	shown := len(rows)
	if shown > n {
		shown = max(n-1, 0)
	}
	gutters := demoGutters(l.snap.Kind, rows[:shown])
	out := make([]string, 0, n)
	for i := 0; i < shown; i++ {
		out = append(out, p.contenderLine(l, rows[i], gutters[i], cw))
	}
	if shown < len(rows) && len(out) < n {
		out = append(out, p.shared.Styles.Dim.Render(fmt.Sprintf("%s… %d more", strings.Repeat(" ", demoGutter), len(rows)-shown)))
	}
	for len(out) < n {
		out = append(out, "")
	}
	return out
}

// demoGutters draws the watch arrows left of the rows: in a chain each
// waiter points at the row just above it; in a herd every waiter is wired
// to the holder at the top; spin has no watches.
func demoGutters(k demo.Kind, rows []demoRow) []string {
	g := make([]string, len(rows))
	for i := range g {
		g[i] = "  "
	}
	switch k {
	case demo.Herd:
		last := -1
		for i, r := range rows {
			if r.topWatch {
				last = i
			}
		}
		if last < 0 {
			return g
		}
		g[0] = "╭▶"
		for i := 1; i <= last; i++ {
			switch {
			case i == last:
				g[i] = "╰─"
			case rows[i].topWatch:
				g[i] = "├─"
			default:
				g[i] = "│ "
			}
		}
	case demo.Chain:
		for i := 1; i < len(rows); i++ {
			if rows[i].contender.State == demo.WaitingOn && len(rows[i].contender.Watching) > 0 && rows[i].contender.Watching[0] == rows[i-1].contender.Node {
				g[i] = " ↑"
			}
		}
	}
	return g
}

// contenderLine is one contender: arrow, state, what it waits on, its
// node, and a flash when a notification just reached it.
func (p *demoPage) contenderLine(l laneView, r demoRow, gutter string, cw int) string {
	st := p.shared.Styles
	glyph, desc, style := "·", "working (not in line)", st.Dim
	switch r.contender.State {
	case demo.Holding:
		glyph, desc, style = "●", "holding", st.Holder
	case demo.WaitingOn:
		glyph, desc, style = "○", "waits on "+r.waitsOn, st.Waiter
		if r.waitsOn == "" {
			desc = "waiting"
		}
	case demo.Queued:
		glyph, desc, style = "◌", "in line", st.Waiter
	case demo.Polling:
		glyph, desc, style = "↻", "NodeExists, retrying", st.Waiter
		if l.snap.Kind == demo.Redis {
			desc = "SET NX refused, retrying"
		}
	case demo.Stalled:
		glyph, desc, style = "‖", fmt.Sprintf("stalled %.1fs", p.shared.Now().Sub(r.contender.StalledAt).Seconds()), st.Warning
	case demo.Crashed:
		glyph, desc, style = "✗", "crashed", st.Error
		if g, ok := p.ghosts.crashed[ghostKey{l.index, r.contender.ID}]; ok {
			// Counting up to the session's expiry, when the node goes.
			desc = fmt.Sprintf("crashed %.1fs ago", p.shared.Now().Sub(g.seen).Seconds())
		}
	}
	right := ""
	if r.seq >= 0 || (r.contender.Node != "" && (r.contender.State == demo.Holding || r.contender.State == demo.Stalled || r.contender.State == demo.Crashed)) {
		right = shortNode(r.contender.Node)
	}
	if cw < demoWideColumn {
		right = ""
		if r.contender.State == demo.Polling {
			desc = "retrying"
		}
	}
	if r.flash {
		right = strings.TrimSpace(right + " ✱")
	}
	left := fmt.Sprintf("%s%s %3s %s", gutter, glyph, fmt.Sprintf("#%d", r.contender.ID), desc)
	if short, ok := demoShortDesc[desc]; ok && lipgloss.Width(left)+lipgloss.Width(right) >= cw {
		left = fmt.Sprintf("%s%s %3s %s", gutter, glyph, fmt.Sprintf("#%d", r.contender.ID), short)
	}
	gap := cw - lipgloss.Width(left) - lipgloss.Width(right)
	var line string
	if gap < 1 {
		line = widget.Clip(left, cw)
	} else {
		line = left + strings.Repeat(" ", gap) + right
	}
	line = widget.Fit(line, cw)
	arrow := l.style.Render(line[:len(gutter)])
	rest := line[len(gutter):]
	if r.flash {
		return arrow + st.Flash.Render(style.Render(rest))
	}
	return arrow + style.Render(rest)
}

// demoShortDesc are the short forms of the states that do not fit a narrow
// lane whole.
var demoShortDesc = map[string]string{
	"working (not in line)":    "working",
	"NodeExists, retrying":     "retrying",
	"SET NX refused, retrying": "retrying",
}

// strip is a lane's contenders as one glyph each, in queue order.
func (p *demoPage) strip(l laneView) string {
	st := p.shared.Styles
	var b strings.Builder
	for _, r := range l.rows {
		switch {
		case r.flash:
			b.WriteString(st.Flash.Render("✱"))
		case r.contender.State == demo.Holding:
			b.WriteString(st.Holder.Render("●"))
		case r.contender.State == demo.Crashed:
			b.WriteString(st.Error.Render("✗"))
		case r.contender.State == demo.Stalled:
			b.WriteString(st.Warning.Render("‖"))
		case r.contender.State == demo.WaitingOn || r.contender.State == demo.Queued:
			b.WriteString(st.Waiter.Render("○"))
		case r.contender.State == demo.Polling:
			b.WriteString(st.Waiter.Render("↻"))
		default:
			b.WriteString(st.Dim.Render("·"))
		}
	}
	return b.String()
}
