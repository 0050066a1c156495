package tui

import (
	"errors"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/internal/netfail"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// TestHeaderNamesSilentMembers: a member that does not answer srvr is
// named in the header, whole, before the counters, which give way to it;
// where the line is short, the connect string gives way to the member
// connected to.
func TestHeaderNamesSilentMembers(t *testing.T) {
	t.Parallel()
	const connect = "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183"
	h := header{connect: connect, server: "127.0.0.1:2182", session: 0x30000446541000e, state: zkview.Connected}
	silent := &netfail.Error{Text: "no answer within 2s", NoAnswer: true, Err: errors.New("i/o timeout")}
	h.seeMembers("127.0.0.1:2182", []introspect.MemberStatus{
		{Addr: "127.0.0.1:2181", Stats: &introspect.ServerStats{Mode: introspect.ModeLeader, Zxid: 0x100000020, NodeCount: 40}},
		{Addr: "127.0.0.1:2182", Stats: &introspect.ServerStats{Mode: introspect.ModeFollower, Zxid: 0x100000020, NodeCount: 40}},
		{Addr: "127.0.0.1:2183", Err: silent},
	})
	st := theme.Plain()
	const named = "⚠ member 127.0.0.1:2183: no answer"
	for _, tc := range []struct {
		width       int
		connectShow bool
	}{{200, true}, {120, false}} {
		line := h.view(st, tc.width)
		if !strings.Contains(line, named) || lipgloss.Width(line) > tc.width {
			t.Errorf("width %d: %q does not name the silent member whole", tc.width, line)
		}
		if strings.Contains(line, connect) != tc.connectShow || !strings.Contains(line, "127.0.0.1:2182 (follower)") {
			t.Errorf("width %d: %q: connect string shown %v, want %v, and the member connected to", tc.width, line, !tc.connectShow, tc.connectShow)
		}
	}
	h.readOnly = true // the badge takes room too: the session's id gives way
	if line := h.view(st, 120); !strings.Contains(line, named) || !strings.Contains(line, "READ-ONLY") || strings.Contains(line, "0x") {
		t.Errorf("read-only at 120: %q", line)
	}
	h.readOnly = false
	h.seeMembers("127.0.0.1:2182", []introspect.MemberStatus{
		{Addr: "127.0.0.1:2182", Stats: &introspect.ServerStats{Mode: introspect.ModeFollower}},
	})
	if line := h.view(st, 200); strings.Contains(line, "⚠") {
		t.Errorf("every member answers, yet: %q", line)
	}
}
