package zkserver_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

func gozkConnect(t *testing.T, connect string) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	conn, events, err := zk.Connect([]string{connect}, 5*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	waitState(t, events, zk.StateHasSession)
	return conn, events
}

func waitState(t *testing.T, events <-chan zk.Event, want zk.State) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Type == zk.EventSession && ev.State == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %v within 10s", want)
		}
	}
}

func waitEvent(t *testing.T, ch <-chan zk.Event) zk.Event {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
		return zk.Event{}
	}
}

// TestGoZookeeper exercises go-zookeeper v1.0.4 unchanged against both
// servers: CRUD, watches, multi and its lock recipe under contention.
func TestGoZookeeper(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		acl := zk.WorldACL(zk.PermAll)
		c, _ := gozkConnect(t, connect)
		if _, err := c.Create(base, []byte("b"), zk.FlagPersistent, acl); err != nil {
			t.Fatal(err)
		}
		data, stat, w, err := c.GetW(base)
		if err != nil || string(data) != "b" || stat.Version != 0 {
			t.Fatalf("GetW: %q %+v %v", data, stat, err)
		}
		if _, err := c.Set(base, []byte("c"), 0); err != nil {
			t.Fatal(err)
		}
		if ev := waitEvent(t, w); ev.Type != zk.EventNodeDataChanged || ev.Path != base {
			t.Fatalf("event %+v", ev)
		}
		if _, err := c.Set(base, []byte("d"), 0); !errors.Is(err, zk.ErrBadVersion) {
			t.Fatalf("stale Set: %v", err)
		}
		_, _, cw, err := c.ChildrenW(base)
		if err != nil {
			t.Fatal(err)
		}
		seq, err := c.Create(base+"/s-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
		if err != nil || seq != base+"/s-0000000000" {
			t.Fatalf("sequential create: %q %v", seq, err)
		}
		if ev := waitEvent(t, cw); ev.Type != zk.EventNodeChildrenChanged {
			t.Fatalf("event %+v", ev)
		}
		res, err := c.Multi(
			&zk.CreateRequest{Path: base + "/m", Data: []byte("m"), Acl: acl},
			&zk.SetDataRequest{Path: base + "/m", Data: []byte("n"), Version: 0},
			&zk.CheckVersionRequest{Path: base + "/m", Version: 1},
		)
		if err != nil || len(res) != 3 || res[0].String != base+"/m" {
			t.Fatalf("multi: %+v %v", res, err)
		}
		res, err = c.Multi(
			&zk.DeleteRequest{Path: base + "/m", Version: -1},
			&zk.CheckVersionRequest{Path: base + "/m", Version: 9},
		)
		if err == nil || len(res) != 2 || !errors.Is(res[1].Error, zk.ErrNoNode) {
			t.Fatalf("failing multi: %+v %v", res, err)
		}
		if ok, _, err := c.Exists(base + "/m"); !ok || err != nil {
			t.Fatalf("failed multi was applied: %v %v", ok, err)
		}

		// zk.Lock with three sessions: never two holders at once.
		lockPath := base + "/lock"
		var inside, violations, acquisitions atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			conn, _ := gozkConnect(t, connect)
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := zk.NewLock(conn, lockPath, acl)
				for j := 0; j < 50; j++ {
					if err := l.Lock(); err != nil {
						t.Error(err)
						return
					}
					if inside.Add(1) != 1 {
						violations.Add(1)
					}
					acquisitions.Add(1)
					inside.Add(-1)
					if err := l.Unlock(); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if violations.Load() != 0 || acquisitions.Load() != 150 {
			t.Fatalf("zk.Lock: %d acquisitions, %d violations", acquisitions.Load(), violations.Load())
		}
	})
}

// TestGoZookeeperSeesExpiry checks go-zookeeper learns that its session
// expired when the embedded server expires it (fault injection).
func TestGoZookeeperSeesExpiry(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c, events := gozkConnect(t, srv.ConnectString())
	if _, err := c.Create("/e", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if !srv.ExpireSession(c.SessionID()) {
		t.Fatal("no such session")
	}
	waitState(t, events, zk.StateExpired)
	waitState(t, events, zk.StateHasSession) // go-zookeeper starts a new session on its own
	if ok, _, err := c.Exists("/e"); ok || err != nil {
		t.Fatalf("ephemeral of the expired session: %v %v", ok, err)
	}
}
