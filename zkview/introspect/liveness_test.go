package introspect

import (
	"testing"
	"time"
)

// TestLastHeard: a session's last answer is read against the freshest
// answer of the same member, in the same table, never against another
// member's clock or anyone's wall clock. The two members' clocks here are
// hours apart.
func TestLastHeard(t *testing.T) {
	t.Parallel()
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
		{0x1, read, false, read.Add(34 * time.Second)},                       // + timeout + 2 ticks of zk1's conf
		{0x2, read.Add(-25 * time.Second), false, read.Add(9 * time.Second)}, // 25 s before zk1's freshest answer
		{0x3, read, true, read.Add(13 * time.Second)},                        // zk2's freshest answer; its tick from zk1's conf
		{0x4, read.Add(-3 * time.Second), true, read.Add(10 * time.Second)},
	} {
		l, ok := tables.LastHeard(tc.id)
		if !ok || !l.Heard.Equal(tc.heard) || l.AtLeast != tc.atLeast || !l.ExpiresBy.Equal(tc.expires) || l.ExpiresByApprox {
			t.Errorf("session 0x%x: %+v %v, want heard %v (at least %v), expires by %v", tc.id, l, ok, tc.heard, tc.atLeast, tc.expires)
		}
	}
	l, _ := tables.LastHeard(0x2)
	if got := l.Silence(read.Add(time.Hour)); got != 25*time.Second {
		t.Errorf("session 0x2: silence %v, want 25s whatever the clock says now", got)
	}
	if !l.Silent(read) {
		t.Errorf("session 0x2 heard 25 s before the read of a 30 s timeout is silent: %+v", l)
	}
	if _, ok := tables.LastHeard(0x99); ok {
		t.Error("an unknown session was heard from")
	}
	var none *Snapshot
	if _, ok := none.Tables().LastHeard(0x1); ok {
		t.Error("no tables, yet a session was heard from")
	}
}

// TestLastHeardSlowMember: the table of the member zkx is connected to
// arrives 3 s after zkx's own session was touched (zkx waited on a
// member that did not answer first), and zkx's session was answered
// again meanwhile (the scan reads through it). A writer that talks to
// that member every half second was last answered 200 ms before the
// member's freshest answer: its silence is 200 ms, whatever the wait —
// not 3.2 s — and, the touch being old, only a lower bound.
func TestLastHeardSlowMember(t *testing.T) {
	t.Parallel()
	touched := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	arrived := touched.Add(3 * time.Second)
	in := &Snapshot{
		Members: []Member{
			{Addr: "zk1:2181", Mode: ModeFollower, ConnectionsAt: arrived, Conf: map[string]string{"tickTime": "2000"},
				Connections: []Connection{
					{SessionID: 0x1, LastResponse: 7_003_000, Timeout: 10 * time.Second}, // zkx's own: touched at 7_000_000, read through since
					{SessionID: 0x2, LastResponse: 7_002_800, Timeout: 10 * time.Second}, // the busy writer
				}},
			{Addr: "zk2:2181", Mode: ModeUnreachable, NoAnswer: true, Error: "no answer within 2s"},
		},
		touch: touchRecord{sessions: []int64{0x1}, at: touched},
	}
	in.Sessions = buildSessions(in)
	l, ok := in.Tables().LastHeard(0x2)
	if !ok {
		t.Fatal("the writer was not heard from")
	}
	if got := l.Silence(arrived.Add(time.Minute)); got != 200*time.Millisecond {
		t.Errorf("writer's silence %v, want 200ms: the wait on the other member must not stretch it", got)
	}
	if l.Silent(arrived) || !l.AtLeast {
		t.Errorf("writer: silent %v, at least %v; want heard, and a lower bound (the touch is 3 s old)", l.Silent(arrived), l.AtLeast)
	}
	// heard + 10 s + 2 ticks = 12:00:16.8, rounded up to the second.
	if want := arrived.Add(14 * time.Second); !l.ExpiresBy.Equal(want) {
		t.Errorf("writer expires by %v, want %v", l.ExpiresBy, want)
	}
}

// TestExpiresBy: the bound is the last answer plus the timeout plus two
// ticks — ZooKeeper rounds an expiry up to the next tick
// (ExpiryQueue.roundToNextInterval: at most one tick), a follower's
// touches reach the leader at its next ping (half a tick), and half a
// tick is left for the leader's own pace — and it is never before
// ZooKeeper's own rounding of the latest touch. Without the tick, it is
// the timeout alone, and says it is about.
func TestExpiresBy(t *testing.T) {
	t.Parallel()
	heard := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	at, about := expiresBy(heard, 10*time.Second, 2*time.Second)
	if !at.Equal(heard.Add(14*time.Second)) || about {
		t.Errorf("expiresBy(10s, tick 2s) = %v %v", at, about)
	}
	at, about = expiresBy(heard, 10*time.Second, 0)
	if !at.Equal(heard.Add(10*time.Second)) || !about {
		t.Errorf("expiresBy(10s, tick unknown) = %v %v, want heard + 10s, about", at, about)
	}
	if at, _ := expiresBy(heard.Add(100*time.Millisecond), 10*time.Second, 2*time.Second); !at.Equal(heard.Add(15 * time.Second)) {
		t.Errorf("a bound between two seconds is the later one (it is shown to the second): %v", at)
	}
	if at, _ := expiresBy(time.Time{}, 10*time.Second, time.Second); !at.IsZero() {
		t.Errorf("never heard: %v", at)
	}
	if at, _ := expiresBy(heard, 0, time.Second); !at.IsZero() {
		t.Errorf("no timeout: %v", at)
	}
	// Against ZooKeeper's rule, on the leader's clock: the touch reaches
	// the leader up to half a tick after the last answer, whatever the
	// phase of its ticks; the bound is never before the expiry.
	roundToNextInterval := func(ms, tick int64) int64 { return (ms/tick + 1) * tick }
	for _, tick := range []int64{100, 2000, 3000} {
		for _, timeout := range []int64{4000, 10000, 40000} {
			for last := int64(1_000_000); last < 1_000_000+2*tick; last += 7 {
				for _, delay := range []int64{0, tick / 4, tick / 2} {
					expiry := roundToNextInterval(last+delay+timeout, tick)
					bound, _ := expiresBy(heard, time.Duration(timeout)*time.Millisecond, time.Duration(tick)*time.Millisecond)
					if got := bound.Sub(heard).Milliseconds(); last+got < expiry {
						t.Fatalf("tick %d, timeout %d, last answer %d, touch %d later: bound %d < expiry %d", tick, timeout, last, delay, last+got, expiry)
					}
				}
			}
		}
	}
}
