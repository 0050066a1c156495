package zkview

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

func awaitWatchMode(t *testing.T, tr *Tree) {
	t.Helper()
	select {
	case <-tr.WatchModeKnown():
	case <-time.After(30 * time.Second):
		t.Fatal("the Tree never learnt how to watch")
	}
}

// TestTreePersistentWatch: where the server offers persistent watches the
// Tree follows with them; a burst written in one transaction (faster than
// anything can read) shows in the history as what changed and how many
// changes the server counted that were not seen apart — children that came
// and went, data versions skipped.
func TestTreePersistentWatch(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		node := base + "/n"
		makeTree(t, c, base, "/n")
		tr := NewTree(c, 10*time.Millisecond)
		defer tr.Close()
		awaitWatchMode(t, tr)
		if persistent, why := tr.WatchMode(); !persistent {
			t.Fatalf("one-shot on a 3.8 server: %v", why)
		}
		tr.Expand(node)
		tr.Watch(node)
		waitHistory(t, tr, node, func(h NodeHistory) bool { return !h.DataSince.IsZero() && !h.ChildrenSince.IsZero() })
		w, _ := c.Writer()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		bw, err := w.DialBulk(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer bw.Close()
		var ops []WriteOp
		for i := range 3 {
			p := fmt.Sprintf("%s/tmp%d", node, i)
			ops = append(ops, WriteOp{Kind: OpCreate, Path: p, ACL: zk.WorldACL(zk.PermAll)}, WriteOp{Kind: OpDelete, Path: p, Version: -1})
		}
		ops = append(ops, WriteOp{Kind: OpCreate, Path: node + "/kept", ACL: zk.WorldACL(zk.PermAll)})
		for i := 1; i <= 3; i++ {
			ops = append(ops, WriteOp{Kind: OpSetData, Path: node, Data: []byte(fmt.Sprint(i)), Version: -1})
		}
		if err := bw.Multi(ctx, ops); err != nil {
			t.Fatal(err)
		}
		h := waitHistory(t, tr, node, func(h NodeHistory) bool { return len(h.Entries) >= 2 })
		var data, kids *HistoryEntry
		for i := range h.Entries {
			switch h.Entries[i].Kind {
			case ChangeData:
				data = &h.Entries[i]
			case ChangeChildren:
				kids = &h.Entries[i]
			}
		}
		if data == nil || string(data.New) != "3" || data.Version != 3 || data.Unseen != 2 {
			t.Errorf("data: %s; want v3 with 2 changes not seen apart", describeHistory(h))
		}
		if kids == nil || !slices.Equal(kids.Added, []string{"kept"}) || kids.Unseen != 6 {
			t.Errorf("children: %s; want +kept with 6 changes not seen apart (3 children came and went)", describeHistory(h))
		}
	})
}

// TestTreeOneShotOnOlderServer: a server that answers addWatch as one
// before 3.6 leaves the Tree on one-shot watches, and it says why; it
// still follows changes.
func TestTreeOneShotOnOlderServer(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{UnknownOps: []jute.Op{jute.OpAddWatch}})
	c := dialTest(t, srv.ConnectString())
	base := zktest.Path(t)
	makeTree(t, c, base, "/a")
	tr := NewTree(c, 10*time.Millisecond)
	defer tr.Close()
	awaitWatchMode(t, tr)
	persistent, why := tr.WatchMode()
	if persistent || !errors.Is(why, ErrNoPersistentWatches) {
		t.Fatalf("mode on a 3.5-like server: %v %v", persistent, why)
	}
	tr.Expand(base)
	waitNode(t, tr, base, func(n NodeState) bool { return slices.Contains(n.Children, "a") })
	makeTree(t, c, base, "/b")
	waitNode(t, tr, base, func(n NodeState) bool { return slices.Contains(n.Children, "b") })
}

// TestTreeWatchSessionLost: when the persistent watch's session is
// dropped, the Tree goes on with one-shot watches and says so, until the
// client's next reconnection, which brings them back.
func TestTreeWatchSessionLost(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dialTest(t, srv.ConnectString())
	base := zktest.Path(t)
	makeTree(t, c, base, "/a")
	before := map[int64]bool{}
	for _, id := range srv.SessionIDs() {
		before[id] = true
	}
	tr := NewTree(c, 10*time.Millisecond)
	defer tr.Close()
	awaitWatchMode(t, tr)
	tr.Expand(base)
	waitNode(t, tr, base, func(n NodeState) bool { return slices.Contains(n.Children, "a") })
	for _, id := range srv.SessionIDs() {
		if !before[id] {
			srv.DropConnection(id)
		}
	}
	deadline := time.After(30 * time.Second)
	for {
		persistent, why := tr.WatchMode()
		if !persistent && why != nil && strings.Contains(why.Error(), "session ended") {
			break
		}
		select {
		case <-tr.Updates(): // the loaders read again, one-shot, once the session is gone
		case <-deadline:
			t.Fatalf("still %v %v after the watch session was dropped", persistent, why)
		}
	}
	makeTree(t, c, base, "/b")
	waitNode(t, tr, base, func(n NodeState) bool { return slices.Contains(n.Children, "b") })
	// The client's own connection drops and comes back: the Tree opens its
	// watch session again and reads everything again on it.
	srv.DropConnection(c.SessionID())
	for {
		if persistent, _ := tr.WatchMode(); persistent {
			break
		}
		select {
		case <-tr.Updates():
		case <-deadline:
			t.Fatal("persistent watches did not come back after the reconnection")
		}
	}
	makeTree(t, c, base, "/c")
	waitNode(t, tr, base, func(n NodeState) bool { return slices.Contains(n.Children, "c") })
}
