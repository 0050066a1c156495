package zkview

import "time"

// Liveness is what the servers' tables say of when a session was last
// heard from: the answer a member last sent it (pings included) and when,
// at the latest, the servers expire it if its client stays silent. The
// servers' own clocks never enter it: see zkview/introspect's liveness.go.
type Liveness struct {
	// Heard is when the member the session is connected to last answered
	// it, on this program's clock.
	Heard time.Time
	// ReadAt is when the member's table said so: what came after is not
	// known, so the silence is measured up to it, not to the present.
	ReadAt time.Time
	// AtLeast is set when the silence since Heard may be longer than it
	// reads: the member's present moment was taken from its freshest
	// answer to another client, not to this program's own session.
	AtLeast bool
	// Timeout is the session's negotiated timeout; 0 when not known.
	Timeout time.Duration
	// ExpiresBy is the latest the servers expire the session if its client
	// says nothing after Heard (its timeout rounded up to the servers'
	// tick); zero when the timeout is not known.
	ExpiresBy time.Time
	// ExpiresByApprox is set when the servers' tick is not known:
	// ExpiresBy is then about (Heard plus the timeout), and may be early
	// by up to two ticks.
	ExpiresByApprox bool
}

// Silence is how long the session had not been heard from when its
// member's table was read: the member's freshest answer then, less its
// last answer to the session, both on the member's own clock, so that
// nothing zkx waited for meanwhile stretches it. A table read a while ago
// says nothing of the time since. now counts only when ReadAt is not
// known.
func (l Liveness) Silence(now time.Time) time.Duration {
	if !l.ReadAt.IsZero() {
		now = l.ReadAt
	}
	return max(now.Sub(l.Heard), 0)
}

// ExpiryBound says when the session expires if its client stays silent,
// for a sentence: "by 15:04:05" (ExpiresBy is rounded up to the second,
// so the time shown is never early), or "about 15:04:05" when the
// servers' tick is not known; "" when the timeout is not known.
func (l Liveness) ExpiryBound() string {
	switch {
	case l.ExpiresBy.IsZero():
		return ""
	case l.ExpiresByApprox:
		return "about " + l.ExpiresBy.Format("15:04:05")
	}
	return "by " + l.ExpiresBy.Format("15:04:05")
}

// Silent reports whether the session has not been heard from for more than
// a third of its timeout (and SilentSlack): an idle client pings after at
// most a third of it (half its read timeout, which is two thirds of the
// session timeout: ZooKeeper's ClientCnxn, Kazoo's connection.py,
// go-zookeeper's conn.go), so a live one is never that quiet. False when
// the timeout is not known.
func (l Liveness) Silent(now time.Time) bool {
	return l.Timeout > 0 && !l.Heard.IsZero() && l.Silence(now) > l.Timeout/3+SilentSlack
}

// SilentSlack is what Silent allows on top of a third of the timeout: the
// ping's round trip, and the time between the member's answer and zkx's
// reading of it.
const SilentSlack = 500 * time.Millisecond
