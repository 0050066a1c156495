package introspect

import (
	"strconv"
	"time"

	"github.com/zkx-dev/zkx/zkview"
)

// Liveness: when did a server last answer a session?
//
// cons's lresp and the AdminServer's last_response_time are read from the
// member's monotonic clock (ZooKeeper 3.8: ServerCnxn.updateStatsForResponse
// sets it to Time.currentElapsedTime(), System.nanoTime()/1e6, on every
// answer, pings included). That clock is not wall time and differs from
// member to member, so a value is compared only with another value of the
// same member, from the same table: a session's silence is the member's
// freshest answer (to any client) minus the session's last one, on that
// member's clock, as it stood when the member wrote the table. Waiting on
// another member, or on anything else zkx does, never enters it.
//
// To carry a moment over to zkx's clock, the member's freshest answer is
// paired with the table's arrival: the member wrote the table at or after
// its freshest answer, and zkx read it at or before the arrival, so a
// session's last answer is never placed earlier than it was — its silence
// is never overstated and the expiry bound never early. The freshest answer
// may itself be a little old (an idle member); zkx's own session, touched
// just before the tables are asked (Options.Touch), makes it a moment old
// on the member zkx is connected to. On the others the silence is at least
// what it reads (Session.HeardBound). No member's wall clock, and no clock
// skew, enters the result.

// memberClock pairs a moment of zkx's clock with the same moment on one
// member's monotonic clock: the arrival of the member's connection table
// with the freshest answer it lists.
type memberClock struct {
	local  time.Time // zkx's clock: when the table arrived
	member int64     // the member's, in milliseconds: its freshest answer
	// recent: zkx's own session, touched just before, is among the
	// member's connections and the table arrived within
	// zkview.SilentSlack of the touch, so the freshest answer is at most
	// that old.
	recent bool
}

// heard converts a LastResponse of the member into zkx's clock.
func (c memberClock) heard(lresp int64) time.Time {
	return c.local.Add(-time.Duration(c.member-lresp) * time.Millisecond)
}

// memberClocks finds, for every member whose connection list was read, the
// moment its clock stands for (see memberClock).
func memberClocks(in *Snapshot, touch touchRecord) map[string]memberClock {
	out := map[string]memberClock{}
	for i := range in.Members {
		m := &in.Members[i]
		if m.ConnectionsAt.IsZero() {
			continue
		}
		var fresh int64
		own := false
		for _, c := range m.Connections {
			fresh = max(fresh, c.LastResponse)
			own = own || (c.LastResponse > 0 && touch.has(c.SessionID))
		}
		if fresh > 0 {
			recent := own && !touch.at.IsZero() && m.ConnectionsAt.Sub(touch.at) <= zkview.SilentSlack
			out[m.Addr] = memberClock{local: m.ConnectionsAt, member: fresh, recent: recent}
		}
	}
	return out
}

// touchRecord is what Options.Touch did: the sessions it made a request
// on, and when the request returned.
type touchRecord struct {
	sessions []int64
	at       time.Time
}

func (t touchRecord) has(session int64) bool {
	for _, s := range t.sessions {
		if s == session && s != 0 {
			return true
		}
	}
	return false
}

// tickOf is the member's tickTime (conf's tickTime, the AdminServer's
// tick_time), else another member's; 0 when no configuration was read.
func tickOf(in *Snapshot, m *Member) time.Duration {
	read := func(m *Member) time.Duration {
		for _, k := range []string{"tickTime", "tick_time"} {
			if v, err := strconv.Atoi(m.Conf[k]); err == nil && v > 0 {
				return time.Duration(v) * time.Millisecond
			}
		}
		return 0
	}
	if t := read(m); t > 0 {
		return t
	}
	for i := range in.Members {
		if t := read(&in.Members[i]); t > 0 {
			return t
		}
	}
	return 0
}

// expiresBy is the latest a session whose client stays silent after heard
// can live, and whether that is only about (the tick is not known). A
// server touches a session on every request, before it answers (so at or
// before heard), and the leader sets its expiry to the touch plus the
// timeout rounded up to the next tick (ExpiryQueue.roundToNextInterval:
// at most a tick more). A follower passes its touches to the leader when
// the leader pings it, every half tick. Hence heard + timeout + 1.5 ticks;
// half a tick more is left for the leader's own pace (its expirer waking,
// the closeSession committing), so heard + timeout + 2 ticks at the latest.
// Without the tick (no member's configuration was read: conf refused, no
// AdminServer), heard + timeout, about: it may be early by up to 2 ticks.
// Zero when heard or the timeout is not known.
//
// The bound is rounded up to the whole second, so that a clock shown to
// the second ("by 14:02:07") is never early.
func expiresBy(heard time.Time, timeout, tick time.Duration) (at time.Time, about bool) {
	if heard.IsZero() || timeout <= 0 {
		return time.Time{}, false
	}
	at = heard.Add(timeout + 2*tick)
	if whole := at.Truncate(time.Second); whole.Before(at) {
		at = whole.Add(time.Second)
	}
	return at, tick <= 0
}
