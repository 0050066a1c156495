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

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/seqnode"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

var curatorLeaseName = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lease-\d{10}$`)

// acquireAsync runs an acquisition in a goroutine.
func acquireAsync(ctx context.Context, acquire func(context.Context) (*Lease, error)) <-chan leaseResult {
	ch := make(chan leaseResult, 1)
	go func() {
		l, err := acquire(ctx)
		ch <- leaseResult{l, err}
	}()
	return ch
}

type leaseResult struct {
	lease *Lease
	err   error
}

func recvLease(t *testing.T, what string, ch <-chan leaseResult) (*Lease, error) {
	t.Helper()
	select {
	case r := <-ch:
		return r.lease, r.err
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
		return nil, nil
	}
}

// waitCount waits until dir has n children.
func waitCount(t *testing.T, s *Session, dir string, n int) []string {
	t.Helper()
	return waitChildren(t, s, dir, func(c []string) bool { return len(c) == n })
}

// TestSemaphoreBound runs contenders on a semaphore of 3 leases: never more
// than 3 inside, and 3 at once when the first three hold together. Each
// Semaphore is shared by two goroutines of one session.
func TestSemaphoreBound(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		const leases, sessions, rounds = 3, 4, 6
		var inside, most, violations, acquired atomic.Int32
		allIn := make(chan struct{})
		var wg sync.WaitGroup
		stats := lockstats.NewStats()
		for i := 0; i < sessions; i++ {
			s := dialTest(t, connect)
			sem := NewSemaphore(s, dir, leases, withInstruments(lockstats.Instruments{Stats: stats}))
			for g := 0; g < 2; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := testContext(t)
					for j := 0; j < rounds; j++ {
						l, err := sem.Acquire(ctx)
						if err != nil {
							t.Error(err)
							return
						}
						n := inside.Add(1)
						if n > leases {
							violations.Add(1)
						}
						for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
						}
						// The first holders wait for each other: all leases at once.
						if k := acquired.Add(1); k == leases {
							close(allIn)
						} else if k < leases {
							select {
							case <-allIn:
							case <-ctx.Done():
							}
						}
						_, _, err = s.Conn().Exists(dir) // the work inside
						inside.Add(-1)
						if err == nil {
							err = l.Release(ctx)
						}
						if err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		if violations.Load() != 0 || most.Load() != leases {
			t.Fatalf("%d violations, at most %d inside at once (want %d)", violations.Load(), most.Load(), leases)
		}
		if got := stats.Snapshot().Acquisitions; got != sessions*2*rounds {
			t.Fatalf("stats count %d acquisitions, want %d", got, sessions*2*rounds)
		}
	})
}

func TestSemaphoreTryAcquire(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, connect)
		sem := NewSemaphore(s, dir, 2)
		a, err := sem.TryAcquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sem.TryAcquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		other := NewSemaphore(dialTest(t, connect), dir, 2)
		if _, err := other.TryAcquire(ctx); !errors.Is(err, ErrLocked) {
			t.Fatalf("TryAcquire when full: %v", err)
		}
		if c := children(t, s, dir+"/leases"); len(c) != 2 {
			t.Fatalf("leases after a refused TryAcquire: %v", c)
		}
		if c := children(t, s, dir+"/locks"); len(c) != 0 {
			t.Fatalf("internal lock nodes after a refused TryAcquire: %v", c)
		}
		if err := a.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Release(ctx); !errors.Is(err, ErrNotLocked) {
			t.Fatalf("second Release: %v", err)
		}
		c, err := other.TryAcquire(ctx)
		if err != nil {
			t.Fatalf("TryAcquire with a free lease: %v", err)
		}
		for _, l := range []*Lease{b, c} {
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestSemaphoreRefuses(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	s := dialTest(t, srv.ConnectString())
	for _, tc := range []struct {
		name   string
		leases int
		opts   []Option
	}{
		{"kazoo format", 1, []Option{WithFormat(Kazoo)}},
		{"no leases", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := zktest.Path(t)
			sem := NewSemaphore(s, dir, tc.leases, tc.opts...)
			for _, acquire := range []func(context.Context) (*Lease, error){sem.Acquire, sem.TryAcquire} {
				if l, err := acquire(testContext(t)); err == nil || errors.Is(err, ErrLocked) {
					t.Fatalf("acquire: %v %v, want a configuration error", l, err)
				}
			}
			if ok, _, err := s.Conn().Exists(dir); ok || err != nil {
				t.Fatalf("a refused semaphore touched the server: %v %v", ok, err)
			}
		})
	}
}

// TestSemaphoreTryAcquireWaitsOnlyForFreeLeases holds the internal lock as
// an acquirer between lock and lease would: TryAcquire waits for it while a
// lease is free, and gives up (leaving no node) once none is.
func TestSemaphoreTryAcquireWaitsOnlyForFreeLeases(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, connect)
		sem := NewSemaphore(s, dir, 2)
		held, err := sem.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lock := NewMutex(dialTest(t, connect), dir+"/locks")
		if err := lock.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// The lock's holder takes the last lease: TryAcquire gives up.
		got := acquireAsync(ctx, sem.TryAcquire)
		waitCount(t, s, dir+"/locks", 2)
		last, err := s.Conn().Create(dir+"/leases/"+newPrefix(Curator, curatorLease), nil, zk.FlagEphemeralSequential, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := recvLease(t, "TryAcquire", got); !errors.Is(err, ErrLocked) {
			t.Fatalf("TryAcquire once the leases filled: %v", err)
		}
		waitCount(t, s, dir+"/locks", 1)
		waitCount(t, s, dir+"/leases", 2)

		// A lease is free again: TryAcquire waits for the lock and takes it.
		if err := s.Conn().Delete(last, -1); err != nil {
			t.Fatal(err)
		}
		got = acquireAsync(ctx, sem.TryAcquire)
		waitCount(t, s, dir+"/locks", 2)
		if err := lock.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		l, err := recvLease(t, "TryAcquire", got)
		if err != nil {
			t.Fatalf("TryAcquire with a free lease: %v", err)
		}
		for _, l := range []*Lease{held, l} {
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSemaphoreCancel cancels Acquires waiting for a lease (holding the
// internal lock) and for the internal lock: each returns the context's
// error and leaves no node, lease or lock.
func TestSemaphoreCancel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// queued waits before the cancelled one: 0 makes it wait for a
		// lease, 1 for the internal lock (the first waiter holds it).
		queued int
	}{{"waiting for a lease", 0}, {"waiting for the internal lock", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			zktest.Each(t, func(t *testing.T, connect string) {
				dir := zktest.Path(t)
				ctx := testContext(t)
				s := dialTest(t, connect)
				holder, err := NewSemaphore(s, dir, 1).Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var first <-chan leaseResult
				if tc.queued == 1 {
					first = acquireAsync(ctx, NewSemaphore(dialTest(t, connect), dir, 1).Acquire)
					waitCount(t, s, dir+"/leases", 2)
				}
				cctx, cancel := context.WithCancel(ctx)
				got := acquireAsync(cctx, NewSemaphore(dialTest(t, connect), dir, 1).Acquire)
				if tc.queued == 0 {
					waitCount(t, s, dir+"/leases", 2)
				}
				waitCount(t, s, dir+"/locks", 1+tc.queued)
				cancel()
				if _, err := recvLease(t, "the cancelled Acquire", got); !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled Acquire: %v", err)
				}
				waitCount(t, s, dir+"/locks", tc.queued)
				waitCount(t, s, dir+"/leases", 1+tc.queued)
				if err := holder.Release(ctx); err != nil {
					t.Fatal(err)
				}
				if first != nil {
					l, err := recvLease(t, "the first waiter", first)
					if err != nil {
						t.Fatal(err)
					}
					waitCount(t, s, dir+"/locks", 0)
					if err := l.Release(ctx); err != nil {
						t.Fatal(err)
					}
				}
			})
		})
	}
}

// TestSemaphoreSessionExpiry expires the session of a lease holder: its
// lease's Done closes, the waiter gets the slot, and Release says the
// session is lost.
func TestSemaphoreSessionExpiry(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	dir := zktest.Path(t)
	ctx := testContext(t)
	sa := dialTest(t, srv.ConnectString())
	a, err := NewSemaphore(sa, dir, 1).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := acquireAsync(ctx, NewSemaphore(dialTest(t, srv.ConnectString()), dir, 1).Acquire)
	waitCount(t, sa, dir+"/leases", 2)
	srv.ExpireSession(sa.ID())
	waitClosed(t, "the lost lease's Done", a.Done())
	b, err := recvLease(t, "the waiter", got)
	if err != nil {
		t.Fatalf("the waiter: %v", err)
	}
	if err := a.Release(ctx); !errors.Is(err, ErrSessionLost) {
		t.Fatalf("Release after expiry: %v", err)
	}
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSemaphoreLayout checks Curator's layout: lease nodes under leases/,
// the internal lock under locks/ while an acquirer waits, tokens matching
// the nodes.
func TestSemaphoreLayout(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, connect)
		sem := NewSemaphore(s, dir, 2)
		var held []*Lease
		for i := 0; i < 2; i++ {
			l, err := sem.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, l)
		}
		for _, l := range held {
			tok := l.Token()
			data, stat, err := s.Conn().Get(tok.Path)
			if err != nil || string(data) != string(ownerData()) || stat.EphemeralOwner != s.ID() || stat.Czxid != tok.Zxid {
				t.Fatalf("lease node of %v: %q %+v %v", tok, data, stat, err)
			}
			if seq, _ := seqnode.After(tok.Path, curatorLease); seq != tok.Seq || tok.Session != s.ID() {
				t.Fatalf("token %v", tok)
			}
		}
		sw := dialTest(t, connect)
		waiting := acquireAsync(ctx, NewSemaphore(sw, dir, 2).Acquire)
		leases := waitCount(t, s, dir+"/leases", 3)
		for _, name := range leases {
			if !curatorLeaseName.MatchString(name) {
				t.Fatalf("lease node %q", name)
			}
		}
		locks := waitCount(t, s, dir+"/locks", 1)
		if _, stat, err := s.Conn().Get(dir + "/locks/" + locks[0]); !curatorName.MatchString(locks[0]) || err != nil || stat.EphemeralOwner != sw.ID() {
			t.Fatalf("internal lock node %q: %+v %v", locks[0], stat, err)
		}
		if c := children(t, s, dir); len(c) != 2 {
			t.Fatalf("semaphore directory: %v, want locks and leases", c)
		}
		if err := held[0].Release(ctx); err != nil {
			t.Fatal(err)
		}
		l, err := recvLease(t, "the waiter", waiting)
		if err != nil {
			t.Fatal(err)
		}
		waitCount(t, s, dir+"/locks", 0)
		for _, l := range []*Lease{held[1], l} {
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}
