package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// header is the top line: where we are connected, as whom, and how the
// session is.
type header struct {
	connect   string // the connect string as given
	context   string // the named context it came from, "" for none
	server    string // the member we are connected to
	stats     *introspect.ServerStats
	statsErr  error
	session   int64
	state     zkview.SessionState
	lastZxid  int64 // the highest zxid seen: srvr's, or any stat's since
	readOnly  bool
	reconnect int // new sessions after expiry, shown so a flap is visible
}

func (h *header) seeZxid(z int64) {
	if z > h.lastZxid {
		h.lastZxid = z
	}
}

func (h *header) view(st theme.Styles, width int) string {
	label, value := st.HeaderLabel.Render, st.HeaderValue.Render
	var parts []string
	parts = append(parts, st.Title.Render("zkx"))
	where := value(h.connect)
	if h.context != "" {
		where = label("context ") + value(h.context) + label(": ") + where
	}
	if h.server != "" && h.server != h.connect {
		where += label(" → ") + value(h.server)
	}
	if h.stats != nil {
		mode := string(h.stats.Mode)
		if h.stats.ReadOnly && mode != string(introspect.ModeReadOnly) {
			mode += ", read-only"
		}
		where += label(" (") + value(mode) + label(")")
	} else if h.statsErr != nil {
		where += label(" (mode unknown)")
	}
	parts = append(parts, where)
	sess := label("session ")
	if h.session != 0 {
		sess += value(display.Hex(h.session)) + " "
	}
	sess += stateStyle(st, h.state).Render(h.state.String())
	if h.reconnect > 0 {
		sess += label(fmt.Sprintf(" (%d new since start)", h.reconnect))
	}
	parts = append(parts, sess)
	if h.lastZxid > 0 {
		parts = append(parts, label("zxid ")+value(display.Hex(h.lastZxid)))
	}
	if h.stats != nil {
		parts = append(parts, label("znodes ")+value(display.Count(h.stats.NodeCount)))
	}
	room := width
	badge := ""
	if h.readOnly {
		// The badge always shows: the rest gives way to it.
		badge = st.Badge.Render("READ-ONLY")
		room = max(width-lipgloss.Width(badge)-1, 0)
	}
	// Whole parts go from the end (znodes, then the zxid) rather than
	// be cut mid-word; the first three are cut only if they alone do not fit.
	line := strings.Join(parts, label("  │  "))
	for len(parts) > 3 && lipgloss.Width(line) > room {
		parts = parts[:len(parts)-1]
		line = strings.Join(parts, label("  │  "))
	}
	if h.readOnly {
		line = widget.Fit(line, room)
		gap := width - lipgloss.Width(line) - lipgloss.Width(badge)
		if gap < 1 {
			gap = 1
		}
		line += strings.Repeat(" ", gap) + badge
	}
	return widget.Fit(line, width)
}

func stateStyle(st theme.Styles, s zkview.SessionState) lipgloss.Style {
	switch s {
	case zkview.Connected:
		return st.Connected
	case zkview.Suspended:
		return st.Suspended
	case zkview.Expired, zkview.Closed:
		return st.Expired
	}
	return st.Connecting
}
