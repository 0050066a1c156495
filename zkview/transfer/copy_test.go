package transfer

import (
	"context"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
)

// changingReader changes a node's data right after reading it, as
// another client might between a move's copy and its delete.
type changingReader struct {
	zkview.Reader
	conn   *zk.Conn
	target string
}

func (r changingReader) Children(ctx context.Context, p string) ([]string, *zk.Stat, error) {
	children, st, err := r.Reader.Children(ctx, p)
	if p == r.target {
		if _, err := r.conn.Set(p, []byte("changed meanwhile"), -1); err != nil {
			panic(err)
		}
	}
	return children, st, err
}

func (r changingReader) ACL(ctx context.Context, p string) ([]zk.ACL, *zk.Stat, error) {
	return r.Reader.(zkview.ACLReader).ACL(ctx, p)
}

func TestMove(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c, bw := dial(t, connect)
		base := zktest.Path(t)
		conn := c.Conn()
		open := zk.WorldACL(zk.PermAll)
		for _, p := range []string{"", "/a", "/a/x", "/a/x/y", "/a/z", "/b"} {
			if _, err := conn.Create(base+p, []byte(p), zk.FlagPersistent, open); err != nil {
				t.Fatal(err)
			}
		}
		before := dump(t, c, base+"/a")
		ctx := context.Background()
		if err := CheckDestination(base+"/a", base+"/a/x/copy"); err == nil {
			t.Fatal("a move into itself was accepted")
		}
		rep, err := Move(ctx, c, bw, base+"/a", base+"/moved", CopyOptions{})
		if err != nil || rep.Kept != "" || rep.Deleted != 4 || rep.Copy.Created != 4 {
			t.Fatalf("move: %+v %v", rep, err)
		}
		if ok, _, _ := conn.Exists(base + "/a"); ok {
			t.Fatal("the source is still there")
		}
		if got := dump(t, c, base+"/moved"); got != before {
			t.Fatalf("moved tree\n%s\nwant\n%s", got, before)
		}
		// A node changed after it was read is kept, and so is what is
		// above it; the copy is complete.
		rep, err = Move(ctx, changingReader{c, conn, base + "/moved/x/y"}, bw, base+"/moved", base+"/again", CopyOptions{})
		if err != nil || !strings.Contains(rep.Kept, "/moved/x/y changed after it was copied") {
			t.Fatalf("move of a changing tree: %+v %v", rep, err)
		}
		if d, _, err := conn.Get(base + "/moved/x/y"); err != nil || string(d) != "changed meanwhile" {
			t.Fatalf("the changed node: %q %v", d, err)
		}
		// Into an existing destination: nothing is deleted.
		rep, err = Move(ctx, c, bw, base+"/moved", base+"/again", CopyOptions{ImportOptions: ImportOptions{Existing: Skip}})
		if err != nil || rep.Deleted != 0 || rep.Kept == "" {
			t.Fatalf("move onto a copy: %+v %v", rep, err)
		}
		// Ephemerals: kept unless forced.
		if _, err := conn.Create(base+"/b/eph", nil, zk.FlagEphemeral, open); err != nil {
			t.Fatal(err)
		}
		if s, err := SurveyTree(ctx, c, base+"/b"); err != nil || s.Nodes != 2 || s.Ephemeral != 1 {
			t.Fatalf("survey %+v %v", s, err)
		}
		rep, err = Move(ctx, c, bw, base+"/b", base+"/b2", CopyOptions{})
		if err != nil || rep.Deleted != 0 || !strings.Contains(rep.Kept, "ephemeral") {
			t.Fatalf("move with an ephemeral: %+v %v", rep, err)
		}
		rep, err = Move(ctx, c, bw, base+"/b", base+"/b3", CopyOptions{Force: true})
		if err != nil || rep.Deleted != 2 || rep.Kept != "" {
			t.Fatalf("forced move with an ephemeral: %+v %v", rep, err)
		}
	})
}
