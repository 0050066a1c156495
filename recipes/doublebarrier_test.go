package recipes

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

var (
	curatorParticipantName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	kazooParticipantName   = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// TestDoubleBarrier runs participants with their own sessions through a
// double barrier: nobody passes Enter before all have called it, nobody
// returns from Leave before all have called it, and nothing is left.
func TestDoubleBarrier(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		const n = 5
		ctx := testContext(t)
		var arrived, passed, leaving atomic.Int32
		var wg sync.WaitGroup
		run := func(b *DoubleBarrier) {
			defer wg.Done()
			arrived.Add(1)
			if err := b.Enter(ctx); err != nil {
				t.Error(err)
				return
			}
			if a := arrived.Load(); a != n {
				t.Errorf("passed Enter with %d of %d arrived", a, n)
			}
			passed.Add(1)
			leaving.Add(1)
			if err := b.Leave(ctx); err != nil {
				t.Error(err)
				return
			}
			if l := leaving.Load(); l != n {
				t.Errorf("returned from Leave with %d of %d leaving", l, n)
			}
		}
		observer := dialTest(t, connect)
		// All but one enter and wait for the ready node.
		for i := 0; i < n-1; i++ {
			wg.Add(1)
			go run(NewDoubleBarrier(dialTest(t, connect), dir, n))
		}
		waitChildren(t, observer, dir, func(c []string) bool { return len(c) == n-1 })
		waitWatched(t, connect, dir+"/"+doubleBarrierReady, n-1)
		if p := passed.Load(); p != 0 {
			t.Fatalf("%d passed Enter with %d of %d in", p, n-1, n)
		}
		wg.Add(1)
		go run(NewDoubleBarrier(dialTest(t, connect), dir, n))
		wg.Wait()
		if p := passed.Load(); p != n {
			t.Fatalf("%d of %d passed", p, n)
		}
		barrierGone(t, observer, dir) // ready deleted, the container reaped
	})
}

// TestDoubleBarrierLayout checks the node names, owners and data in both
// formats: ephemeral participants named by a UUID (Curator) or 32 hex
// digits (Kazoo), and a persistent "ready" node.
func TestDoubleBarrierLayout(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		for _, tc := range []struct {
			format Format
			name   *regexp.Regexp
		}{{Curator, curatorParticipantName}, {Kazoo, kazooParticipantName}} {
			dir := base + "/" + tc.format.String()
			ctx := testContext(t)
			sessions := []*Session{dialTest(t, connect), dialTest(t, connect)}
			barriers := make([]*DoubleBarrier, 2)
			errs := make(chan error, 2)
			for i, s := range sessions {
				barriers[i] = NewDoubleBarrier(s, dir, 2, WithFormat(tc.format))
				go func(b *DoubleBarrier) { errs <- b.Enter(ctx) }(barriers[i])
			}
			for range barriers {
				if err := barrierResult(t, "Enter", errs); err != nil {
					t.Fatal(err)
				}
			}
			owners := map[int64]bool{}
			for _, c := range children(t, sessions[0], dir) {
				data, stat, err := sessions[0].Conn().Get(joinPath(dir, c))
				if err != nil || string(data) != string(ownerData()) {
					t.Fatalf("%s: %q %v", c, data, err)
				}
				switch {
				case c == doubleBarrierReady:
					if stat.EphemeralOwner != 0 {
						t.Fatalf("ready is ephemeral: %+v", stat)
					}
				case tc.name.MatchString(c):
					owners[stat.EphemeralOwner] = true
				default:
					t.Fatalf("%v layout: unexpected child %q", tc.format, c)
				}
			}
			if len(owners) != 2 || !owners[sessions[0].ID()] || !owners[sessions[1].ID()] {
				t.Fatalf("%v layout: participants owned by %v", tc.format, owners)
			}
			for _, b := range barriers {
				go func(b *DoubleBarrier) { errs <- b.Leave(ctx) }(b)
			}
			for range barriers {
				if err := barrierResult(t, "Leave", errs); err != nil {
					t.Fatal(err)
				}
			}
			barrierGone(t, sessions[0], dir)
		}
	})
}

// TestDoubleBarrierCuratorPeer shares a barrier of three with a peer that
// follows Curator's DistributedDoubleBarrier request by request: the peer
// waits for the ready node one of ours creates, and all leave.
func TestDoubleBarrierCuratorPeer(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		ours := []*DoubleBarrier{
			NewDoubleBarrier(dialTest(t, connect), dir, 3),
			NewDoubleBarrier(dialTest(t, connect), dir, 3),
		}
		errs := make(chan error, 3)
		go func() { errs <- ours[0].Enter(ctx) }()
		waitWatched(t, connect, dir+"/"+doubleBarrierReady, 1)

		peer := &curatorPeer{conn: dialTest(t, connect).Conn(), dir: dir, count: 3, name: newID(Curator)}
		if peer.enter(t) {
			t.Fatal("the peer passed Enter with two of three in")
		}
		go func() { errs <- ours[1].Enter(ctx) }()
		peer.awaitReady(t)
		for range ours {
			if err := barrierResult(t, "Enter", errs); err != nil {
				t.Fatal(err)
			}
		}

		for _, b := range ours {
			go func(b *DoubleBarrier) { errs <- b.Leave(ctx) }(b)
		}
		go func() { errs <- peer.leave() }()
		for i := 0; i < 3; i++ {
			if err := barrierResult(t, "Leave", errs); err != nil {
				t.Fatal(err)
			}
		}
		barrierGone(t, ours[0].session, dir)
	})
}

// TestDoubleBarrierEnterEnds checks the ways an Enter ends other than the
// barrier filling: a cancelled one removes its node and does not count,
// one on an expired session reports it, misuse is refused.
func TestDoubleBarrierEnterEnds(t *testing.T) {
	t.Parallel()
	t.Run("cancel", func(t *testing.T) {
		zktest.Each(t, func(t *testing.T, connect string) {
			dir := zktest.Path(t)
			ctx := testContext(t)
			s := dialTest(t, connect)
			a := NewDoubleBarrier(s, dir, 2)
			enterCtx, cancel := context.WithCancel(ctx)
			errs := make(chan error, 2)
			go func() { errs <- a.Enter(enterCtx) }()
			waitChildren(t, s, dir, func(c []string) bool { return len(c) == 1 })
			waitWatched(t, connect, dir+"/"+doubleBarrierReady, 1)
			cancel()
			if err := barrierResult(t, "a cancelled Enter", errs); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled Enter: %v", err)
			}
			waitChildren(t, s, dir, func(c []string) bool { return len(c) == 0 })
			if err := a.Leave(ctx); !errors.Is(err, ErrNotEntered) {
				t.Fatalf("Leave after a cancelled Enter: %v", err)
			}
			// The cancelled attempt does not count: two more are needed.
			b := NewDoubleBarrier(dialTest(t, connect), dir, 2)
			go func() { errs <- a.Enter(ctx) }()
			go func() { errs <- b.Enter(ctx) }()
			for i := 0; i < 2; i++ {
				if err := barrierResult(t, "Enter", errs); err != nil {
					t.Fatal(err)
				}
			}
			go func() { errs <- a.Leave(ctx) }()
			go func() { errs <- b.Leave(ctx) }()
			for i := 0; i < 2; i++ {
				if err := barrierResult(t, "Leave", errs); err != nil {
					t.Fatal(err)
				}
			}
		})
	})

	t.Run("misuse", func(t *testing.T) {
		connect := zktest.Embedded(t)
		ctx := testContext(t)
		s := dialTest(t, connect)
		if err := NewDoubleBarrier(s, zktest.Path(t), 0).Enter(ctx); err == nil {
			t.Fatal("Enter with a count of 0 succeeded")
		}
		b := NewDoubleBarrier(s, zktest.Path(t), 1)
		if err := b.Leave(ctx); !errors.Is(err, ErrNotEntered) {
			t.Fatalf("Leave before Enter: %v", err)
		}
		if err := b.Enter(ctx); err != nil {
			t.Fatalf("Enter with a count of 1: %v", err)
		}
		if err := b.Enter(ctx); err == nil {
			t.Fatal("a second Enter succeeded")
		}
		if err := b.Leave(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("session expiry", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, srv.ConnectString())
		errs := make(chan error, 1)
		go func() { errs <- NewDoubleBarrier(s, dir, 2).Enter(ctx) }()
		waitWatched(t, srv.ConnectString(), dir+"/"+doubleBarrierReady, 1)
		srv.ExpireSession(s.ID())
		if err := barrierResult(t, "Enter on an expired session", errs); !errors.Is(err, ErrSessionLost) {
			t.Fatalf("Enter on an expired session: %v", err)
		}
	})
}

// curatorPeer is a participant that makes the requests Curator's
// DistributedDoubleBarrier (5.x) makes, in the same order.
type curatorPeer struct {
	conn  *zk.Conn
	dir   string
	count int
	name  string
	ready <-chan zk.Event
}

// enter watches for ready, creates the peer's node (its parent as a
// container) and counts the children, creating ready when the count is
// reached. It reports whether the peer passed.
func (p *curatorPeer) enter(t *testing.T) bool {
	t.Helper()
	acl := zk.WorldACL(zk.PermAll)
	exists, _, ch, err := p.conn.ExistsW(p.dir + "/" + doubleBarrierReady)
	if err != nil {
		t.Fatal(err)
	}
	p.ready = ch
	if _, err := p.conn.CreateContainer(p.dir, nil, zk.FlagContainer, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	if _, err := p.conn.Create(p.dir+"/"+p.name, nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatal(err)
	}
	if exists {
		return true
	}
	c, _, err := p.conn.Children(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) < p.count {
		return false
	}
	if _, err := p.conn.Create(p.dir+"/"+doubleBarrierReady, nil, zk.FlagPersistent, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	return true
}

// awaitReady waits on the watch enter set.
func (p *curatorPeer) awaitReady(t *testing.T) {
	t.Helper()
	select {
	case ev := <-p.ready:
		if ev.Type != zk.EventNodeCreated {
			t.Fatalf("the peer's ready watch: %+v", ev)
		}
	case <-time.After(testTimeout):
		t.Fatal("timed out waiting for the peer's ready watch")
	}
}

// leave is Curator's internalLeave: over the children but ready, sorted,
// the lowest waits for the highest to go, the others delete their node and
// wait for the lowest; it stops when one node is left, then deletes ready.
func (p *curatorPeer) leave() error {
	shouldExist := true
	ours := p.dir + "/" + p.name
	for {
		c, _, err := p.conn.Children(p.dir)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		var nodes []string
		for _, n := range c {
			if n != doubleBarrierReady {
				nodes = append(nodes, n)
			}
		}
		sort.Strings(nodes)
		if len(nodes) == 0 {
			break
		}
		i := indexOfName(nodes, p.name)
		if i < 0 && shouldExist {
			return errors.New("the peer's node is missing")
		}
		if len(nodes) == 1 {
			if shouldExist {
				if err := p.conn.Delete(ours, -1); err != nil {
					return err
				}
			}
			break
		}
		watch := nodes[0]
		if i == 0 {
			watch = nodes[len(nodes)-1]
		}
		exists, _, ch, err := p.conn.ExistsW(p.dir + "/" + watch)
		if err != nil {
			return err
		}
		if i != 0 && shouldExist {
			if err := p.conn.Delete(ours, -1); err != nil {
				return err
			}
			shouldExist = false
		}
		if exists {
			select {
			case <-ch:
			case <-time.After(testTimeout):
				return errors.New("the peer timed out leaving")
			}
		}
	}
	if err := p.conn.Delete(p.dir+"/"+doubleBarrierReady, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	return nil
}
