package recognize

import (
	"context"
	"path"
	"strings"

	"github.com/zkx-dev/zkx/zkview"
)

// Items in flight of a Curator queue with guaranteed delivery.
//
// A DistributedQueue (or its delay, id and priority variants) built with
// QueueBuilder.lockPath processes each item under an ephemeral node named
// as the item in lockPath (DistributedQueue.processWithLockSafety: create
// lockPath/<item>, read and consume the item, delete the item, then the
// node): while the node exists, its session is processing the item. The
// lockPath is in the clients' code, anywhere in the tree. zkx finds it:
//
//   - in a scan, by the names: a directory of ephemeral "queue-…" nodes
//     joins the queue holding items of the same names (the nearest, when
//     several do);
//   - beside a queue, by its name: <queue>-lock(s), <queue>_lock(s),
//     <queue>.lock(s), or a sibling named lock or locks holding only
//     "queue-…" names;
//   - from the lockPath itself: the sibling queue holding its items.
//
// A lockPath whose queue is not found is shown on its own, a queue of
// kind lock-path whose items are those in flight.

// lockPathNames are the names, after the queue's own, that zkx looks for
// beside a queue; lockPathShared those that name a lockPath whatever the
// queue's name.
var (
	lockPathNames  = []string{"-lock", "-locks", "_lock", "_locks", ".lock", ".locks"}
	lockPathShared = []string{"lock", "locks"}
)

// recLockPathSiblings bounds the siblings of a lockPath zkx looks at for
// its queue.
const recLockPathSiblings = 64

// inFlightDir is a lockPath read on its own: its nodes are items in
// flight, each with its consumer.
func (rc *recognizer) inFlightDir(ctx context.Context, d listedDir, ms []childNode, foreign []childName) (Recipe, error) {
	q := &Queue{Path: d.path, Format: recFormatCurator, Kind: QueueKindLockPath, Length: len(ms), Items: []QueueItem{}}
	b := rc.build(d.path)
	for _, m := range ms {
		q.Items = append(q.Items, inFlightItem(b, m))
	}
	b.warnf("items in flight of a Curator queue with guaranteed delivery (its lockPath): the queue holding items of these names was not found")
	b.checkForeign(foreign, "", "curator lockPath")
	b.judgeQueue(q)
	q.Warnings, q.Alarms = b.warn, b.alarms
	return q, nil
}

// inFlightItem is a lockPath node as the item it stands for.
func inFlightItem(b *recipeBuilder, m childNode) QueueItem {
	c := b.contender(m, m.Name)
	it := QueueItem{Node: m.Name, InFlight: true, Consumer: &c, Created: c.Created, AgeMs: c.AgeMs}
	if due, ok := curatorDelay(m.ID); ok {
		it.Due = due
	} else {
		it.ID = curatorID(m.ID)
	}
	return it
}

// findLockPath looks beside a Curator queue for its lockPath by name and,
// when one holds only "queue-…" names, marks the items it holds in
// flight.
func (rc *recognizer) findLockPath(ctx context.Context, b *recipeBuilder, q *Queue, h dirHint) error {
	if q.Path == "/" {
		return nil
	}
	parent, name := path.Dir(q.Path), path.Base(q.Path)
	siblings, err := rc.siblingsOf(ctx, q.Path, h)
	if err != nil {
		return err
	}
	var candidates []string
	for _, suffix := range lockPathNames {
		candidates = append(candidates, name+suffix)
	}
	candidates = append(candidates, lockPathShared...)
	for _, c := range candidates {
		if !containsSorted(siblings, c) {
			continue
		}
		dir := zkview.ChildPath(parent, c)
		children, stat, err := rc.list(ctx, dir)
		if err != nil {
			return err
		}
		names := newListedDir(dir, stat, children).names
		if stat == nil || !allCuratorItems(names) {
			continue
		}
		shared := containsString(lockPathShared, c)
		if shared && (len(names) == 0 || !holdsItems(q, names)) {
			continue // "locks" beside a queue may be anybody's: only its items say it is this queue's
		}
		ms, err := rc.readMembers(ctx, dir, names)
		if err != nil {
			return err
		}
		if !allEphemeral(ms) {
			continue
		}
		flight := make([]QueueItem, len(ms))
		for i, m := range ms {
			flight[i] = inFlightItem(b, m)
		}
		markInFlight(b, q, dir, flight)
		return nil
	}
	return nil
}

// allCuratorItems reports whether every name is a Curator queue item's.
func allCuratorItems(names []childName) bool {
	for _, n := range names {
		if n.Kind != kindCuratorQueue {
			return false
		}
	}
	return true
}

// holdsItems reports whether the queue holds an item of one of names.
func holdsItems(q *Queue, names []childName) bool {
	for _, n := range names {
		for _, it := range q.Items {
			if it.Node == n.Name {
				return true
			}
		}
	}
	return false
}

// markInFlight marks the items of q that flight names as in flight with
// their consumers, and says which it does not hold (processed and deleted
// a moment ago, or beyond the items read).
func markInFlight(b *recipeBuilder, q *Queue, lockPath string, flight []QueueItem) {
	q.LockPath = lockPath
	index := map[string]int{}
	for i, it := range q.Items {
		index[it.Node] = i
	}
	var missing []string
	for _, f := range flight {
		i, ok := index[f.Node]
		if !ok {
			missing = append(missing, f.Node)
			continue
		}
		q.Items[i].InFlight, q.Items[i].Consumer = true, f.Consumer
	}
	if len(missing) > 0 {
		b.warnf("in flight in %s but not among the items read: %s (processed and deleted a moment ago, or beyond the first %d)", lockPath, listShort(missing), recQueueItems)
	}
}

// queueOfLockPath finds, among a lockPath's siblings, the queue holding
// its items in flight, and returns it with them marked; nil when none
// does.
func (rc *recognizer) queueOfLockPath(ctx context.Context, lp *Queue) (*Queue, error) {
	if lp.Path == "/" || len(lp.Items) == 0 {
		return nil, nil
	}
	parent := path.Dir(lp.Path)
	siblings, _, err := rc.list(ctx, parent)
	if err != nil {
		return nil, err
	}
	// The siblings whose name the lockPath's extends first.
	base := path.Base(lp.Path)
	var first, rest []string
	for _, s := range siblings {
		switch {
		case s == base:
		case strings.HasPrefix(base, s):
			first = append(first, s)
		default:
			rest = append(rest, s)
		}
	}
	for i, s := range append(first, rest...) {
		if i == recLockPathSiblings {
			break
		}
		dir := zkview.ChildPath(parent, s)
		children, stat, err := rc.list(ctx, dir)
		if err != nil || stat == nil {
			return nil, err
		}
		if !containsAnyItem(children, lp.Items) {
			continue
		}
		r, err := rc.recognizeLayout(ctx, newListedDir(dir, stat, children), dirHint{})
		if err != nil {
			return nil, err
		}
		q, ok := r.(*Queue)
		if !ok || q.Kind == QueueKindLockPath {
			continue
		}
		if q.LockPath == "" {
			b := rc.build(q.Path)
			b.warn = q.Warnings
			markInFlight(b, q, lp.Path, lp.Items)
			q.Warnings = b.warn
			rc.rejudge(q)
		}
		tagByPath(q)
		return q, nil
	}
	return nil, nil
}

// containsAnyItem reports whether a listing holds one of the items.
func containsAnyItem(children []string, items []QueueItem) bool {
	set := make(map[string]bool, len(children))
	for _, c := range children {
		set[c] = true
	}
	for _, it := range items {
		if set[it.Node] {
			return true
		}
	}
	return false
}

// joinInFlight joins, after a scan, each lockPath found on its own to the
// queue holding its items (the one holding most of them, the nearest on a
// tie) and drops it from the list.
func (rc *recognizer) joinInFlight(res *Result) {
	kept := res.Queues[:0]
	var lockPaths []Queue
	for _, q := range res.Queues {
		if q.Kind == QueueKindLockPath {
			lockPaths = append(lockPaths, q)
		} else {
			kept = append(kept, q)
		}
	}
	res.Queues = kept
	for _, lp := range lockPaths {
		best, bestCount := -1, 0
		for i, q := range res.Queues {
			if q.LockPath != "" && q.LockPath != lp.Path {
				continue
			}
			n := 0
			for _, f := range lp.Items {
				for _, it := range q.Items {
					if it.Node == f.Node {
						n++
						break
					}
				}
			}
			if n > bestCount || (n == bestCount && n > 0 && commonPrefix(q.Path, lp.Path) > commonPrefix(res.Queues[best].Path, lp.Path)) {
				best, bestCount = i, n
			}
		}
		if best < 0 {
			res.Queues = append(res.Queues, lp)
			continue
		}
		q := &res.Queues[best]
		if q.LockPath == lp.Path {
			continue // found beside it by its name already
		}
		b := rc.build(q.Path)
		b.warn = q.Warnings
		markInFlight(b, q, lp.Path, lp.Items)
		q.Warnings = b.warn
		rc.rejudge(q)
	}
}

// commonPrefix is how many leading bytes a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
