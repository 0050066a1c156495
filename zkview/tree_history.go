package zkview

import "time"

// The Tree's history is bounded: each node keeps its last HistoryPerNode
// changes, with data cut to HistoryPreview bytes and child names to
// HistoryNames a change, and the Tree keeps the histories of at most
// HistoryNodes nodes, letting go of the one that changed least recently
// among those it no longer follows.
const (
	HistoryPerNode = 200
	HistoryNodes   = 500
	HistoryPreview = 256
	HistoryNames   = 50
)

// HistoryEntry is one change the Tree saw, as kept: Old and New hold at
// most HistoryPreview bytes, Added and Removed at most HistoryNames names.
type HistoryEntry struct {
	Change
	// HasData is false when the data was not read with the change (a
	// creation or deletion seen by a children watch only).
	HasData            bool
	OldSize, NewSize   int
	MoreAdded, MoreRem int // names left out of Added and Removed
	// Unseen counts the changes between the two reads this entry compares
	// that it does not show apart: the data version moved by more than one,
	// or the children's version by more than the names added and removed
	// (children that came and went). The server counts them; what they
	// held is gone.
	Unseen int
	// Changes is how many changes the entry stands for: those it shows
	// (one data change, or each name added and removed) and the Unseen.
	Changes int
}

// NodeHistory is what the Tree saw change of one node while it followed it.
type NodeHistory struct {
	Path    string
	Entries []HistoryEntry // oldest first
	Dropped int            // older entries let go (HistoryPerNode)
	// DroppedChanges is how many changes the dropped entries stood for.
	DroppedChanges int
	// DataSince and ChildrenSince are when the Tree began following the
	// node's data and children without a break; zero when it does not.
	DataSince, ChildrenSince time.Time
}

// historySide is which watch saw a change: data or children.
type historySide int

const (
	dataSide historySide = iota
	childrenSide
)

// nodeHistory is a node's kept changes and, per watch, the last state seen
// (the baseline the next read is compared with).
type nodeHistory struct {
	entries        []HistoryEntry
	dropped        int
	droppedChanges int
	last           time.Time // of the latest change or baseline, for eviction
	base           [2]Snapshot
	based          [2]bool
	since          [2]time.Time
}

// History returns what the Tree saw change of path.
func (t *Tree) History(path string) NodeHistory {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := NodeHistory{Path: path}
	h := t.hist[path]
	if h == nil {
		return out
	}
	out.Entries = append([]HistoryEntry(nil), h.entries...)
	out.Dropped, out.DroppedChanges = h.dropped, h.droppedChanges
	if h.based[dataSide] {
		out.DataSince = h.since[dataSide]
	}
	if h.based[childrenSide] {
		out.ChildrenSince = h.since[childrenSide]
	}
	return out
}

// record compares what a watch read of path with the last read of the same
// watch and keeps the changes; the first read is the baseline. The caller
// holds mu.
func (t *Tree) record(path string, side historySide, next Snapshot) {
	h := t.historyOf(path)
	now := t.now()
	prev, seen := h.base[side], h.based[side]
	h.base[side], h.based[side], h.last = next, true, now
	if !seen {
		h.since[side] = now
		return
	}
	changes := Diff(path, prev, next, now)
	unseen := unseenChanges(side, prev, next, changes)
	if unseen > 0 && len(changes) == 0 && side == childrenSide {
		// Children that came and went between two listings: no name
		// changed, the children's version says how many changes there were.
		changes = []Change{{Path: path, Kind: ChangeChildren, Zxid: next.Stat.Pzxid, Seen: now, Time: now}}
	}
	if side == childrenSide {
		for _, c := range changes {
			for _, name := range c.Removed {
				t.recordGone(ChildPath(path, name), now)
			}
		}
	}
	for i, c := range changes {
		if c.Kind == ChangeDeleted && prev.Stat != nil {
			if kept, known := h.deletionBefore(prev.Stat.Czxid); known {
				// The other watch saw this node deleted and created
				// again before this one read it: the deletion is kept.
				if kept != nil {
					kept.completeWith(newHistoryEntry(c, side == dataSide))
				}
				continue
			}
		}
		h.add(c, side == dataSide)
		if i == len(changes)-1 && unseen > 0 {
			last := &h.entries[len(h.entries)-1]
			last.Unseen = unseen
			last.Changes += unseen
		}
	}
}

// recordGone records, in the history of a child its parent's listing no
// longer has, its deletion, when its own watches still hold it as there:
// they are read at most once per ReadEvery, and the viewer may let go of
// it (its row went) before they read it gone. The caller holds mu.
func (t *Tree) recordGone(path string, now time.Time) {
	h := t.hist[path]
	if h == nil {
		return
	}
	for _, side := range []historySide{dataSide, childrenSide} {
		if !h.based[side] || !h.base[side].Exists {
			continue
		}
		for _, c := range Diff(path, h.base[side], Snapshot{}, now) {
			h.add(c, side == dataSide)
		}
		h.base[side], h.last = Snapshot{}, now
	}
}

// unseenChanges counts what the server's versions say changed between two
// reads beyond what Diff found: data versions skipped, children's
// versions beyond the names added and removed.
func unseenChanges(side historySide, prev, next Snapshot, changes []Change) int {
	if !prev.Exists || !next.Exists || prev.Stat == nil || next.Stat == nil || prev.Stat.Czxid != next.Stat.Czxid {
		return 0 // created or deleted in between: the versions start again
	}
	if side == dataSide {
		return max(int(next.Stat.Version-prev.Stat.Version)-1, 0)
	}
	named := 0
	for _, c := range changes {
		named += len(c.Added) + len(c.Removed)
	}
	return max(int(next.Stat.Cversion-prev.Stat.Cversion)-named, 0)
}

// forget drops path's baseline for one watch when nothing follows it any
// more: changes until it is followed again are not seen. The caller holds
// mu.
func (t *Tree) forget(path string, side historySide) {
	if h := t.hist[path]; h != nil {
		h.base[side], h.based[side] = Snapshot{}, false
	}
}

// historyOf returns path's history, making room for it. The caller holds mu.
func (t *Tree) historyOf(path string) *nodeHistory {
	if h := t.hist[path]; h != nil {
		return h
	}
	if len(t.hist) >= HistoryNodes {
		t.evictHistory()
	}
	h := &nodeHistory{}
	t.hist[path] = h
	return h
}

// evictHistory lets go of the history that changed least recently among
// the nodes no longer followed. While every kept node is followed, none
// goes: what is on screen keeps its history. The caller holds mu.
func (t *Tree) evictHistory() {
	victim := ""
	var oldest time.Time
	for p, h := range t.hist {
		if _, ok := t.expanded[p]; ok {
			continue
		}
		if _, ok := t.watched[p]; ok {
			continue
		}
		if victim == "" || h.last.Before(oldest) {
			victim, oldest = p, h.last
		}
	}
	if victim != "" {
		delete(t.hist, victim)
	}
}

// add keeps one change. Both watches see a node come and go: the second
// sighting of a creation or deletion completes the first (with the data,
// when the data watch saw it) instead of adding another.
func (h *nodeHistory) add(c Change, withData bool) {
	e := newHistoryEntry(c, withData)
	if prev := h.lastLifecycle(); prev != nil && prev.Kind == c.Kind &&
		(c.Kind == ChangeDeleted || prev.Zxid == c.Zxid) {
		prev.completeWith(e)
		return
	}
	h.entries = append(h.entries, e)
	if over := len(h.entries) - HistoryPerNode; over > 0 {
		for _, old := range h.entries[:over] {
			h.droppedChanges += old.Changes
		}
		h.entries = append(h.entries[:0], h.entries[over:]...)
		h.dropped += over
	}
}

func newHistoryEntry(c Change, withData bool) HistoryEntry {
	e := HistoryEntry{Change: c, HasData: withData, OldSize: len(c.Old), NewSize: len(c.New), Changes: 1}
	if c.Kind == ChangeChildren {
		e.Changes = len(c.Added) + len(c.Removed)
	}
	e.Old, e.New = cut(c.Old), cut(c.New)
	e.Added, e.MoreAdded = cutNames(c.Added)
	e.Removed, e.MoreRem = cutNames(c.Removed)
	return e
}

// completeWith gives e the data of another sighting of the same change,
// when only that one read it.
func (e *HistoryEntry) completeWith(other HistoryEntry) {
	if other.HasData && !e.HasData {
		e.HasData = true
		e.Old, e.New, e.OldSize, e.NewSize, e.Version = other.Old, other.New, other.OldSize, other.NewSize, other.Version
	}
}

// deletionBefore looks for a kept creation later than czxid (the node
// that incarnation was replaced by). known is whether there is one; the
// deletion kept before it, if any, is returned.
func (h *nodeHistory) deletionBefore(czxid int64) (deletion *HistoryEntry, known bool) {
	for i := range h.entries {
		switch e := &h.entries[i]; {
		case e.Kind == ChangeDeleted:
			deletion = e
		case e.Kind == ChangeCreated && e.Zxid > czxid:
			return deletion, true
		}
	}
	return nil, false
}

// lastLifecycle is the latest creation or deletion kept, if any.
func (h *nodeHistory) lastLifecycle() *HistoryEntry {
	for i := len(h.entries) - 1; i >= 0; i-- {
		if k := h.entries[i].Kind; k == ChangeCreated || k == ChangeDeleted {
			return &h.entries[i]
		}
	}
	return nil
}

func cut(b []byte) []byte {
	if len(b) > HistoryPreview {
		return append([]byte(nil), b[:HistoryPreview]...) // not the whole array
	}
	return b
}

func cutNames(names []string) ([]string, int) {
	if len(names) > HistoryNames {
		return append([]string(nil), names[:HistoryNames]...), len(names) - HistoryNames
	}
	return names, 0
}
