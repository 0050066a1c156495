package zkview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// walkLines walks root through r: one line per node with its stat's
// numChildren and owner, or its error.
func walkLines(t *testing.T, r Reader, root string) []string {
	t.Helper()
	var lines []string
	err := Walk(context.Background(), r, root, WalkOptions{Concurrency: 4}, func(n WalkNode) error {
		line := fmt.Sprintf("%d %s", n.Depth, strings.TrimPrefix(n.Path, root))
		switch {
		case n.Err != nil:
			line += " err:" + fmt.Sprint(IsNoAuth(n.Err))
		default:
			line += fmt.Sprintf(" children=%d owner=%v kids=%s", n.Stat.NumChildren, n.Stat.EphemeralOwner != 0, strings.Join(n.Children, ","))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// walkACLLines walks root through r reading ACLs: one line per node with
// its ACL, or why it could not be read.
func walkACLLines(t *testing.T, r Reader, root string) []string {
	t.Helper()
	var lines []string
	err := Walk(context.Background(), r, root, WalkOptions{Concurrency: 4, ACL: true}, func(n WalkNode) error {
		line := strings.TrimPrefix(n.Path, root)
		switch {
		case n.Err != nil:
			line += " unlisted"
		case n.ACLErr != nil:
			line += " acl-err:" + fmt.Sprint(IsNoAuth(n.ACLErr))
		default:
			for _, a := range n.ACL {
				line += fmt.Sprintf(" %s:%s:%d", a.Scheme, a.ID, a.Perms)
			}
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestBatchWalksAsTheClientDoes: a walk batched over multiRead gives what
// a walk of a request per node gives — order, children, stats, an
// unreadable node — under a chroot, with the client's credentials.
func TestBatchWalksAsTheClientDoes(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		admin := dialTest(t, connect)
		makeTree(t, admin, base, "/b", "/a", "/a/y", "/a/x", "/a/x/deep", "/c", "/wide")
		for i := range 70 { // more than a batch
			makeTree(t, admin, base, fmt.Sprintf("/wide/n%03d", i))
		}
		if _, err := admin.Conn().Create(base+"/secret", nil, zk.FlagPersistent, zk.DigestACL(zk.PermAll, "bob", "pw")); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Conn().Create(base+"/shared", nil, zk.FlagPersistent, zk.DigestACL(zk.PermAll, "alice", "pw")); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Conn().Create(base+"/a/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		// Chrooted at base, with alice's credentials.
		c := dialTest(t, connect+base, WithAuth("digest", []byte("alice:pw")))
		want := walkLines(t, c, "/")
		b, err := c.DialBatch(context.Background(), 2)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		got := walkLines(t, b, "/")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("batched walk:\n%s\nwant (a request per node):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if !strings.Contains(strings.Join(got, "\n"), "1 secret err:true") || strings.Contains(strings.Join(got, "\n"), "1 shared err") {
			t.Errorf("credentials not used by the batch:\n%s", strings.Join(got, "\n"))
		}
		// ACLs, read many to an exchange, each in its node's place.
		gotACLs, wantACLs := walkACLLines(t, b, "/"), walkACLLines(t, c, "/")
		if strings.Join(gotACLs, "\n") != strings.Join(wantACLs, "\n") {
			t.Errorf("batched walk's ACLs:\n%s\nwant (a request per node):\n%s", strings.Join(gotACLs, "\n"), strings.Join(wantACLs, "\n"))
		}
		if !strings.Contains(strings.Join(gotACLs, "\n"), "\nshared digest:alice:") {
			t.Errorf("alice's ACL not read:\n%s", strings.Join(gotACLs, "\n"))
		}
		if _, _, err := b.Get(context.Background(), "/missing"); !IsNoNode(err) {
			t.Errorf("Get of a missing node: %v", err)
		}
	})
}

// TestDialBulkFallsBack: a server that does not answer multiRead (before
// 3.6) is read node by node.
func TestDialBulkFallsBack(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{NoMultiRead: true})
	c := dialTest(t, srv.ConnectString())
	if _, err := c.DialBatch(context.Background(), 1); !errors.Is(err, ErrNoMultiRead) {
		t.Fatalf("DialBatch: %v, want ErrNoMultiRead", err)
	}
	r, err := c.DialBulk(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.(*Pool); !ok {
		t.Fatalf("DialBulk gave a %T, want a Pool", r)
	}
	if lines := walkLines(t, r, "/"); len(lines) < 2 {
		t.Errorf("walk through the fallback: %q", lines)
	}
}
