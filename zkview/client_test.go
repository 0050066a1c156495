package zkview

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestDialGoesToAMemberThatAnswers: the first member of the connect string
// accepts connections and never answers (as a member frozen with SIGSTOP
// does). The session goes to the member that answers without trying the
// frozen one first: no dial to it was ever recorded.
func TestDialGoesToAMemberThatAnswers(t *testing.T) {
	t.Parallel()
	frozen, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { frozen.Close() })
	live := zktest.EmbeddedServer(t, zkserver.Config{}).ConnectString()
	for range 3 { // Hosts would start from a random member without the ranking
		c := dialTest(t, frozen.Addr().String()+","+live, WithMemberTimeout(500*time.Millisecond))
		if c.Server() != live {
			t.Fatalf("connected to %s, want %s", c.Server(), live)
		}
		if p := c.dials.Progress(); len(p.Failed) > 0 {
			t.Fatalf("the frozen member was tried: %v", p.Failed)
		}
		c.Close()
	}
}

// TestSync: a sync through a client, a batch and a pool returns once the
// member has caught up, on the embedded server as on real ZooKeeper, for
// a path that exists and one that does not (ZooKeeper syncs the whole
// member).
func TestSync(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		base := zktest.Path(t)
		c := dialTest(t, connect)
		makeTree(t, c, base, "/x")
		bulk, err := DialBulk(ctx, connect, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer bulk.Close()
		pool, err := c.DialPool(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		for name, s := range map[string]Syncer{"client": c, "bulk": bulk.(Syncer), "pool": pool} {
			for _, p := range []string{base + "/x", base + "/missing"} {
				if err := s.Sync(ctx, p); err != nil {
					t.Errorf("%s: sync %s: %v", name, p, err)
				}
			}
			if s.Server() == "" {
				t.Errorf("%s: no member read through", name)
			}
		}
	})
}
