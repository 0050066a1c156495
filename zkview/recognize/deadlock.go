package recognize

import (
	"fmt"
	"sort"
	"strings"
)

// A deadlock across locks.
//
// Every recognised lock (mutex, read-write lock, semaphore) says who
// holds and who waits for whom. Keyed by session, they make one wait-for
// graph: a session waiting in a lock's queue waits for the sessions along
// its chain of watches up to a holder (and, when it wants the lock alone,
// for every holder); a semaphore's first waiter waits for any one lease to
// go. A session that waits for nothing will let go of what it holds; one
// whose waits can all be met will too, once they are. The sessions left
// wait, directly or not, on each other: a cycle among them is a deadlock.
//
// Sessions, not threads: a process that holds one lock on one thread and
// waits for another on a second thread, over one session, is in a cycle
// here while its first thread may still let go. The warning says so.

// Deadlock is one cycle of sessions, each waiting in a lock's queue for
// what another holds.
type Deadlock struct {
	// Links are the sessions of the cycle, in the order they wait on
	// each other where the cycle is a ring.
	Links []DeadlockLink
	// Breaks are the releases any one of which breaks the cycle: deleting
	// that holder's node lets every session of the cycle go on.
	Breaks []DeadlockRelease
	// Locks are the paths of the locks the cycle runs through, sorted.
	Locks []string
	// Unsure names the waiters of the cycle that may hold (MayHold, with
	// why): if one does, that lock is broken instead, and there is no
	// cycle through it.
	Unsure []string
}

// DeadlockLink is one session of a deadlock: what it holds that another
// of the cycle waits for, and where it waits itself.
type DeadlockLink struct {
	Session   string
	SessionID int64
	// Holds are its holders' nodes another session of the cycle waits
	// behind.
	Holds []DeadlockRelease
	// Waits are where it waits, and behind which sessions of the cycle.
	Waits []DeadlockWait
}

// DeadlockWait is where a session of a deadlock waits.
type DeadlockWait struct {
	Lock string // the lock's path
	Node string // its own node there
	// Behind are the sessions of the cycle it waits for there.
	Behind []string
}

// DeadlockRelease is a holder's node in a lock.
type DeadlockRelease struct {
	Lock    string
	Node    string
	Session string
	// Handover is what happens when the node is deleted (Lock.Handover).
	Handover string
}

// waitItem is one thing a session waits for: every one of blockers
// (all), or any one of them (!all: a semaphore's leases).
type waitItem struct {
	lock     string
	node     string // the waiter's node
	all      bool
	blockers []blocker
	// mayHold names the waiter and why when it may hold (MayHold).
	mayHold string
}

// blocker is a contender a waiter waits for.
type blocker struct {
	session int64
	lock    string
	node    string
	holds   bool
}

// waitGraph is every session's waits over a set of locks.
type waitGraph struct {
	waits    map[int64][]waitItem
	sessions map[int64]string // id → 0x… text
	locks    map[string]*Lock
}

func newWaitGraph(locks []Lock) *waitGraph {
	g := &waitGraph{waits: map[int64][]waitItem{}, sessions: map[int64]string{}, locks: map[string]*Lock{}}
	for i := range locks {
		l := &locks[i]
		g.locks[l.Path] = l
		places := l.Lineup()
		for _, p := range places {
			if p.SessionID != 0 {
				g.sessions[p.SessionID] = p.Session
			}
		}
		for _, p := range places {
			if p.Holding() || p.SessionID == 0 {
				continue
			}
			g.waits[p.SessionID] = append(g.waits[p.SessionID], waitFor(l, places, p))
		}
	}
	return g
}

// waitFor is what a waiter of l waits for: the contenders along its chain
// of watches up to a holder (AheadOf), every holder too when it wants the
// lock alone; any one lease of a semaphore when it watches the leases.
func waitFor(l *Lock, places []Place, w Place) waitItem {
	item := waitItem{lock: l.Path, node: w.Node, all: true}
	if w.MayHold {
		item.mayHold = w.Name() + " may hold: it " + w.MayHoldReason
	}
	add := func(p Place) {
		if p.SessionID != 0 {
			item.blockers = append(item.blockers, blocker{session: p.SessionID, lock: l.Path, node: p.Node, holds: p.Holding()})
		}
	}
	ahead := AheadOf(places, w.Contender)
	if len(ahead) == 0 && l.Recipe == recSemaphore {
		item.all = false // it counts the leases: any one going lets it on
		for _, h := range l.Holders {
			add(Place{Role: RoleLease, Contender: h})
		}
		return item
	}
	seen := map[string]bool{}
	for _, p := range ahead {
		seen[p.Node] = true
		add(p)
	}
	if w.Kind != "read" {
		for _, h := range l.Holders {
			if !seen[h.Node] {
				add(Place{Role: RoleHolder, Contender: h})
			}
		}
	}
	return item
}

// free are the sessions that go on, sooner or later: those that wait for
// nothing, then those whose every wait is met by sessions that go on, and
// so on. removed are holders' nodes taken as deleted.
func (g *waitGraph) free(removed map[blocker]bool) map[int64]bool {
	free := map[int64]bool{}
	for s := range g.sessions {
		if len(g.waits[s]) == 0 {
			free[s] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for s, items := range g.waits {
			if free[s] {
				continue
			}
			met := true
			for _, it := range items {
				met = met && it.met(s, free, removed)
			}
			if met {
				free[s], changed = true, true
			}
		}
	}
	return free
}

// met reports whether the wait ends for session s once the free sessions
// let go.
func (it waitItem) met(s int64, free map[int64]bool, removed map[blocker]bool) bool {
	var left []blocker
	for _, b := range it.blockers {
		switch {
		case !removed[b.key()]:
			left = append(left, b)
		case !it.all:
			return true // one lease gone is all it waits for
		}
	}
	if len(left) == 0 {
		return true
	}
	for _, b := range left {
		gone := b.session == s || free[b.session] // its own node: another thread of it
		switch {
		case it.all && !gone:
			return false
		case !it.all && gone:
			return true
		}
	}
	return it.all
}

func (b blocker) key() blocker { return blocker{lock: b.lock, node: b.node} }

// Deadlocks finds the cycles of sessions across locks (see the comment at
// the top of deadlock.go), each once, in a stable order.
func Deadlocks(locks []Lock) []Deadlock {
	g := newWaitGraph(locks)
	free := g.free(nil)
	var out []Deadlock
	for _, scc := range g.cycles(free) {
		out = append(out, g.deadlock(scc))
	}
	return out
}

// cycles are the strongly connected components of two sessions or more
// among the stuck ones (Tarjan's algorithm), each sorted, in order of
// their first session.
func (g *waitGraph) cycles(free map[int64]bool) [][]int64 {
	var stuck []int64
	for s := range g.waits {
		if !free[s] {
			stuck = append(stuck, s)
		}
	}
	sort.Slice(stuck, func(i, j int) bool { return stuck[i] < stuck[j] })
	edges := map[int64][]int64{}
	for _, s := range stuck {
		seen := map[int64]bool{}
		for _, it := range g.waits[s] {
			for _, b := range it.blockers {
				if b.session != s && !free[b.session] && !seen[b.session] {
					seen[b.session] = true
					edges[s] = append(edges[s], b.session)
				}
			}
		}
		sort.Slice(edges[s], func(i, j int) bool { return edges[s][i] < edges[s][j] })
	}
	index, low, onStack := map[int64]int{}, map[int64]int{}, map[int64]bool{}
	var stack []int64
	var out [][]int64
	next := 0
	var visit func(s int64)
	visit = func(s int64) {
		index[s], low[s] = next, next
		next++
		stack = append(stack, s)
		onStack[s] = true
		for _, t := range edges[s] {
			if _, done := index[t]; !done {
				visit(t)
				low[s] = min(low[s], low[t])
			} else if onStack[t] {
				low[s] = min(low[s], index[t])
			}
		}
		if low[s] != index[s] {
			return
		}
		var scc []int64
		for {
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[t] = false
			scc = append(scc, t)
			if t == s {
				break
			}
		}
		if len(scc) > 1 {
			sort.Slice(scc, func(i, j int) bool { return scc[i] < scc[j] })
			out = append(out, scc)
		}
	}
	for _, s := range stuck {
		if _, done := index[s]; !done {
			visit(s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// deadlock describes one cycle: its sessions in ring order, what each
// holds and where it waits, and the releases that break it.
func (g *waitGraph) deadlock(scc []int64) Deadlock {
	in := map[int64]bool{}
	for _, s := range scc {
		in[s] = true
	}
	var d Deadlock
	locks := map[string]bool{}
	held := map[int64][]DeadlockRelease{}
	heldSeen := map[blocker]bool{}
	for _, s := range ringOrder(scc, g.waits, in) {
		link := DeadlockLink{Session: g.sessions[s], SessionID: s}
		for _, it := range g.waits[s] {
			var behind []string
			for _, b := range it.blockers {
				if !in[b.session] || b.session == s {
					continue
				}
				if !contains(behind, g.sessions[b.session]) {
					behind = append(behind, g.sessions[b.session])
				}
				if b.holds && !heldSeen[b.key()] {
					heldSeen[b.key()] = true
					held[b.session] = append(held[b.session], DeadlockRelease{Lock: b.lock, Node: b.node, Session: g.sessions[b.session],
						Handover: g.locks[b.lock].Handover(b.node)})
					locks[b.lock] = true
				}
			}
			if len(behind) > 0 {
				link.Waits = append(link.Waits, DeadlockWait{Lock: it.lock, Node: it.node, Behind: behind})
				locks[it.lock] = true
				if it.mayHold != "" {
					d.Unsure = append(d.Unsure, it.mayHold)
				}
			}
		}
		d.Links = append(d.Links, link)
	}
	for i := range d.Links {
		d.Links[i].Holds = held[d.Links[i].SessionID]
		for _, r := range d.Links[i].Holds {
			if g.breaks(scc, r) {
				d.Breaks = append(d.Breaks, r)
			}
		}
	}
	for l := range locks {
		d.Locks = append(d.Locks, l)
	}
	sort.Strings(d.Locks)
	return d
}

// breaks reports whether deleting r's node lets every session of scc go on.
func (g *waitGraph) breaks(scc []int64, r DeadlockRelease) bool {
	free := g.free(map[blocker]bool{{lock: r.Lock, node: r.Node}: true})
	for _, s := range scc {
		if !free[s] {
			return false
		}
	}
	return true
}

// ringOrder orders a cycle's sessions as they wait on each other, from the
// lowest: each followed by the first of the cycle it waits for, not met
// yet; those left over (a cycle that is no simple ring) after.
func ringOrder(scc []int64, waits map[int64][]waitItem, in map[int64]bool) []int64 {
	var out []int64
	placed := map[int64]bool{}
	for s := scc[0]; !placed[s]; {
		out = append(out, s)
		placed[s] = true
		next := s
		for _, it := range waits[s] {
			for _, b := range it.blockers {
				if in[b.session] && !placed[b.session] && next == s {
					next = b.session
				}
			}
		}
		s = next
	}
	for _, s := range scc {
		if !placed[s] {
			out = append(out, s)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, have := range list {
		if have == s {
			return true
		}
	}
	return false
}

// Text says the deadlock in a warning: each session, what it holds and
// where it waits behind whom, and which releases break it.
func (d Deadlock) Text() string {
	var sessions, parts []string
	for _, l := range d.Links {
		sessions = append(sessions, l.Session)
		var holds []string
		for _, h := range l.Holds {
			holds = append(holds, fmt.Sprintf("%s (%s)", h.Lock, BareName(h.Node)))
		}
		var waits []string
		for _, w := range l.Waits {
			waits = append(waits, fmt.Sprintf("in %s behind session %s", w.Lock, strings.Join(w.Behind, " and ")))
		}
		part := "session " + l.Session
		if len(holds) > 0 {
			part += " holds " + strings.Join(holds, " and ") + " and"
		}
		parts = append(parts, part+" waits "+strings.Join(waits, " and "))
	}
	text := fmt.Sprintf("deadlock: sessions %s wait for each other in a cycle: %s. None goes on while each keeps what it holds (unless a session's holder and its waiter are threads that let go on their own)",
		listWords(sessions), strings.Join(parts, "; "))
	if len(d.Unsure) > 0 {
		text += ". It may be none: " + strings.Join(d.Unsure, "; ") + "; a waiter that holds breaks its lock instead"
	}
	if len(d.Breaks) > 0 {
		var rs []string
		for _, r := range d.Breaks {
			rs = append(rs, fmt.Sprintf("%s's %s (session %s)", r.Lock, BareName(r.Node), r.Session))
		}
		text += ". Releasing any one of these breaks it: " + strings.Join(rs, ", ")
	}
	return text
}

func listWords(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// MarkDeadlocks finds the deadlocks among locks and others (locks found
// beyond them, which a cycle through locks may pass through: a scan of
// one path, the rest of the tree) and marks every one of locks in one:
// Deadlocked, the deadlock's warning first, an alarm of kind deadlock
// (about the node of that lock the cycle waits behind). others are left
// as they are; a lock of others at a path of locks is not counted twice.
// It returns the deadlocks.
func MarkDeadlocks(locks []Lock, others ...Lock) []Deadlock {
	all := append([]Lock{}, locks...)
	have := map[string]bool{}
	for _, l := range locks {
		have[l.Path] = true
	}
	for _, o := range others {
		if !have[o.Path] {
			all = append(all, o)
		}
	}
	ds := Deadlocks(all)
	for i := len(ds) - 1; i >= 0; i-- {
		d := ds[i]
		text := d.Text()
		for j := range locks {
			l := &locks[j]
			if !contains(d.Locks, l.Path) {
				continue
			}
			node := ""
			for _, link := range d.Links {
				for _, h := range link.Holds {
					if h.Lock == l.Path && node == "" {
						node = h.Node
					}
				}
			}
			l.Deadlocked = true
			l.Warnings = append([]string{text}, l.Warnings...)
			l.Alarms = append([]Alarm{{Kind: AlarmDeadlock, Node: node, Text: text}}, l.Alarms...)
		}
	}
	return ds
}
