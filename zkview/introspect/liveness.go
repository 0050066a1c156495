package introspect

import (
	"strconv"
	"time"
)

// Liveness: when did a server last answer a session?
//
// cons's lresp and the AdminServer's last_response_time are read from the
// member's monotonic clock (ZooKeeper 3.8: ServerCnxn.updateStatsForResponse
// sets it to Time.currentElapsedTime(), System.nanoTime()/1e6, on every
// answer, pings included). That clock is not wall time and differs from
// member to member, so a value is compared only with another value of the
// same member: the member's "now" is the freshest answer it lists. zkx's own
// session, touched just before the tables are asked (Options.Touch), makes
// that freshest answer a moment old on the member it is connected to; on
// the others, the freshest answer to any client stands in, and the silence
// measured may be shorter than the truth (Session.HeardBound). Only
// durations on one member's clock are carried over to zkx's clock: no
// member's wall clock, and no clock skew, enters the result.

// memberClock pairs a moment of zkx's clock with the same moment on one
// member's monotonic clock.
type memberClock struct {
	local  time.Time // zkx's clock
	member int64     // the member's, in milliseconds
	own    bool      // the pair comes from zkx's own touched session
}

// heard converts a LastResponse of the member into zkx's clock.
func (c memberClock) heard(lresp int64) time.Time {
	return c.local.Add(-time.Duration(c.member-lresp) * time.Millisecond)
}

// memberClocks finds, for every member whose connection list was read, the
// moment its clock stands for: zkx's touched session's answer (at the time
// the touch returned) when that session is connected there, else the
// freshest answer it lists (at the time the list arrived).
func memberClocks(in *Snapshot, touch touchRecord) map[string]memberClock {
	out := map[string]memberClock{}
	for i := range in.Members {
		m := &in.Members[i]
		if m.ConnectionsAt.IsZero() {
			continue
		}
		var fresh, own int64
		for _, c := range m.Connections {
			fresh = max(fresh, c.LastResponse)
			if c.LastResponse > 0 && touch.has(c.SessionID) {
				own = max(own, c.LastResponse)
			}
		}
		switch {
		case own > 0 && !touch.at.IsZero():
			out[m.Addr] = memberClock{local: touch.at, member: own, own: true}
		case fresh > 0:
			out[m.Addr] = memberClock{local: m.ConnectionsAt, member: fresh}
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
// can live. A server touches a session on every request (before it
// answers, so at or before heard) and sets its expiry to the touch plus the
// timeout, rounded up to the next tick (ExpiryQueue.roundToNextInterval);
// a follower passes its touches to the leader, which decides, at the
// leader's next ping (every half tick). Hence heard + timeout + 2 ticks at
// the latest; without the tick (the configuration was not read), heard +
// timeout, about. Zero when heard or the timeout is not known.
func expiresBy(heard time.Time, timeout, tick time.Duration) time.Time {
	if heard.IsZero() || timeout <= 0 {
		return time.Time{}
	}
	return heard.Add(timeout + 2*tick)
}
