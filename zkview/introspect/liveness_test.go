package introspect

import (
	"testing"
	"time"
)

// TestLastHeard: a session's last answer is read against the freshest
// answer of the same member, never against another member's clock or
// anyone's wall clock. The two members' clocks here are hours apart.
func TestLastHeard(t *testing.T) {
	read := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	touched := read.Add(-40 * time.Millisecond)
	in := &Snapshot{
		Members: []Member{
			{Addr: "zk1:2181", Mode: ModeFollower, ConnectionsAt: read, Conf: map[string]string{"tickTime": "2000"},
				Connections: []Connection{
					{SessionID: 0x1, Client: "10.0.0.1:1", LastResponse: 5_000_000, Timeout: 30 * time.Second}, // zkx's own, touched
					{SessionID: 0x2, Client: "10.0.0.2:1", LastResponse: 4_975_000, Timeout: 30 * time.Second}, // 25 s before it
				}},
			{Addr: "zk2:2181", Mode: ModeLeader, ConnectionsAt: read,
				Connections: []Connection{
					{SessionID: 0x3, Client: "10.0.0.3:1", LastResponse: 90_000_000_000, Timeout: 9 * time.Second},
					{SessionID: 0x4, Client: "10.0.0.4:1", LastResponse: 89_999_997_000, Timeout: 9 * time.Second},
					{Client: "10.0.0.9:1"}, // a connection without a session
				}},
		},
		touch: touchRecord{sessions: []int64{0x1}, at: touched},
	}
	in.Sessions = buildSessions(in)
	tables := in.Tables()
	for _, tc := range []struct {
		id      int64
		heard   time.Time
		atLeast bool
		expires time.Time
	}{
		{0x1, touched, false, touched.Add(34 * time.Second)},                       // + timeout + 2 ticks of zk1's conf
		{0x2, touched.Add(-25 * time.Second), false, touched.Add(9 * time.Second)}, // heard 25 s before the touch
		{0x3, read, true, read.Add(13 * time.Second)},                              // zk2's freshest answer, at the read; its tick from zk1's conf
		{0x4, read.Add(-3 * time.Second), true, read.Add(10 * time.Second)},
	} {
		l, ok := tables.LastHeard(tc.id)
		if !ok || !l.Heard.Equal(tc.heard) || l.AtLeast != tc.atLeast || !l.ExpiresBy.Equal(tc.expires) {
			t.Errorf("session 0x%x: %+v %v, want heard %v (at least %v), expires by %v", tc.id, l, ok, tc.heard, tc.atLeast, tc.expires)
		}
	}
	if l, ok := tables.LastHeard(0x2); !l.Silent(touched) || l.Silent(touched.Add(-15*time.Second)) {
		t.Errorf("session 0x2 heard 25 s ago of a 30 s timeout is silent; 10 s after its answer it is not: %+v %v", l, ok)
	}
	if _, ok := tables.LastHeard(0x99); ok {
		t.Error("an unknown session was heard from")
	}
	var none *Snapshot
	if _, ok := none.Tables().LastHeard(0x1); ok {
		t.Error("no tables, yet a session was heard from")
	}
}
