package recipes

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestMutexExclusion runs contenders with their own sessions on one lock:
// never two inside, and fencing tokens grow in the order of entry.
func TestMutexExclusion(t *testing.T) {
	t.Parallel()
	for _, strategy := range []lockstats.Strategy{lockstats.Chain, lockstats.Herd, lockstats.Spin} {
		t.Run(strategy.String(), func(t *testing.T) {
			zktest.Each(t, func(t *testing.T, connect string) {
				dir := zktest.Path(t)
				const contenders, rounds = 6, 25
				var inside, violations atomic.Int32
				var mu sync.Mutex
				var tokens []Token
				var wg sync.WaitGroup
				stats := lockstats.NewStats()
				for i := 0; i < contenders; i++ {
					m := NewMutex(dialTest(t, connect), dir, withInstruments(lockstats.Instruments{Strategy: strategy, Stats: stats, PollInterval: time.Millisecond}))
					wg.Add(1)
					go func() {
						defer wg.Done()
						ctx := testContext(t)
						for j := 0; j < rounds; j++ {
							if err := m.Lock(ctx); err != nil {
								t.Error(err)
								return
							}
							if inside.Add(1) != 1 {
								violations.Add(1)
							}
							mu.Lock()
							tokens = append(tokens, m.Token())
							mu.Unlock()
							inside.Add(-1)
							if err := m.Unlock(ctx); err != nil {
								t.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				if violations.Load() != 0 {
					t.Fatalf("%d violations", violations.Load())
				}
				if len(tokens) != contenders*rounds {
					t.Fatalf("%d acquisitions, want %d", len(tokens), contenders*rounds)
				}
				for i := 1; i < len(tokens); i++ {
					if tokens[i].Zxid <= tokens[i-1].Zxid {
						t.Fatalf("token %d (%v) not above token %d (%v)", i, tokens[i], i-1, tokens[i-1])
					}
				}
				if got := stats.Snapshot().Acquisitions; got != contenders*rounds {
					t.Fatalf("stats count %d acquisitions, want %d", got, contenders*rounds)
				}
			})
		})
	}
}

var (
	curatorName = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\d{10}$`)
	kazooName   = regexp.MustCompile(`^[0-9a-f]{32}__lock__\d{10}$`)
)

// TestMutexLayout checks the node names and data each format writes, and
// the lock directory's kind: a container for Curator (the server removes it
// once empty), a persistent node for Kazoo, which assumes its directory stays.
func TestMutexLayout(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		for _, tc := range []struct {
			format Format
			name   *regexp.Regexp
		}{{Kazoo, kazooName}, {Curator, curatorName}} {
			s := dialTest(t, connect)
			dir := base + "/" + tc.format.String()
			m := NewMutex(s, dir, WithFormat(tc.format))
			ctx := testContext(t)
			if err := m.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			c := children(t, s, dir)
			if len(c) != 1 || !tc.name.MatchString(c[0]) {
				t.Fatalf("%v layout: children %v", tc.format, c)
			}
			checkOwnNode(t, s, joinPath(dir, c[0]), m.Token(), "lock")
			if err := m.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// The Kazoo directory emptied first; once the server has removed the
		// Curator container, a container there would be gone too.
		s := dialTest(t, connect)
		left := waitChildren(t, s, base, func(c []string) bool {
			for _, name := range c {
				if name == "curator" {
					return false
				}
			}
			return true
		})
		if len(left) != 1 || left[0] != "kazoo" {
			t.Fatalf("after both released: %v, want the Kazoo directory alone", left)
		}
	})
}

func TestMutexTryLockAndCancel(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		a := NewMutex(dialTest(t, connect), dir)
		if err := a.TryLock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Lock(ctx); !errors.Is(err, ErrDeadlock) {
			t.Fatalf("second Lock on a held Mutex: %v", err)
		}
		sb := dialTest(t, connect)
		b := NewMutex(sb, dir)
		if err := b.TryLock(ctx); !errors.Is(err, ErrLocked) {
			t.Fatalf("TryLock while held: %v", err)
		}
		if c := children(t, sb, dir); len(c) != 1 {
			t.Fatalf("TryLock left nodes: %v", c)
		}
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		if err := b.Lock(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock with an expiring context: %v", err)
		}
		if c := children(t, sb, dir); len(c) != 1 {
			t.Fatalf("a cancelled wait left nodes: %v", c)
		}
		if err := b.Unlock(ctx); !errors.Is(err, ErrNotLocked) {
			t.Fatalf("Unlock without the lock: %v", err)
		}
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := b.TryLock(ctx); err != nil {
			t.Fatalf("TryLock after release: %v", err)
		}
	})
}

// TestMutexChainWakesOne lines up three waiters behind a holder and counts
// who a release notifies: the next waiter only (textbook chain), the next
// two (chain with lookahead), or all (herd).
func TestMutexChainWakesOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		opts      []Option
		notified  []uint64 // notifications of each waiter after the first release
		watches   []int    // watches in the directory once waiter i has queued
		afterward int      // watches once the release has settled
	}{
		{"chain", []Option{WithLookahead(false)}, []uint64{1, 0, 0}, []int{3, 5, 7}, 5},
		{"lookahead", nil, []uint64{1, 1, 0}, []int{3, 6, 9}, 6},
		{"herd", []Option{withInstruments(lockstats.Instruments{Strategy: lockstats.Herd})}, []uint64{1, 1, 1}, []int{3, 5, 7}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zktest.Each(t, func(t *testing.T, connect string) {
				dir := zktest.Path(t)
				ctx := testContext(t)
				observer := dialTest(t, connect)
				holder := NewMutex(dialTest(t, connect), dir, tc.opts...)
				if err := holder.Lock(ctx); err != nil {
					t.Fatal(err)
				}
				waiters := make([]*Mutex, 3)
				acquired := make([]chan error, 3)
				for i := range waiters {
					waiters[i] = NewMutex(dialTest(t, connect), dir, tc.opts...)
					acquired[i] = make(chan error, 1)
					go func(i int) { acquired[i] <- waiters[i].Lock(ctx) }(i)
					// Queue them in order: wait for each one's node and its
					// watches (every node's owner watches its own node).
					waitChildren(t, observer, dir, func(c []string) bool { return len(c) == i+2 })
					waitWatchers(t, connect, dir, tc.watches[i])
				}
				if err := holder.Unlock(ctx); err != nil {
					t.Fatal(err)
				}
				if err := <-acquired[0]; err != nil {
					t.Fatal(err)
				}
				waitWatchers(t, connect, dir, tc.afterward)
				for i, w := range waiters {
					// The server has sent the notifications; each waiter
					// counts its own when its goroutine takes it.
					waitNotified(t, w, tc.notified[i])
				}
				for i, w := range waiters {
					if got := w.opts.stats.Snapshot().Notifications; got != tc.notified[i] {
						t.Errorf("waiter %d: %d notifications, want %d", i, got, tc.notified[i])
					}
				}
				for i := 0; i < 3; i++ {
					if i > 0 {
						if err := <-acquired[i]; err != nil {
							t.Fatal(err)
						}
					}
					if err := waiters[i].Unlock(ctx); err != nil {
						t.Fatal(err)
					}
				}
			})
		})
	}
}

// TestMutexFaults injects the failures the recipe must survive, which only
// the embedded server can produce on demand.
func TestMutexFaults(t *testing.T) {
	t.Parallel()
	t.Run("connection dropped during the create", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		s := dialTest(t, srv.ConnectString())
		dir := zktest.Path(t)
		var dropped atomic.Bool
		srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
			if r.Op == jute.OpCreate && r.SessionID == s.ID() && len(r.Path) > len(dir) && r.Path[:len(dir)] == dir && dropped.CompareAndSwap(false, true) {
				return zkserver.DropAfterApply // created, but the answer is lost
			}
			return zkserver.Proceed
		})
		m := NewMutex(s, dir)
		ctx := testContext(t)
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if !dropped.Load() {
			t.Fatal("the fault never fired")
		}
		if c := children(t, s, dir); len(c) != 1 || joinPath(dir, c[0]) != m.Token().Path {
			t.Fatalf("after a lost create reply: children %v, token %v (an orphan?)", c, m.Token())
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("session expiry while holding", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		sa := dialTest(t, srv.ConnectString())
		a := NewMutex(sa, dir)
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		b := NewMutex(dialTest(t, srv.ConnectString()), dir)
		got := make(chan error, 1)
		go func() { got <- b.Lock(ctx) }()
		waitChildren(t, sa, dir, func(c []string) bool { return len(c) == 2 })
		done := a.Done()
		srv.ExpireSession(sa.ID())
		waitClosed(t, "the lost lock's Done", done)
		if err := <-got; err != nil {
			t.Fatalf("the next waiter: %v", err)
		}
		if err := a.Unlock(ctx); !errors.Is(err, ErrSessionLost) {
			t.Fatalf("Unlock after expiry: %v", err)
		}
		if err := a.Lock(ctx); !errors.Is(err, ErrSessionLost) {
			t.Fatalf("Lock on a lost session: %v", err)
		}
	})

	t.Run("predecessor vanishes between listing and watching", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		a := NewMutex(dialTest(t, srv.ConnectString()), dir)
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		sb := dialTest(t, srv.ConnectString())
		var released atomic.Bool
		srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
			// b's getData on a's node: release a first.
			if r.SessionID == sb.ID() && r.Op == jute.OpGetData && r.Path == a.Token().Path && released.CompareAndSwap(false, true) {
				if err := a.Unlock(ctx); err != nil {
					t.Error(err)
				}
			}
			return zkserver.Proceed
		})
		b := NewMutex(sb, dir)
		if err := b.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if !released.Load() {
			t.Fatal("the fault never fired")
		}
		if st := b.opts.stats.Snapshot(); st.Notifications != 0 {
			t.Fatalf("b was notified %d times; the vanished predecessor should have been seen by the read", st.Notifications)
		}
		if err := b.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("waiter's connection dropped", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		sa := dialTest(t, srv.ConnectString())
		a := NewMutex(sa, dir)
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		sb := dialTest(t, srv.ConnectString())
		b := NewMutex(sb, dir)
		got := make(chan error, 1)
		go func() { got <- b.Lock(ctx) }()
		waitWatchers(t, srv.ConnectString(), dir, 3) // a's and b's own watches, b's on a
		// Let b's client set its watches again before anything else happens:
		// go-zookeeper reads its last zxid for that without a lock
		// (go-zookeeper/zk#35), which the race detector reports if a reply
		// on the new connection comes first.
		rewatched := make(chan struct{}, 1)
		srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
			if r.SessionID == sb.ID() && (r.Op == jute.OpSetWatches || r.Op == jute.OpSetWatches2) {
				select {
				case rewatched <- struct{}{}:
				default:
				}
			}
			return zkserver.Proceed
		})
		srv.DropConnection(sb.ID())
		waitClosed(t, "b's watches to be set again", rewatched)
		waitWatchers(t, srv.ConnectString(), dir, 3) // b re-attached and watches again
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if sb.State() != Connected || sb.Err() != nil {
			t.Fatalf("b's session after a dropped connection: %v %v", sb.State(), sb.Err())
		}
	})

	t.Run("holder's node deleted by someone else", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		sa := dialTest(t, srv.ConnectString())
		a := NewMutex(sa, dir)
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		ops, err := sa.Conn().Multi(ptr(a.IsOwner()), &zk.SetDataRequest{Path: dir, Data: []byte("guarded"), Version: -1})
		if err != nil || ops[1].Error != nil {
			t.Fatalf("guarded multi while holding: %v %v", ops, err)
		}
		operator := dialTest(t, srv.ConnectString())
		if err := operator.Conn().Delete(a.Token().Path, -1); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, "Done after a forced release", a.Done())
		if _, err := sa.Conn().Multi(ptr(a.IsOwner()), &zk.SetDataRequest{Path: dir, Data: []byte("late"), Version: -1}); err == nil {
			t.Fatal("guarded multi succeeded after the lock was lost")
		}
		if err := a.Unlock(ctx); !errors.Is(err, ErrNotLocked) {
			t.Fatalf("Unlock after a forced release: %v", err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestMutexCancelledCreateLeavesNothing: a Lock whose context ends while
// its create is on the wire returns with nothing of its attempt left on the
// server: it waits (at most the session timeout) for the create's answer
// and deletes the node it made.
func TestMutexCancelledCreateLeavesNothing(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	dir := zktest.Path(t)
	ctx := testContext(t)
	sa := dialTest(t, srv.ConnectString())
	if err := NewMutex(sa, dir).Lock(ctx); err != nil {
		t.Fatal(err)
	}
	sb := dialTest(t, srv.ConnectString())
	srv.SetSessionReplyDelay(sb.ID(), 300*time.Millisecond) // the create's answer comes after the context ends
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := NewMutex(sb, dir).Lock(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock with a context ending before the create's answer: %v", err)
	}
	srv.SetSessionReplyDelay(sb.ID(), 0)
	if c := children(t, sa, dir); len(c) != 1 {
		t.Fatalf("the cancelled Lock left nodes: %v", c)
	}
}
