package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
)

// demoCounters is how many lines the counters take, the sparkline aside.
const demoCounters = 9

// counterLines are the lane's measured figures, one per line.
func (p *demoPage) counterLines(l laneView, lanes []laneView, cw int, wide, spark bool) []string {
	st := p.shared.Styles
	c := l.snap.Counters
	rate := demoRate(l.snap.History)
	label := func(long, short string) string {
		if wide {
			return long
		}
		return short
	}
	row := func(name, value string, vs lipgloss.Style) string {
		gap := cw - lipgloss.Width(name) - lipgloss.Width(value)
		if gap < 1 {
			return widget.Clip(name+" "+value, cw)
		}
		return st.Dim.Render(name) + strings.Repeat(" ", gap) + vs.Render(value)
	}
	plain := st.HeaderValue
	viol := violationStyle(st, c.Violations)
	peak := 1.0
	for _, o := range lanes {
		for _, v := range o.snap.History {
			peak = max(peak, v)
		}
	}
	// "acquisitions   39.0/s   1,234": the rate, then the running total.
	name, total := label("acquisitions", "acq"), display.Count(int64(c.Acquisitions))
	acq := row(name, total, plain)
	if fill := cw - lipgloss.Width(name) - len(total) - len(rate) - 2; fill >= 2 {
		acq = st.Dim.Render(name) + strings.Repeat(" ", fill-2) + l.style.Render(rate+"/s") + "  " + plain.Render(total)
	}
	out := []string{acq}
	if spark {
		out = append(out, l.style.Render(demoSpark(l.snap.History, peak, cw)))
	}
	return append(out,
		row(label("notifications/release", "notif/release"), fmt.Sprintf("%.2f", c.NotificationsPerRelease), l.style),
		row(label("reads/acquisition", "reads/acq"), fmt.Sprintf("%.2f", c.ReadsPerAcquisition), plain),
		row(label("creates/acquisition", "creates/acq"), fmt.Sprintf("%.2f", c.CreatesPerAcquisition), plain),
		row(label("handoff p50 / p99", "p50/p99"), fmt.Sprintf("%s / %s ms", fmtMs(c.HandoffP50Ms), fmtMs(c.HandoffP99Ms)), plain),
		row(label("lease renewals", "renewals"), renewals(l.snap), plain),
		row("violations", fmt.Sprintf("%d", c.Violations), viol),
		row(label("writes unsafe / refused", "unsafe/refused"), fmt.Sprintf("%d / %d", c.UnsafeWrites, c.StaleRejected), violationStyle(st, c.UnsafeWrites)),
		row(label("crash recovery p50/p99", "recovery"), recovery(c), plain),
	)
}

// lesson says in one line what the counters show, from the live figures.
func (p *demoPage) lesson(lanes []laneView) string {
	st := p.shared.Styles
	var parts []string
	for _, l := range lanes {
		c := l.snap.Counters
		s := l.style.Render(l.snap.Name) + fmt.Sprintf(" %.1f", c.NotificationsPerRelease)
		switch l.snap.Kind {
		case demo.Spin:
			s += fmt.Sprintf(" (but %.1f creates/lock)", c.CreatesPerAcquisition)
		case demo.Redis:
			s += fmt.Sprintf(" (but %.1f SETs/lock)", c.CreatesPerAcquisition)
		}
		parts = append(parts, s)
	}
	return st.Title.Render("Waiters woken per release: ") + strings.Join(parts, st.Dim.Render("  ·  "))
}

// renewals is the Redis watchdog's count; a ZooKeeper session is kept by
// the client's pings instead.
func renewals(s demo.LaneSnapshot) string {
	if s.Kind != demo.Redis {
		return "none (pings)"
	}
	return display.Count(int64(s.Counters.Renewals))
}

// recovery is the crash recovery figures, once there are any.
func recovery(c demo.Counters) string {
	if c.Crashes == 0 {
		return "no crash"
	}
	if c.RecoveryP50Ms == 0 {
		return fmt.Sprintf("%d crashed…", c.Crashes)
	}
	return fmt.Sprintf("%s / %s s", fmtSeconds(c.RecoveryP50Ms), fmtSeconds(c.RecoveryP99Ms))
}

func fmtSeconds(ms float64) string { return fmt.Sprintf("%.1f", ms/1000) }

// violationStyle shows 0 as good news and anything else as an error.
func violationStyle(st theme.Styles, n uint64) lipgloss.Style {
	if n > 0 {
		return st.Error
	}
	return st.Info
}

// demoRate is the acquisition rate over the last few samples, steadier
// than one second's when holds are long.
func demoRate(history []float64) string {
	if len(history) == 0 {
		return "…"
	}
	last := history[max(len(history)-3, 0):]
	sum := 0.0
	for _, v := range last {
		sum += v
	}
	return fmt.Sprintf("%.1f", sum/float64(len(last)))
}

// demoSpark draws the last width values as a sparkline, scaled to peak
// (shared by the lanes, so their heights compare).
func demoSpark(values []float64, peak float64, width int) string {
	const bars = "▁▂▃▄▅▆▇█"
	levels := []rune(bars)
	if width <= 0 {
		return ""
	}
	if len(values) > width {
		values = values[len(values)-width:]
	}
	var b strings.Builder
	for _, v := range values {
		if v <= 0 || peak <= 0 {
			b.WriteRune(' ')
			continue
		}
		i := int(v / peak * float64(len(levels)-1))
		b.WriteRune(levels[min(max(i, 0), len(levels)-1)])
	}
	return b.String()
}

// demoWrap breaks text into lines of at most width cells at spaces.
func demoWrap(text string, width int) []string {
	if width <= 0 {
		return nil
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case lipgloss.Width(line)+1+lipgloss.Width(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func fmtMs(ms float64) string {
	if ms >= 100 {
		return fmt.Sprintf("%.0f", ms)
	}
	return fmt.Sprintf("%.1f", ms)
}

func fmtDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}
