package zkview

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// waitNode waits on the Tree's updates, with a deadline, until path's state
// satisfies cond.
func waitNode(t *testing.T, tr *Tree, path string, cond func(NodeState) bool) NodeState {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if n, ok := tr.Get(path); ok && cond(n) {
			return n
		}
		select {
		case <-tr.Updates():
		case <-deadline:
			n, _ := tr.Get(path)
			t.Fatalf("timed out waiting on %s; last state %+v", path, n)
		}
	}
}

func TestTreeFollowsChanges(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		makeTree(t, c, base, "/a")
		tr := NewTree(c, 10*time.Millisecond)
		defer tr.Close()
		tr.Expand(base)
		tr.Watch(base + "/a")
		waitNode(t, tr, base, func(n NodeState) bool { return n.ChildrenLoaded && slices.Equal(n.Children, []string{"a"}) })
		waitNode(t, tr, base+"/a", func(n NodeState) bool { return n.DataLoaded && string(n.Data) == "/a" })

		w, _ := c.Writer()
		ctx := context.Background()
		if _, err := w.Create(ctx, base+"/b", nil, zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		waitNode(t, tr, base, func(n NodeState) bool { return slices.Equal(n.Children, []string{"a", "b"}) })
		if _, err := w.Set(ctx, base+"/a", []byte("changed"), -1); err != nil {
			t.Fatal(err)
		}
		waitNode(t, tr, base+"/a", func(n NodeState) bool { return string(n.Data) == "changed" })
		if err := w.Delete(ctx, base+"/a", -1); err != nil {
			t.Fatal(err)
		}
		waitNode(t, tr, base+"/a", func(n NodeState) bool { return IsNoNode(n.Err) && !n.DataLoaded })
		waitNode(t, tr, base, func(n NodeState) bool { return slices.Equal(n.Children, []string{"b"}) })
		if _, err := w.Create(ctx, base+"/a", []byte("again"), zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		waitNode(t, tr, base+"/a", func(n NodeState) bool { return string(n.Data) == "again" })

		// A collapsed node is no longer followed: its next change is not read.
		tr.Collapse(base)
		if _, err := w.Create(ctx, base+"/c", nil, zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Create(ctx, base+"/d", nil, zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Set(ctx, base+"/a", []byte("sync"), -1); err != nil {
			t.Fatal(err)
		}
		waitNode(t, tr, base+"/a", func(n NodeState) bool { return string(n.Data) == "sync" })
		if n, _ := tr.Get(base); slices.Contains(n.Children, "d") {
			t.Fatalf("a collapsed node was re-read: %v", n.Children)
		}
	})
}

// TestTreeRefCounts: two viewers expand one path; the first to let go
// does not stop the other's updates.
func TestTreeRefCounts(t *testing.T) {
	t.Parallel()
	c := dialTest(t, zktest.Embedded(t))
	base := zktest.Path(t)
	makeTree(t, c, base, "/a")
	tr := NewTree(c, 10*time.Millisecond)
	defer tr.Close()
	tr.Expand(base)
	tr.Expand(base)
	tr.Watch(base + "/a")
	tr.Watch(base + "/a")
	waitNode(t, tr, base, func(n NodeState) bool { return n.ChildrenLoaded })
	waitNode(t, tr, base+"/a", func(n NodeState) bool { return n.DataLoaded })
	tr.Collapse(base)
	tr.Unwatch(base + "/a")
	w, _ := c.Writer()
	ctx := context.Background()
	if _, err := w.Create(ctx, base+"/b", nil, zk.FlagPersistent); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Set(ctx, base+"/a", []byte("still followed"), -1); err != nil {
		t.Fatal(err)
	}
	waitNode(t, tr, base, func(n NodeState) bool { return slices.Equal(n.Children, []string{"a", "b"}) })
	waitNode(t, tr, base+"/a", func(n NodeState) bool { return string(n.Data) == "still followed" })
}

// TestTreeRecoversAfterExpiry expires the viewer's session: the client opens
// a new one and the Tree reads everything again, watches included.
func TestTreeRecoversAfterExpiry(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dialTest(t, srv.ConnectString())
	base := zktest.Path(t)
	makeTree(t, c, base, "/a")
	tr := NewTree(c, 10*time.Millisecond)
	defer tr.Close()
	tr.Expand(base)
	waitNode(t, tr, base, func(n NodeState) bool { return n.ChildrenLoaded })
	events := c.Events()
	srv.ExpireSession(c.SessionID())
	for ev := range events {
		if ev.State == Connected && ev.NewSession {
			break
		}
	}
	w, _ := c.Writer()
	if _, err := w.Create(context.Background(), base+"/after", nil, zk.FlagPersistent); err != nil {
		t.Fatal(err)
	}
	waitNode(t, tr, base, func(n NodeState) bool { return slices.Contains(n.Children, "after") })
}

// TestTreeReadsAgainAfterReconnect drops the connection with the Tree's
// first listing (the request is not applied): once the client has
// reconnected, to the same session, the Tree lists again instead of
// showing the error for good. Data reads likewise.
func TestTreeReadsAgainAfterReconnect(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	// The address twice: go-zookeeper waits a second before it tries the
	// only address again.
	c := dialTest(t, srv.ConnectString()+","+srv.ConnectString())
	base := zktest.Path(t)
	makeTree(t, c, base, "/a")
	var droppedList, droppedGet atomic.Bool
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.SessionID != c.SessionID() || r.Path != base {
			return zkserver.Proceed
		}
		if r.Op == jute.OpGetChildren2 && droppedList.CompareAndSwap(false, true) ||
			r.Op == jute.OpGetData && droppedGet.CompareAndSwap(false, true) {
			return zkserver.DropBeforeApply
		}
		return zkserver.Proceed
	})
	session := c.SessionID()
	tr := NewTree(c, 10*time.Millisecond, TreeOneShot()) // the session's own reads
	defer tr.Close()
	tr.Expand(base)
	waitNode(t, tr, base, func(n NodeState) bool { return n.ChildrenLoaded && slices.Contains(n.Children, "a") })
	tr.Watch(base)
	waitNode(t, tr, base, func(n NodeState) bool { return n.DataLoaded && n.Err == nil })
	if !droppedList.Load() || !droppedGet.Load() {
		t.Fatal("the faults never fired")
	}
	if c.SessionID() != session {
		t.Fatal("a new session: this test is about a reconnection to the same one")
	}
}

func TestReadOnlyClientRefusesWrites(t *testing.T) {
	t.Parallel()
	c := dialTest(t, zktest.Embedded(t), WithReadOnly())
	if w, err := c.Writer(); w != nil || err != ErrReadOnly {
		t.Fatalf("read-only client handed out a writer: %v %v", w, err)
	}
}

// TestTreeShowKeepsCountsLive: a shown (not expanded) node's child count
// follows its children coming and going through the node's own children
// watch; once no longer shown, its count is not read again.
func TestTreeShowKeepsCountsLive(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		makeTree(t, c, base, "/dir", "/dir/a", "/other")
		dir := base + "/dir"
		tr := NewTree(c, 10*time.Millisecond)
		defer tr.Close()
		tr.Show([]string{dir})
		waitNode(t, tr, dir, func(n NodeState) bool { return n.Stat != nil && n.Stat.NumChildren == 1 })
		if !tr.Counted(dir) {
			t.Fatal("a shown node is not counted")
		}
		w, _ := c.Writer()
		ctx := context.Background()
		if _, err := w.Create(ctx, dir+"/b", nil, zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		waitNode(t, tr, dir, func(n NodeState) bool { return n.Stat != nil && n.Stat.NumChildren == 2 })
		if err := w.Delete(ctx, dir+"/a", -1); err != nil {
			t.Fatal(err)
		}
		waitNode(t, tr, dir, func(n NodeState) bool { return n.Stat != nil && n.Stat.NumChildren == 1 })
		if n, _ := tr.Get(dir); n.ChildrenLoaded || n.Children != nil {
			t.Fatalf("a counted node keeps no names: %+v", n)
		}

		// No longer shown: the next change is not read. Another shown node's
		// change, made after it, is the sign that the first would have been
		// seen by now.
		tr.Show([]string{base + "/other"})
		if tr.Counted(dir) {
			t.Fatal("a node no longer shown is still counted")
		}
		waitNode(t, tr, base+"/other", func(n NodeState) bool { return n.Stat != nil })
		if _, err := w.Create(ctx, dir+"/c", nil, zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Create(ctx, base+"/other/x", nil, zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		waitNode(t, tr, base+"/other", func(n NodeState) bool { return n.Stat.NumChildren == 1 })
		if n, _ := tr.Get(dir); n.Stat.NumChildren != 1 {
			t.Fatalf("a node no longer shown was read again: %d children", n.Stat.NumChildren)
		}
	})
}
