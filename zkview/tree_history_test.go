package zkview

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// waitHistory waits on the Tree's updates, with a deadline, until path's
// history satisfies cond.
func waitHistory(t *testing.T, tr *Tree, path string, cond func(NodeHistory) bool) NodeHistory {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if h := tr.History(path); cond(h) {
			return h
		}
		select {
		case <-tr.Updates():
		case <-deadline:
			t.Fatalf("timed out waiting on the history of %s; it holds %s", path, describeHistory(tr.History(path)))
		}
	}
}

func describeHistory(h NodeHistory) string {
	var parts []string
	for _, e := range h.Entries {
		parts = append(parts, fmt.Sprintf("%s(zxid %#x old %q new %q +%v -%v owner %#x data %v)", e.Kind, e.Zxid, e.Old, e.New, e.Added, e.Removed, e.Owner, e.HasData))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func kinds(h NodeHistory) []ChangeKind {
	var out []ChangeKind
	for _, e := range h.Entries {
		out = append(out, e.Kind)
	}
	return out
}

// TestTreeHistory: a node both watched (data) and expanded (children)
// keeps one timeline: data changes old → new with the server's zxids,
// children added and removed, and its deletion and re-creation as an
// ephemeral once each, the creation naming its owner's session.
func TestTreeHistory(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		node := base + "/n"
		makeTree(t, c, base, "/n")
		tr := NewTree(c, 10*time.Millisecond)
		defer tr.Close()
		tr.Watch(node)
		tr.Expand(node)
		h := waitHistory(t, tr, node, func(h NodeHistory) bool { return !h.DataSince.IsZero() && !h.ChildrenSince.IsZero() })
		if len(h.Entries) != 0 {
			t.Fatalf("the first reads are the baseline, not changes: %s", describeHistory(h))
		}

		w, _ := c.Writer()
		ctx := context.Background()
		st, err := w.Set(ctx, node, []byte("v2"), -1)
		if err != nil {
			t.Fatal(err)
		}
		h = waitHistory(t, tr, node, func(h NodeHistory) bool { return len(h.Entries) >= 1 })
		if e := h.Entries[0]; e.Kind != ChangeData || string(e.Old) != "/n" || string(e.New) != "v2" || e.Zxid != st.Mzxid || e.Version != 1 || e.OldSize != 2 {
			t.Fatalf("data change: %s (set at zxid %#x)", describeHistory(h), st.Mzxid)
		}
		if _, err := w.Create(ctx, node+"/kid", nil, zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		h = waitHistory(t, tr, node, func(h NodeHistory) bool { return len(h.Entries) >= 2 })
		if e := h.Entries[1]; e.Kind != ChangeChildren || !slices.Equal(e.Added, []string{"kid"}) || e.Zxid == 0 {
			t.Fatalf("children change: %s", describeHistory(h))
		}
		if err := w.DeleteRecursive(ctx, node); err != nil {
			t.Fatal(err)
		}
		h = waitHistory(t, tr, node, func(h NodeHistory) bool { return slices.Contains(kinds(h), ChangeDeleted) })

		owner := zktest.Conn(t, connect)
		if _, err := owner.Create(node, []byte("mine"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		h = waitHistory(t, tr, node, func(h NodeHistory) bool {
			k := kinds(h)
			return len(k) > 0 && k[len(k)-1] == ChangeCreated && h.Entries[len(k)-1].HasData
		})
		// Both watches saw the deletion and the creation: each is kept once.
		var deleted, created int
		for _, e := range h.Entries {
			switch e.Kind {
			case ChangeDeleted:
				deleted++
			case ChangeCreated:
				created++
				if e.Owner != owner.SessionID() || string(e.New) != "mine" {
					t.Fatalf("creation should name session %#x and hold the data: %s", owner.SessionID(), describeHistory(h))
				}
			}
		}
		if deleted != 1 || created != 1 {
			t.Fatalf("want one deletion and one creation: %s", describeHistory(h))
		}

		// Let go of both watches: the history stays, the baseline goes.
		tr.Unwatch(node)
		tr.Collapse(node)
		if h := tr.History(node); !h.DataSince.IsZero() || !h.ChildrenSince.IsZero() || len(h.Entries) == 0 {
			t.Fatalf("after letting go: since %v/%v, %d entries", h.DataSince, h.ChildrenSince, len(h.Entries))
		}
	})
}

// TestHistoryBounds: a node keeps its last HistoryPerNode changes with
// data cut to a preview, and the Tree lets go of the least recently
// changed history it no longer follows, never one it follows.
func TestHistoryBounds(t *testing.T) {
	t.Parallel()
	h := &nodeHistory{}
	big := make([]byte, 10*HistoryPreview)
	for i := 0; i < HistoryPerNode+7; i++ {
		h.add(Change{Kind: ChangeData, Zxid: int64(i + 1), Old: big, New: big[:3]}, true)
	}
	if len(h.entries) != HistoryPerNode || h.dropped != 7 || h.entries[0].Zxid != 8 {
		t.Fatalf("kept %d, dropped %d, oldest zxid %d", len(h.entries), h.dropped, h.entries[0].Zxid)
	}
	if e := h.entries[0]; len(e.Old) != HistoryPreview || e.OldSize != len(big) || e.NewSize != 3 {
		t.Fatalf("preview %d bytes of %d", len(e.Old), e.OldSize)
	}
	names := make([]string, HistoryNames+5)
	for i := range names {
		names[i] = fmt.Sprint(i)
	}
	h.add(Change{Kind: ChangeChildren, Added: names}, false)
	if e := h.entries[len(h.entries)-1]; len(e.Added) != HistoryNames || e.MoreAdded != 5 {
		t.Fatalf("names kept %d, more %d", len(e.Added), e.MoreAdded)
	}

	start := time.Unix(1000, 0)
	tick := start
	tr := &Tree{hist: map[string]*nodeHistory{}, expanded: map[string]int{}, watched: map[string]int{},
		now: func() time.Time { tick = tick.Add(time.Second); return tick }}
	tr.watched["/followed"] = 1
	tr.record("/followed", dataSide, Snapshot{Exists: true, HasData: true})
	for i := 0; i < HistoryNodes+10; i++ {
		tr.record(fmt.Sprintf("/n%d", i), dataSide, Snapshot{Exists: true, HasData: true})
	}
	if len(tr.hist) != HistoryNodes {
		t.Fatalf("%d histories kept, want %d", len(tr.hist), HistoryNodes)
	}
	if tr.hist["/followed"] == nil {
		t.Fatal("a followed node's history was let go")
	}
	if tr.hist["/n0"] != nil || tr.hist[fmt.Sprintf("/n%d", HistoryNodes+9)] == nil {
		t.Fatal("the least recently changed histories should go first")
	}
}
