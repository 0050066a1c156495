package present

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// Summary says in one line what a recipe's state is, as of now, for a
// list that shows recipes of every class (zkx recipes, the explorer's
// :recipes): a group's members, who owns what in a partitioner and
// whether its allocation is stuck, a lease's holder and end, a counter's
// value, a TTL node's owner; a line of counts for the others.
func Summary(r recognize.Recipe, now time.Time) string {
	switch r := r.(type) {
	case *recognize.Group:
		return groupSummary(r)
	case *recognize.Partitioner:
		return partitionSummary(r)
	case *recognize.Lease:
		return leaseSummary(r, now)
	case *recognize.Counter:
		return counterSummary(r, now)
	case *recognize.TTLNode:
		return ttlSummary(r)
	case *recognize.Lock:
		s := fmt.Sprintf("%d holding, %d waiting", len(r.Holders), len(r.Waiters))
		if m := Max(r); m != "" {
			s += "; " + m
		}
		return s
	case *recognize.Election:
		if r.Leader == nil {
			return fmt.Sprintf("no leader, %d in line", len(r.Candidates))
		}
		return fmt.Sprintf("led by %s, %d in line", r.Leader.Session, len(r.Candidates))
	case *recognize.Queue:
		return queueSummary(r)
	case *recognize.Barrier:
		if r.Kind == "barrier" {
			return "set: waiters wait until it is removed"
		}
		s := fmt.Sprintf("%s entered", countOf(len(r.Participants), "participant"))
		if r.Ready {
			s += ", ready"
		}
		return s
	}
	return ""
}

// queueSummary says how long a queue is, how old its oldest item, how
// many items are due (a delay queue) and in flight.
func queueSummary(q *recognize.Queue) string {
	s := countOf(q.Length, "item")
	if q.Kind != "" {
		s = q.Kind + " queue, " + s
	}
	if q.OldestAgeMs != nil {
		s += ", oldest " + display.Duration(time.Duration(*q.OldestAgeMs)*time.Millisecond)
	}
	if q.Kind == recognize.QueueKindDelay {
		s += fmt.Sprintf(", %d due", q.Due)
	}
	if q.InFlight > 0 {
		s += fmt.Sprintf(", %d in flight", q.InFlight)
	}
	if q.Stale {
		s = "STALE: " + s
	}
	return s
}

func groupSummary(g *recognize.Group) string {
	names := make([]string, 0, len(g.Members))
	for _, m := range g.Members {
		name := m.Node
		if g.Kind == recognize.GroupParty || g.Kind == recognize.GroupShallowParty {
			name = m.Data // their identifiers: the node names are random
		}
		names = append(names, display.Line(name))
	}
	if g.Kind == recognize.GroupParty || g.Kind == recognize.GroupShallowParty {
		sort.Strings(names) // listed by their random node names otherwise
	}
	s := countOf(len(g.Members), "member")
	if len(names) > 0 {
		s += ": " + strings.Join(names, ", ")
	}
	return s
}

func partitionSummary(p *recognize.Partitioner) string {
	var shares []string
	for _, m := range p.Members {
		owns := "none"
		if len(m.Items) > 0 {
			owns = strings.Join(m.Items, ",")
		}
		shares = append(shares, display.Line(m.Identifier)+" has "+display.Line(owns))
	}
	s := "no member"
	if len(shares) > 0 {
		s = strings.Join(shares, ", ")
	}
	if len(p.Unowned) > 0 {
		s += "; nobody has " + display.Line(strings.Join(p.Unowned, ","))
	}
	if p.Stuck {
		s = "STUCK: " + s
	}
	return s
}

func leaseSummary(l *recognize.Lease, now time.Time) string {
	if l.Kind != recognize.LeaseMulti {
		if len(l.Slots) == 0 {
			return "free"
		}
		return LeaseState(l.Slots[0], now)
	}
	var held, expired []string
	free := 0
	for _, s := range l.Slots {
		slot := strings.TrimSuffix(s.Node, "/lease_holder")
		switch {
		case s.Holder == "" || s.Ends.IsZero():
			free++
		case !s.Ends.After(now):
			expired = append(expired, fmt.Sprintf("%s %s ago (slot %s)", display.Line(s.Holder), display.Duration(now.Sub(s.Ends)), slot))
		default:
			held = append(held, fmt.Sprintf("%s (%s left)", display.Line(s.Holder), display.Duration(s.Ends.Sub(now))))
		}
	}
	parts := []string{fmt.Sprintf("%d held", len(held))}
	if len(held) > 0 {
		parts[0] += ": " + strings.Join(held, ", ")
	}
	if len(expired) > 0 {
		parts = append(parts, fmt.Sprintf("%d EXPIRED: %s", len(expired), strings.Join(expired, ", ")))
	}
	if free > 0 {
		parts = append(parts, fmt.Sprintf("%d free", free))
	}
	return strings.Join(parts, ", ")
}

// LeaseState says who holds a lease and until when, as of now: "held by web-1
// until 12:00:00 UTC (in 5m00s)", "EXPIRED 3m00s ago (old-holder): held
// by nobody", "free".
func LeaseState(s recognize.LeaseSlot, now time.Time) string {
	switch {
	case s.Holder == "" && s.End == "":
		if s.Obtaining > 0 {
			return "being taken"
		}
		return "free"
	case s.Ends.IsZero():
		return "held by " + display.Line(s.Holder) + " (end unreadable)"
	case !s.Ends.After(now):
		return fmt.Sprintf("EXPIRED %s ago (%s): held by nobody", display.Duration(now.Sub(s.Ends)), display.Line(s.Holder))
	}
	return fmt.Sprintf("held by %s until %s UTC (in %s)", display.Line(s.Holder), s.Ends.UTC().Format("15:04:05"), display.Duration(s.Ends.Sub(now)))
}

func counterSummary(c *recognize.Counter, now time.Time) string {
	when := ""
	if !c.Changed.IsZero() {
		when = " " + display.Duration(now.Sub(c.Changed)) + " ago"
	}
	if c.Version == 0 {
		return fmt.Sprintf("%s (%s, as created%s)", c.Value, c.Kind, when)
	}
	return fmt.Sprintf("%s (%s, set %s, last%s)", c.Value, c.Kind, countOf(int(c.Version), "time"), when)
}

// ttlSummary says what was read of a TTL node: its owner as judged when
// read (touch's data changes are not followed, so it is not aged here).
func ttlSummary(n *recognize.TTLNode) string {
	age := shortDuration(n.TouchAgeMs)
	switch n.Owner {
	case recognize.TTLOwnerUnknown:
		return "touched once, " + age + " before it was read: owner not judged yet"
	case recognize.TTLOwnerGone:
		return fmt.Sprintf("OWNER GONE: no touch for %s (TTL ≈%s)", age, shortDuration(*n.TTLMs))
	case recognize.TTLOwnerLate:
		return fmt.Sprintf("owner late: no touch for %s (every %s, TTL ≈%s)", age, shortDuration(*n.TouchEveryMs), shortDuration(*n.TTLMs))
	}
	return fmt.Sprintf("owner alive (touched every %s, TTL ≈%s)", shortDuration(*n.TouchEveryMs), shortDuration(*n.TTLMs))
}

// shortDuration writes milliseconds to a tenth of a second under a minute
// (a TTL node's touch interval is seconds), as display.Duration above.
func shortDuration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return display.Duration(d)
}

// countOf says "1 item", "3 items".
func countOf(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// Due says when a delay queue's item is due, as of now: "due in 3m00s",
// "overdue 12m"; "" for an item of another queue.
func Due(it recognize.QueueItem, now time.Time) string {
	if it.Due.IsZero() {
		return ""
	}
	d := it.Due.Sub(now)
	if d > 0 {
		return "due in " + display.Duration(d)
	}
	return "overdue " + display.Duration(-d)
}

// Max says a semaphore's maximum and where it came from: "max 3 (the
// SharedCount at /app/sem-max)", "mutex by semaphore, max 1 (as zkx was
// told)", "max unknown: Curator keeps it in its clients' code"; "" for a
// lock that is no semaphore.
func Max(l *recognize.Lock) string {
	if l.Recipe != "semaphore" {
		return ""
	}
	if l.MaxLeases <= 0 {
		return "max " + l.MaxSource()
	}
	s := fmt.Sprintf("max %d (%s)", l.MaxLeases, l.MaxSource())
	if l.MutexBySemaphore {
		s = "mutex by semaphore, " + s
	}
	return s
}

// queueHead says what a queue is in one line: its kind, length, oldest
// item, items due and in flight, and where its lockPath is.
func queueHead(q *recognize.Queue) string {
	kind := "queue"
	if q.Kind != "" {
		kind = q.Kind + " queue"
	}
	head := fmt.Sprintf("%s · %s · %s", kind, q.Format, countOf(q.Length, "item"))
	if len(q.Items) < q.Length {
		head += fmt.Sprintf(" (first %d shown)", len(q.Items))
	}
	if q.OldestAgeMs != nil {
		head += " · oldest " + display.Duration(time.Duration(*q.OldestAgeMs)*time.Millisecond)
	}
	if q.Kind == recognize.QueueKindDelay {
		head += fmt.Sprintf(" · %d due", q.Due)
	}
	if q.InFlight > 0 || q.LockPath != "" {
		head += fmt.Sprintf(" · %d in flight", q.InFlight)
	}
	if q.LockPath != "" {
		head += " (lockPath " + display.Line(q.LockPath) + ")"
	}
	return head + " · taken from the top, in this order"
}

// headMore says what a partitioner, a lease, a counter or a TTL node is
// in one line.
func headMore(r recognize.Recipe, now time.Time) string {
	switch r := r.(type) {
	case *recognize.Partitioner:
		head := fmt.Sprintf("partitioner · %s · %s · %s (those with a lock directory)", r.Format,
			countOf(len(r.Members), "member"), countOf(len(r.Items), "item"))
		if r.Stuck {
			head = "STUCK " + head
		}
		if !r.PartyChanged.IsZero() {
			head += " · party changed " + display.Duration(now.Sub(r.PartyChanged)) + " ago"
		}
		return head
	case *recognize.Lease:
		return fmt.Sprintf("%s · %s · %s", r.Kind, r.Format, Summary(r, now))
	case *recognize.Counter:
		return fmt.Sprintf("counter · %s · %s · as %s write it", r.Format, Summary(r, now), strings.Join(r.Writers, ", "))
	case *recognize.TTLNode:
		return fmt.Sprintf("ttl-node · %s · %s", r.Format, Summary(r, now))
	}
	return ""
}
