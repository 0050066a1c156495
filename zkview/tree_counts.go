package zkview

import (
	"time"

	"github.com/go-zookeeper/zk"
)

// Live child counts of nodes a viewer shows but has not expanded (the
// collapsed rows on screen): each gets a children watch whose reply carries
// the stat, so a count changes on screen when the node's children do,
// without a watch on the whole tree.
const (
	// MaxCounted bounds the nodes counted at once (a screen's rows).
	MaxCounted = 256
	// CountedChildrenLimit is the most children a counted node may have:
	// every change re-lists them, so a bigger one is read once and not
	// followed (its count refreshes when its parent's children change).
	CountedChildrenLimit = 10000
	// showDelay is how long a path must stay shown before it is counted:
	// rows scrolled past leave no watches behind.
	showDelay = 250 * time.Millisecond
	// CountEvery is how often, at most, a counted node is read again while
	// its children keep changing: it is not on screen in full, a few reads
	// a second show its count moving.
	CountEvery = 500 * time.Millisecond
)

// Show keeps the stat (the child count) of paths current, replacing the
// previous set. A path is counted once it has been asked for without a
// break for showDelay: rows that only pass through the screen (scrolled
// past, or children that come and go under churn) cost nothing. Paths past
// MaxCounted are ignored; a path stops being followed once it has more
// than CountedChildrenLimit children, and the viewer should not pass one
// it knows to be bigger (the first read lists the children).
func (t *Tree) Show(paths []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(paths) > MaxCounted {
		paths = paths[:MaxCounted]
	}
	now := time.Now()
	want := make(map[string]time.Time, len(paths))
	for _, p := range paths {
		since, ok := t.wantCounted[p]
		if !ok {
			since = now
		}
		want[p] = since
	}
	t.wantCounted = want
	for p := range t.counted {
		if _, ok := want[p]; !ok {
			delete(t.counted, p) // its loader stops at its watch's next event
		}
	}
	t.scheduleCounts(now)
}

// scheduleCounts sets startCounts for when the first path asked for and
// not counted yet will have been asked for showDelay; the caller holds mu.
func (t *Tree) scheduleCounts(now time.Time) {
	if t.countPending {
		return
	}
	var first time.Time
	for p, since := range t.wantCounted {
		if _, ok := t.counted[p]; !ok && (first.IsZero() || since.Before(first)) {
			first = since
		}
	}
	if first.IsZero() {
		return
	}
	t.countPending = true
	time.AfterFunc(max(first.Add(showDelay).Sub(now), 0), t.startCounts)
}

// Counted reports whether path's child count is kept live.
func (t *Tree) Counted(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.counted[path]
	return ok
}

// startCounts starts following the paths asked for since showDelay at
// least, and schedules itself again for the others.
func (t *Tree) startCounts() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.countPending = false
	if t.ctx.Err() != nil {
		return
	}
	now := time.Now()
	for p, since := range t.wantCounted {
		if _, ok := t.counted[p]; ok || now.Sub(since) < showDelay {
			continue
		}
		t.gen++
		t.counted[p] = t.gen
		go t.loadCount(p, t.gen)
	}
	t.scheduleCounts(now)
}

// loadCount keeps path's stat current with a children watch; the names it
// reads are not kept.
func (t *Tree) loadCount(path string, gen int) {
	var last time.Time
	for t.current(t.counted, path, gen) {
		if !t.settle(last, CountEvery, nil) {
			return
		}
		last = time.Now()
		reconnected := t.nextConnect()
		_, stat, w, err := t.client.ChildrenW(t.ctx, path)
		if err != nil {
			if IsConnectionLoss(err) && t.awaitConnect(reconnected) {
				continue
			}
			// Gone or unreadable: no longer counted, so that showing it
			// again (a node gone and back) starts again, once it has been
			// shown for showDelay from now.
			t.mu.Lock()
			if t.currentLocked(t.counted, path, gen) {
				delete(t.counted, path)
				if _, ok := t.wantCounted[path]; ok {
					t.wantCounted[path] = time.Now()
				}
			}
			t.mu.Unlock()
			return
		}
		t.mu.Lock()
		if t.currentLocked(t.counted, path, gen) && stat != nil {
			n := t.node(path)
			if n.Stat == nil || changedStat(n.Stat, stat) {
				n.Stat = stat
				t.markDirty(path)
			}
		}
		t.mu.Unlock()
		if stat != nil && stat.NumChildren > CountedChildrenLimit {
			return // too many to re-list at each change
		}
		if !t.await(w) {
			return
		}
	}
}

// changedStat reports whether b is a later stat of the node than a.
func changedStat(a, b *zk.Stat) bool {
	return b.Pzxid != a.Pzxid || b.Mzxid != a.Mzxid || b.Czxid != a.Czxid || b.NumChildren != a.NumChildren
}
