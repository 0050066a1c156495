package zkview

import (
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestDiffRecreated: a node deleted and created again between two reads
// (its Czxid moved) is a deletion and a creation, not a data change.
func TestDiffRecreated(t *testing.T) {
	t.Parallel()
	seen := time.Unix(1000, 0)
	prev := Snapshot{Exists: true, HasData: true, Data: []byte("v2"), Stat: &zk.Stat{Czxid: 5, Mzxid: 7, Version: 1}}
	next := Snapshot{Exists: true, HasData: true, Data: []byte("mine"), Stat: &zk.Stat{Czxid: 9, Mzxid: 9, EphemeralOwner: 0x1234}}
	got := Diff("/n", prev, next, seen)
	if len(got) != 2 || got[0].Kind != ChangeDeleted || string(got[0].Old) != "v2" ||
		got[1].Kind != ChangeCreated || got[1].Zxid != 9 || string(got[1].New) != "mine" || got[1].Owner != 0x1234 {
		t.Fatalf("re-created between reads: %+v", got)
	}
	// The same node changed in place stays a data change.
	next.Stat = &zk.Stat{Czxid: 5, Mzxid: 9, Version: 2}
	if got := Diff("/n", prev, next, seen); len(got) != 1 || got[0].Kind != ChangeData {
		t.Fatalf("changed in place: %+v", got)
	}
}

// TestHistoryRecreatedSeenByBothWatches: a node followed for its data and
// its children is deleted and created again. The children watch reads in
// between (it sees the deletion, then the creation); the data watch reads
// only after (it sees both at once). Whichever records first, the history
// keeps one deletion and one creation, with the data.
func TestHistoryRecreatedSeenByBothWatches(t *testing.T) {
	t.Parallel()
	old := &zk.Stat{Czxid: 5, Mzxid: 7, Pzxid: 5, Version: 1}
	again := &zk.Stat{Czxid: 9, Mzxid: 9, Pzxid: 9, EphemeralOwner: 0x1234}
	children := []func(tr *Tree){
		func(tr *Tree) { tr.record("/n", childrenSide, Snapshot{}) },
		func(tr *Tree) {
			tr.record("/n", childrenSide, Snapshot{Exists: true, Stat: again, HasChildren: true})
		},
	}
	data := func(tr *Tree) {
		tr.record("/n", dataSide, Snapshot{Exists: true, HasData: true, Data: []byte("mine"), Stat: again})
	}
	orders := map[string][]func(tr *Tree){
		"children first":        {children[0], children[1], data},
		"data between":          {children[0], data, children[1]},
		"data first, then both": {data, children[0], children[1]},
	}
	for name, steps := range orders {
		t.Run(name, func(t *testing.T) {
			tick := time.Unix(1000, 0)
			tr := &Tree{hist: map[string]*nodeHistory{}, expanded: map[string]int{"/n": 1}, watched: map[string]int{"/n": 1},
				now: func() time.Time { tick = tick.Add(time.Second); return tick }}
			tr.record("/n", dataSide, Snapshot{Exists: true, HasData: true, Data: []byte("v2"), Stat: old})
			tr.record("/n", childrenSide, Snapshot{Exists: true, Stat: old, HasChildren: true})
			for _, step := range steps {
				step(tr)
			}
			h := tr.History("/n")
			if !slices.Equal(kinds(h), []ChangeKind{ChangeDeleted, ChangeCreated}) {
				t.Fatalf("want one deletion and one creation: %s", describeHistory(h))
			}
			if c := h.Entries[1]; !c.HasData || string(c.New) != "mine" || c.Zxid != 9 || c.Owner != 0x1234 {
				t.Errorf("the creation should hold the data and its owner: %s", describeHistory(h))
			}
			if d := h.Entries[0]; !d.HasData || string(d.Old) != "v2" {
				t.Errorf("the deletion should hold the old data: %s", describeHistory(h))
			}
		})
	}
}
