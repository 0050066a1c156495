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
	// troubled are the members that did not answer srvr, or do not serve,
	// at the last ask: "127.0.0.1:2183: no answer".
	troubled []string
}

// seeMembers takes every member's answer to srvr: addr's stats for the
// mode and znode count, and the members that gave none.
func (h *header) seeMembers(addr string, members []introspect.MemberStatus) {
	h.troubled = nil
	for _, m := range members {
		if m.Addr == addr {
			h.stats, h.statsErr = m.Stats, m.Err
			if m.Stats != nil {
				h.seeZxid(m.Stats.Zxid)
			}
		}
		if t := m.Brief(); t != "" {
			h.troubled = append(h.troubled, display.Line(m.Addr)+": "+display.Line(t))
		}
	}
}

// seeSnapshot takes the members a page's introspection found silent or
// not serving (nil: a failed ask, which says nothing of them).
func (h *header) seeSnapshot(in *introspect.Snapshot) {
	if in == nil {
		return
	}
	h.troubled = nil
	for _, m := range in.Members {
		switch {
		case m.Mode == introspect.ModeUnreachable && m.NoAnswer:
			h.troubled = append(h.troubled, display.Line(m.Addr)+": no answer")
		case m.Mode == introspect.ModeUnreachable:
			h.troubled = append(h.troubled, display.Line(m.Addr)+": "+display.Line(firstLine(m.Error)))
		case m.Mode == introspect.ModeNotServing:
			h.troubled = append(h.troubled, display.Line(m.Addr)+": not serving")
		}
	}
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
	parts = append(parts, h.where(st, true))
	parts = append(parts, h.sessionPart(st, true))
	keep := len(parts) // the parts cut only when they alone do not fit
	if len(h.troubled) > 0 {
		// A member that does not answer is named before the counters,
		// which give way to it.
		parts = append(parts, st.Error.Render("⚠ member "+strings.Join(h.troubled, ", ")))
		keep++
	}
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
	// be cut mid-word; the first ones (where, the session, the members
	// that do not answer) are cut only if they alone do not fit, and then
	// the connect string gives way to the member connected to, and the
	// session's id to its state alone, so that the members that do not
	// answer stay named.
	line := strings.Join(parts, label("  │  "))
	for len(parts) > keep && lipgloss.Width(line) > room {
		parts = parts[:len(parts)-1]
		line = strings.Join(parts, label("  │  "))
	}
	if lipgloss.Width(line) > room && h.server != "" && len(h.troubled) > 0 {
		parts[1] = h.where(st, false)
		line = strings.Join(parts, label("  │  "))
	}
	if lipgloss.Width(line) > room && len(h.troubled) > 0 {
		parts[2] = h.sessionPart(st, false)
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

// sessionPart says how the session is: its id (when withID) and state.
func (h *header) sessionPart(st theme.Styles, withID bool) string {
	label, value := st.HeaderLabel.Render, st.HeaderValue.Render
	sess := label("session ")
	if h.session != 0 && withID {
		sess += value(display.Hex(h.session)) + " "
	}
	sess += stateStyle(st, h.state).Render(h.state.String())
	if h.reconnect > 0 {
		sess += label(fmt.Sprintf(" (%d new since start)", h.reconnect))
	}
	return sess
}

// where says where the explorer is connected: the connect string (with
// its context) when full, else only the member connected to; and that
// member's mode.
func (h *header) where(st theme.Styles, full bool) string {
	label, value := st.HeaderLabel.Render, st.HeaderValue.Render
	var where string
	switch {
	case full || h.server == "":
		where = value(display.Line(h.connect))
		if h.server != "" && h.server != h.connect {
			where += label(" → ") + value(display.Line(h.server))
		}
	default:
		where = label("→ ") + value(display.Line(h.server))
	}
	if h.context != "" {
		where = label("context ") + value(display.Line(h.context)) + label(": ") + where
	}
	if h.stats != nil {
		mode := display.Line(string(h.stats.Mode))
		if h.stats.ReadOnly && mode != string(introspect.ModeReadOnly) {
			mode += ", read-only"
		}
		where += label(" (") + value(mode) + label(")")
	} else if h.statsErr != nil {
		where += label(" (mode unknown)")
	}
	return where
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
