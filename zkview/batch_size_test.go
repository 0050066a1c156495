package zkview

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zklimit"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// longNamedTree makes, under base, six nodes with 100,000-byte names,
// one whose path is as long as a create ZooKeeper takes allows (a
// multiRead of that node alone is larger than the server reads), and a
// node with a child; it returns every path, sorted.
func longNamedTree(t *testing.T, c *Client, base string) []string {
	t.Helper()
	conn := c.Conn()
	acl := zk.WorldACL(zk.PermAll)
	paths := []string{base, base + "/normal", base + "/normal/child"}
	for i := range 6 {
		paths = append(paths, fmt.Sprintf("%s/%d-%s", base, i, strings.Repeat("x", 100_000)))
	}
	// The longest create: header, path, empty data, one world:anyone ACL, flags.
	longest := zklimit.MaxRequest - (zklimit.RequestHeader + zklimit.CreateSize("", []byte("d"), acl))
	paths = append(paths, base+"/L"+strings.Repeat("y", longest-len(base)-2))
	sort.Strings(paths)
	for _, p := range paths {
		if _, err := conn.Create(p, []byte("d"), 0, acl); err != nil {
			t.Fatalf("create %.60s… (%d bytes): %v", p, len(p), err)
		}
	}
	return paths
}

// TestBatchedReadsFitTheServer: batched reads are sized by their bytes,
// not a count: names near ZooKeeper's path limit are listed — the
// longest, whose multiRead alone would be too large, through single
// requests — with nothing unreadable and no sibling lost.
func TestBatchedReadsFitTheServer(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := dialTest(t, connect)
		want := longNamedTree(t, c, base)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		r, err := c.DialBulk(ctx, 4)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, ok := r.(*Batch); !ok {
			t.Fatalf("DialBulk gave a %T, want a *Batch (multiRead)", r)
		}
		var got []string
		err = Walk(ctx, r, base, WalkOptions{Data: true}, func(n WalkNode) error {
			if n.Err != nil {
				t.Errorf("%.60s… (%d bytes): %v", n.Path, len(n.Path), n.Err)
			} else if string(n.Data) != "d" {
				t.Errorf("%.60s…: data %q", n.Path, n.Data)
			}
			got = append(got, n.Path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("walked %d nodes, want %d", len(got), len(want))
		}
	})
}

// TestBatchDroppedConnectionRetriedSingly: a server that closes the
// connection on a multiRead (one it found too large, say) has that
// batch's nodes read one at a time; a node whose own reads are dropped
// too is named with why — not as a permission it lacks — and the rest of
// the batch, and later batches, are read.
func TestBatchDroppedConnectionRetriedSingly(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dialTest(t, srv.ConnectString())
	base := zktest.Path(t)
	makeTree(t, c, base, "/a", "/b", "/b/kid", "/cursed", "/d")
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Op == jute.OpMultiRead && len(r.Paths) > 2 { // the batches, not the probe's
			return zkserver.DropBeforeApply
		}
		if r.Path == base+"/cursed" || len(r.Paths) > 0 && r.Paths[0] == base+"/cursed" {
			return zkserver.DropBeforeApply
		}
		return zkserver.Proceed
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := c.DialBulk(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := map[string]error{}
	if err := Walk(ctx, r, base, WalkOptions{}, func(n WalkNode) error { got[n.Path] = n.Err; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{base, base + "/a", base + "/b", base + "/b/kid", base + "/d"} {
		if err, ok := got[p]; !ok || err != nil {
			t.Errorf("%s: read %v, %v", p, ok, err)
		}
	}
	cursed := got[base+"/cursed"]
	if cursed == nil || IsNoAuth(cursed) || !strings.Contains(cursed.Error(), "closed the connection") {
		t.Errorf("the node whose reads are dropped: %v, want why (the connection closed), not a permission", cursed)
	}
}

// TestBatchACLsDroppedConnectionReadAlone: a server that closes the
// connection on one node's getACL fails the ACL reads sent with it in
// the same write; each is read again alone on a new connection, and
// only the node whose own read is dropped again carries an error.
func TestBatchACLsDroppedConnectionReadAlone(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dialTest(t, srv.ConnectString())
	base := zktest.Path(t)
	makeTree(t, c, base, "/a", "/b", "/cursed", "/d", "/e")
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Op == jute.OpGetACL && r.Path == base+"/cursed" {
			return zkserver.DropBeforeApply
		}
		return zkserver.Proceed
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := c.DialBatch(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	paths := []string{base + "/a", base + "/cursed", base + "/b", base + "/d", base + "/e"}
	got := b.ACLs(ctx, paths)
	for i, p := range paths {
		switch {
		case p == base+"/cursed":
			if got[i].Err == nil || IsNoAuth(got[i].Err) || !strings.Contains(got[i].Err.Error(), p) {
				t.Errorf("%s: %v, want the dropped connection, naming the node", p, got[i].Err)
			}
		case got[i].Err != nil || len(got[i].ACL) != 1 || got[i].ACL[0].Scheme != "world" || got[i].Stat == nil:
			t.Errorf("%s: %+v", p, got[i])
		}
	}
}
