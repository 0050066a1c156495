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
)

// Show keeps the stat (the child count) of paths current, replacing the
// previous set. Paths past MaxCounted are ignored; a path stops being
// followed once it has more than CountedChildrenLimit children, and the
// viewer should not pass one it knows to be bigger (the first read lists
// the children).
func (t *Tree) Show(paths []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(paths) > MaxCounted {
		paths = paths[:MaxCounted]
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	t.wantCounted = want
	for p := range t.counted {
		if !want[p] {
			delete(t.counted, p) // its loader stops at its watch's next event
		}
	}
	for p := range want {
		if _, ok := t.counted[p]; !ok && !t.countPending {
			t.countPending = true
			time.AfterFunc(showDelay, t.startCounts)
			break
		}
	}
}

// Counted reports whether path's child count is kept live.
func (t *Tree) Counted(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.counted[path]
	return ok
}

// startCounts starts following the paths still shown after showDelay.
func (t *Tree) startCounts() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.countPending = false
	if t.ctx.Err() != nil {
		return
	}
	for p := range t.wantCounted {
		if _, ok := t.counted[p]; ok {
			continue
		}
		t.gen++
		t.counted[p] = t.gen
		go t.loadCount(p, t.gen)
	}
}

// loadCount keeps path's stat current with a children watch; the names it
// reads are not kept.
func (t *Tree) loadCount(path string, gen int) {
	for t.current(t.counted, path, gen) {
		reconnected := t.nextConnect()
		_, stat, w, err := t.client.ChildrenW(t.ctx, path)
		if err != nil {
			if IsConnectionLoss(err) && t.awaitConnect(reconnected) {
				continue
			}
			// Gone or unreadable: no longer counted, so that showing it
			// again (a node gone and back) starts again.
			t.mu.Lock()
			if t.currentLocked(t.counted, path, gen) {
				delete(t.counted, path)
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
