package tui

import (
	"sort"
	"strconv"
	"time"

	"github.com/zkx-dev/zkx/demo"
)

// demoLane is what the demo page needs of a lane: *demo.Lane, or a fake in
// tests. Snapshot, Sample, SetHold, SetPaused, StallNext and Reset stay in
// memory and may run in Update; Add, Remove, CrashHolder and CloseHolder
// talk to the servers and run in tea.Cmds.
type demoLane interface {
	Snapshot() demo.LaneSnapshot
	Sample(now time.Time)
	SetHold(d time.Duration)
	SetPaused(p bool)
	StallNext() time.Duration
	Reset()

	Add() error
	Remove() bool
	CrashHolder() bool
	CloseHolder() bool
}

// demoRow is one contender as the page draws it, in queue order.
type demoRow struct {
	contender demo.ContenderSnapshot
	seq       int64  // sequence number of its node, -1 without one
	waitsOn   string // "#7": the contender it watches, or the node when nobody owns it
	topWatch  bool   // it watches the first row (the holder)
	flash     bool   // a notification was delivered to it just now
}

// liveContenders counts the contenders still taking part.
func liveContenders(s demo.LaneSnapshot) int {
	n := 0
	for _, c := range s.Contenders {
		if c.State != demo.Crashed && c.State != demo.Closed {
			n++
		}
	}
	return n
}

// nodeSeq reads the sequence number at the end of a lock node's name.
func nodeSeq(node string) int64 {
	i := len(node)
	for i > 0 && node[i-1] >= '0' && node[i-1] <= '9' {
		i--
	}
	if len(node)-i < 10 {
		return -1
	}
	// A wrapped (negative) counter reads as its digits: the demo's lanes
	// never run that long, and the order is only for drawing.
	n, err := strconv.ParseInt(node[i:], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// shortNode names a node by the tail of its sequence number ("…042"), or
// as it is when it has none (spin's "lock").
func shortNode(node string) string {
	if nodeSeq(node) < 0 {
		return node
	}
	return "…" + node[len(node)-3:]
}

// demoRows orders a lane's contenders as ZooKeeper orders their nodes:
// the holder (lowest node) first, then the waiters in line, then those
// with no node (working outside the lock, or spinning). Crashed holders
// whose node is still there stay in line; hidden ones are left out.
func demoRows(s demo.LaneSnapshot, hidden, flashed func(demo.ContenderSnapshot) bool) []demoRow {
	owner := map[string]int{}
	var rows []demoRow
	for _, c := range s.Contenders {
		if hidden(c) {
			continue
		}
		seq := int64(-1)
		if c.Node != "" && c.State != demo.Starting {
			seq = nodeSeq(c.Node)
			owner[c.Node] = c.ID
		}
		r := demoRow{contender: c, seq: seq}
		r.flash = flashed(c)
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if ra, rb := demoRank(a), demoRank(b); ra != rb {
			return ra < rb
		}
		if a.seq != b.seq {
			return a.seq < b.seq
		}
		return a.contender.ID < b.contender.ID
	})
	top := ""
	if len(rows) > 0 {
		top = rows[0].contender.Node
	}
	for i := range rows {
		r := &rows[i]
		if len(r.contender.Watching) == 0 || r.contender.State != demo.WaitingOn {
			continue
		}
		w := r.contender.Watching[0]
		if id, ok := owner[w]; ok {
			r.waitsOn = "#" + strconv.Itoa(id)
		} else {
			r.waitsOn = shortNode(w)
		}
		r.topWatch = w == top && i > 0
	}
	return rows
}

// demoRank puts holders first, nodes in line next, the rest last.
func demoRank(r demoRow) int {
	switch {
	case r.contender.State == demo.Holding || r.contender.State == demo.Stalled || (r.contender.State == demo.Crashed && r.contender.Node != ""):
		return 0
	case r.seq >= 0:
		return 1
	case r.contender.State == demo.Polling:
		return 2
	}
	return 3
}

// demoGhosts follows contenders that stopped, deciding when to stop
// drawing them: one that left cleanly goes at once (its node went with
// its session); a crashed holder's node stays until its session expires,
// which shows as the lane's acquisitions moving again.
type demoGhosts struct {
	crashed map[ghostKey]ghost
}

type ghostKey struct{ lane, id int }

type ghost struct {
	seen         time.Time
	acquisitions uint64 // the lane's acquisitions when the crash was first seen
}

// ghostLimit is the longest a crashed contender is drawn, in case the lane
// stands still for another reason (paused).
const ghostLimit = 30 * time.Second

// update notes new crashes and forgets those whose node must be gone.
func (g *demoGhosts) update(lane int, s demo.LaneSnapshot, now time.Time) {
	if g.crashed == nil {
		g.crashed = map[ghostKey]ghost{}
	}
	for _, c := range s.Contenders {
		if c.State != demo.Crashed {
			continue
		}
		k := ghostKey{lane, c.ID}
		if _, ok := g.crashed[k]; !ok {
			g.crashed[k] = ghost{seen: now, acquisitions: s.Counters.Acquisitions}
		}
	}
}

// hidden reports whether a contender is no longer drawn.
func (g *demoGhosts) hidden(lane int, s demo.LaneSnapshot, c demo.ContenderSnapshot, now time.Time) bool {
	switch c.State {
	case demo.Closed:
		return true
	case demo.Crashed:
		gh, ok := g.crashed[ghostKey{lane, c.ID}]
		if !ok {
			return c.Node == ""
		}
		return c.Node == "" || s.Counters.Acquisitions != gh.acquisitions || now.Sub(gh.seen) > ghostLimit
	}
	return false
}

// demoFlashes decides which contenders flash: those a watch fired on
// lately, in their current place in line. A contender keeps the time of
// its last notification after it moves on, and the one that just held
// and queued again must not flash for the notification that handed it
// the lock a moment ago.
type demoFlashes struct {
	since map[ghostKey]flashBase
}

type flashBase struct {
	node string    // the node it had when last seen
	seen time.Time // its NotifiedAt when it took that node: older ones do not count
}

// update notes every contender's node; a new node resets what counts.
func (f *demoFlashes) update(lane int, s demo.LaneSnapshot) {
	if f.since == nil {
		f.since = map[ghostKey]flashBase{}
	}
	for _, c := range s.Contenders {
		k := ghostKey{lane, c.ID}
		if b, ok := f.since[k]; !ok || b.node != c.Node {
			f.since[k] = flashBase{node: c.Node, seen: c.NotifiedAt}
		}
	}
}

// flashed reports whether a watch fired on c, where it stands now,
// within the last flashFor.
func (f *demoFlashes) flashed(lane int, c demo.ContenderSnapshot, now time.Time, flashFor time.Duration) bool {
	if c.NotifiedAt.IsZero() || c.State == demo.Crashed || now.Sub(c.NotifiedAt) >= flashFor {
		return false
	}
	b, ok := f.since[ghostKey{lane, c.ID}]
	return !ok || c.NotifiedAt.After(b.seen)
}

// laneHeadline is a lane's name and how its waiters wait.
func laneHeadline(k demo.Kind) (name, how string) {
	switch k {
	case demo.Herd:
		return "HERD", "every waiter watches the holder"
	case demo.Spin:
		return "SPIN", "no watches: create, sleep, retry"
	case demo.Redis:
		return "REDIS", "SET NX PX, retry; watchdog renews"
	}
	return "CHAIN", "each waiter watches the one ahead"
}

// laneWhy is the one explanation of what the counters show.
func laneWhy(k demo.Kind, n int) string {
	switch k {
	case demo.Herd:
		return "A release fires every waiter's watch: " + strconv.Itoa(max(n-1, 0)) +
			" notifications, then " + strconv.Itoa(max(n-1, 0)) + " re-reads of the children, for one new holder."
	case demo.Redis:
		return "Like spin, SETs grow with N. The lease is a timer: a holder paused past it loses the lock unknowingly, and no token can refuse its late write."
	case demo.Spin:
		return "No watch tells anyone of a release: waiters retry the create each poll interval, so creates grow with N and a free lock idles up to one poll."
	}
	return "A release fires exactly one watch, on the next node in line: 1 notification per release, however many wait."
}
