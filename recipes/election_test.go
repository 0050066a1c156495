package recipes

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

var (
	curatorLatchName  = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-latch-\d{10}$`)
	kazooElectionName = regexp.MustCompile(`^[0-9a-f]{32}__lock__\d{10}$`)
)

// TestElectionOneLeader runs candidates with their own sessions through
// many leadership changes (each leader resigns, the next one leads): never
// two leaders at once, the leader's view agrees with ZooKeeper's, and
// fencing tokens grow from one leader to the next.
func TestElectionOneLeader(t *testing.T) {
	t.Parallel()
	for _, format := range []Format{Curator, Kazoo} {
		t.Run(format.String(), func(t *testing.T) {
			zktest.Each(t, func(t *testing.T, connect string) {
				dir := zktest.Path(t)
				const candidates, rounds = 5, 8
				var leading, violations atomic.Int32
				var mu sync.Mutex
				var tokens []Token
				var wg sync.WaitGroup
				for i := 0; i < candidates; i++ {
					s := dialTest(t, connect)
					id := fmt.Sprintf("candidate-%d", i)
					e := NewElection(s, dir, WithFormat(format), WithData([]byte(id)))
					wg.Add(1)
					go func() {
						defer wg.Done()
						ctx := testContext(t)
						for j := 0; j < rounds; j++ {
							if err := e.Campaign(ctx); err != nil {
								t.Error(err)
								return
							}
							if leading.Add(1) != 1 {
								violations.Add(1)
							}
							tok := e.Token()
							if !e.IsLeader() || e.Done() == nil {
								t.Errorf("%s won but IsLeader=%v Done=%v", id, e.IsLeader(), e.Done())
							}
							if info, err := e.Leader(ctx); err != nil || info.Path != tok.Path || info.Session != s.ID() ||
								info.Zxid != tok.Zxid || info.Seq != tok.Seq || string(info.Data) != id {
								t.Errorf("%s leads with %v, but Leader says %+v, %v", id, tok, info, err)
							}
							mu.Lock()
							tokens = append(tokens, tok)
							mu.Unlock()
							leading.Add(-1)
							if err := e.Resign(ctx); err != nil {
								t.Error(err)
								return
							}
							if e.IsLeader() || e.Token() != (Token{}) {
								t.Errorf("%s still leads after Resign", id)
							}
						}
					}()
				}
				wg.Wait()
				if violations.Load() != 0 {
					t.Fatalf("%d times two leaders", violations.Load())
				}
				if len(tokens) != candidates*rounds {
					t.Fatalf("%d leaderships, want %d", len(tokens), candidates*rounds)
				}
				for i := 1; i < len(tokens); i++ {
					// Zxid, not Seq: the container may empty, go and come
					// back between two leaderships, and its sequence with it.
					if tokens[i].Zxid <= tokens[i-1].Zxid {
						t.Fatalf("token %d (%v) not above token %d (%v)", i, tokens[i], i-1, tokens[i-1])
					}
				}
			})
		})
	}
}

// TestElectionLayout checks the nodes both formats write, their data and
// owner, the token, and that a resigned election leaves nothing behind.
func TestElectionLayout(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		for _, tc := range []struct {
			format Format
			name   *regexp.Regexp
		}{{Curator, curatorLatchName}, {Kazoo, kazooElectionName}} {
			s := dialTest(t, connect)
			dir := base + "/" + tc.format.String()
			e := NewElection(s, dir, WithFormat(tc.format))
			ctx := testContext(t)
			if err := e.Campaign(ctx); err != nil {
				t.Fatal(err)
			}
			c := children(t, s, dir)
			if len(c) != 1 || !tc.name.MatchString(c[0]) {
				t.Fatalf("%v layout: children %v", tc.format, c)
			}
			checkOwnNode(t, s, joinPath(dir, c[0]), e.Token(), "election")
			if err := e.Resign(ctx); err != nil {
				t.Fatal(err)
			}
			if c := children(t, s, dir); len(c) != 0 {
				t.Fatalf("%v: Resign left %v", tc.format, c)
			}
		}
	})
}

// TestElectionLeader reads the leader from a session that does not
// campaign: ErrNoLeader on a missing or empty election (nodes of other
// recipes do not count), else the leader's node, session and data.
func TestElectionLeader(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		probeSession := dialTest(t, connect)
		probe := NewElection(probeSession, dir)
		if _, err := probe.Leader(ctx); !errors.Is(err, ErrNoLeader) {
			t.Fatalf("Leader of a missing election: %v", err)
		}

		sa := dialTest(t, connect)
		a := NewElection(sa, dir, WithData([]byte("alpha")))
		if err := a.Campaign(ctx); err != nil {
			t.Fatal(err)
		}
		// Nodes of other shapes, with sequence numbers below a's: a Kazoo
		// lock, a Curator mutex and a name of no recipe.
		for _, name := range []string{
			"0123456789abcdef0123456789abcdef__lock__0000000000",
			"_c_00000000-0000-4000-8000-000000000000-lock-0000000000",
			"not-a-candidate",
		} {
			if _, err := probeSession.Conn().Create(joinPath(dir, name), []byte("foreign"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
		}
		sb := dialTest(t, connect)
		b := NewElection(sb, dir, WithData([]byte("beta")))
		gotB := make(chan error, 1)
		go func() { gotB <- b.Campaign(ctx) }()
		waitChildren(t, probeSession, dir, func(c []string) bool { return len(c) == 5 })

		check := func(who string, e *Election, s *Session, data string) {
			t.Helper()
			info, err := probe.Leader(ctx)
			tok := e.Token()
			if err != nil || info.Path != tok.Path || info.Session != s.ID() || string(info.Data) != data ||
				info.Seq != tok.Seq || info.Zxid != tok.Zxid {
				t.Fatalf("Leader while %s leads (%v): %+v, %v", who, tok, info, err)
			}
		}
		check("a", a, sa, "alpha")
		if err := a.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-gotB; err != nil {
			t.Fatal(err)
		}
		check("b", b, sb, "beta")
		if err := b.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := probe.Leader(ctx); !errors.Is(err, ErrNoLeader) {
			t.Fatalf("Leader with only foreign nodes: %v", err)
		}
	})
}

// TestElectionCancel: a cancelled campaign and a candidacy withdrawn by
// Resign leave no node (at once: the cleanup is done when they return),
// and the candidate behind a withdrawn one moves up.
func TestElectionCancel(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		sa := dialTest(t, connect)
		a := NewElection(sa, dir)
		if err := a.Resign(ctx); err != nil {
			t.Fatalf("Resign with nothing to give up: %v", err)
		}
		if err := a.Campaign(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Campaign(ctx); !errors.Is(err, ErrDeadlock) {
			t.Fatalf("Campaign while leading: %v", err)
		}
		aNode := a.Token().Path

		// Cancelled: the context ends while b waits behind a.
		b := NewElection(dialTest(t, connect), dir)
		cctx, cancel := context.WithCancel(ctx)
		got := make(chan error, 1)
		go func() { got <- b.Campaign(cctx) }()
		bNode := waitNewChild(t, sa, dir, aNode)
		waitWatched(t, connect, bNode, 1) // b's create has returned
		cancel()
		if err := <-got; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Campaign: %v", err)
		}
		if c := children(t, sa, dir); len(c) != 1 || joinPath(dir, c[0]) != aNode {
			t.Fatalf("a cancelled campaign left nodes: %v", c)
		}
		if b.IsLeader() || b.Token() != (Token{}) || b.Done() != nil {
			t.Fatal("a cancelled candidate looks like a leader")
		}

		// Withdrawn: Resign stops b's campaign; c, behind b, moves up.
		gotB := make(chan error, 1)
		go func() { gotB <- b.Campaign(ctx) }()
		bNode = waitNewChild(t, sa, dir, aNode)
		waitWatched(t, connect, bNode, 1)
		c := NewElection(dialTest(t, connect), dir)
		gotC := make(chan error, 1)
		go func() { gotC <- c.Campaign(ctx) }()
		waitWatched(t, connect, bNode, 2) // c waits for b
		if err := b.Resign(ctx); err != nil {
			t.Fatalf("Resign of a candidate: %v", err)
		}
		if err := <-gotB; !errors.Is(err, context.Canceled) || ctx.Err() != nil {
			t.Fatalf("withdrawn Campaign: %v", err)
		}
		if left := children(t, sa, dir); len(left) != 2 || joinPath(dir, left[0]) == bNode || joinPath(dir, left[1]) == bNode {
			t.Fatalf("a withdrawn candidacy left its node: %v", left)
		}
		if err := a.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-gotC; err != nil {
			t.Fatal(err)
		}
		if !c.IsLeader() {
			t.Fatal("c does not lead after a resigned")
		}
		if err := c.Resign(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestElectionObserve follows the leader through joins, resignations and
// an empty election. Each change is caused first, then received; and while
// only candidates join (no change of leader), the observer does no reads:
// it waits on a watch, it does not poll.
func TestElectionObserve(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		watcher := NewElection(dialTest(t, connect), dir)
		octx, stop := context.WithCancel(ctx)
		defer stop()
		leaders := watcher.Observe(octx)
		expect := func(what string, e *Election, s *Session, data string) {
			t.Helper()
			select {
			case info, ok := <-leaders:
				if !ok {
					t.Fatalf("Observe closed; want %s", what)
				}
				if e == nil {
					if info.Path != "" {
						t.Fatalf("Observe: %+v, want no leader", info)
					}
					return
				}
				tok := e.Token()
				if info.Path != tok.Path || info.Session != s.ID() || info.Zxid != tok.Zxid || string(info.Data) != data {
					t.Fatalf("Observe: %+v, want %s (%v)", info, what, tok)
				}
			case <-time.After(testTimeout):
				t.Fatalf("timed out waiting for Observe to report %s", what)
			}
		}
		candidate := func(id string) (*Election, *Session) {
			s := dialTest(t, connect)
			return NewElection(s, dir, WithData([]byte(id))), s
		}

		expect("no leader", nil, nil, "")
		a, sa := candidate("a")
		if err := a.Campaign(ctx); err != nil {
			t.Fatal(err)
		}
		expect("a", a, sa, "a")
		reads := watcher.opts.stats.Snapshot().Reads

		b, sb := candidate("b")
		gotB := make(chan error, 1)
		go func() { gotB <- b.Campaign(ctx) }()
		waitChildren(t, sa, dir, func(c []string) bool { return len(c) == 2 })
		c, sc := candidate("c")
		gotC := make(chan error, 1)
		go func() { gotC <- c.Campaign(ctx) }()
		// Settled: a, b and c watch their own nodes, b watches a, c
		// watches b, and the observer watches a.
		waitWatchers(t, connect, dir, 6)
		if got := watcher.opts.stats.Snapshot().Reads; got != reads {
			t.Fatalf("the observer read %d times while the leader stayed", got-reads)
		}

		if err := a.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-gotB; err != nil {
			t.Fatal(err)
		}
		expect("b", b, sb, "b")
		if err := b.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-gotC; err != nil {
			t.Fatal(err)
		}
		expect("c", c, sc, "c")
		if err := c.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		expect("no leader", nil, nil, "")
		d, sd := candidate("d")
		if err := d.Campaign(ctx); err != nil {
			t.Fatal(err)
		}
		expect("d", d, sd, "d")

		// A second observer, on a session that ends.
		so := dialTest(t, connect)
		lost := NewElection(so, dir).Observe(ctx)
		if info := <-lost; info.Path != d.Token().Path {
			t.Fatalf("second observer: %+v", info)
		}
		so.Close()
		waitDrained(t, "Observe after its session closed", lost)

		stop()
		waitDrained(t, "Observe after its context ended", leaders)
		if err := d.Resign(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestElectionNodeDeleted: an operator deletes the leader's node. The
// leader's Done closes, the next candidate leads, and the old leader may
// campaign again.
func TestElectionNodeDeleted(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		sa := dialTest(t, connect)
		a := NewElection(sa, dir)
		if err := a.Campaign(ctx); err != nil {
			t.Fatal(err)
		}
		b := NewElection(dialTest(t, connect), dir)
		gotB := make(chan error, 1)
		go func() { gotB <- b.Campaign(ctx) }()
		waitChildren(t, sa, dir, func(c []string) bool { return len(c) == 2 })
		operator := dialTest(t, connect)
		if err := operator.Conn().Delete(a.Token().Path, -1); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, "Done after a forced resignation", a.Done())
		if a.IsLeader() {
			t.Fatal("IsLeader after the node was deleted")
		}
		if err := <-gotB; err != nil {
			t.Fatal(err)
		}
		gotA := make(chan error, 1)
		go func() { gotA <- a.Campaign(ctx) }() // allowed: the last leadership is over
		waitChildren(t, sa, dir, func(c []string) bool { return len(c) == 2 })
		if err := b.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-gotA; err != nil {
			t.Fatalf("Campaign after a lost leadership: %v", err)
		}
		if err := a.Resign(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestElectionFaults injects what only the embedded server can produce on
// demand.
func TestElectionFaults(t *testing.T) {
	t.Parallel()
	t.Run("leader's session expires", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		sa := dialTest(t, srv.ConnectString())
		a := NewElection(sa, dir)
		if err := a.Campaign(ctx); err != nil {
			t.Fatal(err)
		}
		aToken := a.Token()
		sb := dialTest(t, srv.ConnectString())
		b := NewElection(sb, dir)
		gotB := make(chan error, 1)
		go func() { gotB <- b.Campaign(ctx) }()
		waitChildren(t, sa, dir, func(c []string) bool { return len(c) == 2 })
		done := a.Done()
		srv.ExpireSession(sa.ID())
		waitClosed(t, "the expired leader's Done", done)
		if a.IsLeader() {
			t.Fatal("IsLeader after the session expired")
		}
		if err := <-gotB; err != nil {
			t.Fatalf("the next candidate: %v", err)
		}
		if tok := b.Token(); tok.Zxid <= aToken.Zxid {
			t.Fatalf("new leader's token %v not above the old one's %v", tok, aToken)
		}
		info, err := NewElection(dialTest(t, srv.ConnectString()), dir).Leader(ctx)
		if err != nil || info.Session != sb.ID() {
			t.Fatalf("Leader after the expiry: %+v %v (b is 0x%x)", info, err, sb.ID())
		}
		if err := a.Resign(ctx); !errors.Is(err, ErrSessionLost) {
			t.Fatalf("Resign after expiry: %v", err)
		}
		if err := a.Campaign(ctx); !errors.Is(err, ErrSessionLost) {
			t.Fatalf("Campaign on a lost session: %v", err)
		}
	})

	t.Run("leader's connection dropped", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		states := make(chan SessionState, 16)
		sa := dialTest(t, srv.ConnectString(), WithStateListener(func(st SessionState) {
			select {
			case states <- st:
			default:
			}
		}))
		a := NewElection(sa, dir)
		if err := a.Campaign(ctx); err != nil {
			t.Fatal(err)
		}
		b := NewElection(dialTest(t, srv.ConnectString()), dir)
		gotB := make(chan error, 1)
		go func() { gotB <- b.Campaign(ctx) }()
		waitWatchers(t, srv.ConnectString(), dir, 3) // a's and b's own, b's on a
		// Wait, too, for a's client to set its watches again: go-zookeeper
		// reads its last zxid for that without a lock (go-zookeeper/zk#35),
		// which the race detector reports if a reply on the new connection
		// comes first.
		rewatched := make(chan struct{}, 1)
		srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
			if r.SessionID == sa.ID() && (r.Op == jute.OpSetWatches || r.Op == jute.OpSetWatches2) {
				select {
				case rewatched <- struct{}{}:
				default:
				}
			}
			return zkserver.Proceed
		})
		srv.DropConnection(sa.ID())
		for _, want := range []SessionState{Suspended, Connected} {
			select {
			case st := <-states:
				if st != want {
					t.Fatalf("session state %v, want %v", st, want)
				}
			case <-time.After(testTimeout):
				t.Fatalf("timed out waiting for the session to be %v", want)
			}
		}
		waitClosed(t, "a's watches to be set again", rewatched)
		select {
		case <-a.Done():
			t.Fatal("a dropped connection ended the leadership")
		default:
		}
		if !a.IsLeader() {
			t.Fatal("not leader once the connection is back")
		}
		if err := a.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-gotB; err != nil {
			t.Fatal(err)
		}
	})
}

// waitNewChild waits for a child of dir other than the one at path except,
// and returns its path.
func waitNewChild(t *testing.T, s *Session, dir, except string) string {
	t.Helper()
	var found string
	waitChildren(t, s, dir, func(c []string) bool {
		for _, name := range c {
			if joinPath(dir, name) != except {
				found = joinPath(dir, name)
				return true
			}
		}
		return false
	})
	return found
}

// waitDrained reads ch until it is closed, with the test's deadline.
func waitDrained(t *testing.T, what string, ch <-chan LeaderInfo) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s to close", what)
		}
	}
}
