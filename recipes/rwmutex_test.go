package recipes

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

var rwFormats = []Format{Curator, Kazoo}

// rwMarkers returns the read and write markers of a format.
func rwMarkers(f Format) (read, write string) {
	if f == Kazoo {
		return kazooRead, kazooLock
	}
	return curatorRead, curatorWrite
}

// rwQueue lists the contenders of an RWMutex directory in queue order.
func rwQueue(t *testing.T, s *Session, dir string, f Format) []string {
	t.Helper()
	read, write := rwMarkers(f)
	var names []string
	for _, c := range contenders(children(t, s, dir), read, write) {
		names = append(names, c.name)
	}
	return names
}

// lockAsync runs lock in a goroutine and returns where its result goes.
func lockAsync(ctx context.Context, lock func(context.Context) error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- lock(ctx) }()
	return ch
}

// notYet fails the test if an acquisition has already returned.
func notYet(t *testing.T, what string, ch <-chan error) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned too early: %v", what, err)
	default:
	}
}

func recv(t *testing.T, what string, ch <-chan error) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestRWMutexReadersShare(t *testing.T) {
	t.Parallel()
	for _, f := range rwFormats {
		t.Run(f.String(), func(t *testing.T) {
			zktest.Each(t, func(t *testing.T, connect string) {
				dir := zktest.Path(t)
				ctx := testContext(t)
				observer := dialTest(t, connect)
				readers := make([]*RWMutex, 3)
				for i := range readers {
					readers[i] = NewRWMutex(dialTest(t, connect), dir, WithFormat(f))
				}
				// Each RLock returns while the readers before it still hold.
				if err := readers[0].RLock(ctx); err != nil {
					t.Fatal(err)
				}
				if err := readers[1].RLock(ctx); err != nil {
					t.Fatal(err)
				}
				if err := readers[2].TryRLock(ctx); err != nil {
					t.Fatalf("TryRLock among readers: %v", err)
				}
				tokens := map[string]bool{}
				for _, r := range readers {
					tokens[r.ReadToken().Path] = true
					if r.Token() != (Token{}) || r.Done() != nil {
						t.Fatalf("a reader has a write token %v", r.Token())
					}
				}
				if len(tokens) != 3 {
					t.Fatalf("read tokens %v, want 3 distinct", tokens)
				}
				if err := readers[0].RLock(ctx); !errors.Is(err, ErrDeadlock) {
					t.Fatalf("second RLock on a reading RWMutex: %v", err)
				}

				w := NewRWMutex(dialTest(t, connect), dir, WithFormat(f))
				if err := w.TryLock(ctx); !errors.Is(err, ErrLocked) {
					t.Fatalf("TryLock among readers: %v", err)
				}
				if err := w.RUnlock(ctx); !errors.Is(err, ErrNotLocked) {
					t.Fatalf("RUnlock without a read lock: %v", err)
				}
				wrote := lockAsync(ctx, w.Lock)
				waitChildren(t, observer, dir, func(c []string) bool { return len(c) == 4 })
				// A writer waits ahead: a new reader queues behind it.
				late := NewRWMutex(dialTest(t, connect), dir, WithFormat(f))
				if err := late.TryRLock(ctx); !errors.Is(err, ErrLocked) {
					t.Fatalf("TryRLock behind a waiting writer: %v", err)
				}
				for i, r := range readers {
					notYet(t, "the writer", wrote)
					if err := r.RUnlock(ctx); err != nil {
						t.Fatalf("reader %d: %v", i, err)
					}
				}
				recv(t, "the writer", wrote)
				if err := w.Unlock(ctx); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// rwChecker is the in-process resource the exclusion test guards: it
// counts who is inside and checks the fencing tokens.
type rwChecker struct {
	mu                  sync.Mutex
	readers, writers    int
	maxReaders          int
	violations          []string
	highest, lastWriter int64 // Zxids: of any holding, of the last writer
}

func (c *rwChecker) enter(write bool, tok Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case write && (c.readers > 0 || c.writers > 0):
		c.violations = append(c.violations, fmt.Sprintf("writer entered with %d readers, %d writers", c.readers, c.writers))
	case !write && c.writers > 0:
		c.violations = append(c.violations, "reader entered with a writer inside")
	case write && tok.Zxid <= c.highest:
		c.violations = append(c.violations, fmt.Sprintf("write token 0x%x not above 0x%x", tok.Zxid, c.highest))
	case !write && tok.Zxid <= c.lastWriter:
		c.violations = append(c.violations, fmt.Sprintf("read token 0x%x not above the last writer's 0x%x", tok.Zxid, c.lastWriter))
	}
	if write {
		c.writers++
		c.lastWriter = tok.Zxid
	} else {
		c.readers++
		c.maxReaders = max(c.maxReaders, c.readers)
	}
	c.highest = max(c.highest, tok.Zxid)
}

func (c *rwChecker) leave(write bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if write {
		c.writers--
	} else {
		c.readers--
	}
}

// TestRWMutexExclusion runs RWMutexes with their own sessions, each used
// by a reader goroutine and a writer goroutine at once: never a writer
// with anyone else inside, and the tokens follow the order of entry.
func TestRWMutexExclusion(t *testing.T) {
	t.Parallel()
	for _, f := range rwFormats {
		t.Run(f.String(), func(t *testing.T) {
			zktest.Each(t, func(t *testing.T, connect string) {
				dir := zktest.Path(t)
				const mutexes, rounds = 4, 15
				var c rwChecker
				var wg sync.WaitGroup
				stats := lockstats.NewStats()
				for i := 0; i < mutexes; i++ {
					s := dialTest(t, connect)
					rw := NewRWMutex(s, dir, WithFormat(f), withInstruments(lockstats.Instruments{Stats: stats}))
					for _, write := range []bool{false, true} {
						wg.Add(1)
						go func() {
							defer wg.Done()
							// The work inside: a round trip to the server.
							work := func() error { _, _, err := s.Conn().Exists(dir); return err }
							if err := rwRounds(testContext(t), rw, write, rounds, &c, work); err != nil {
								t.Error(err)
							}
						}()
					}
				}
				wg.Wait()
				if len(c.violations) != 0 {
					t.Fatalf("%d violations: %v", len(c.violations), c.violations)
				}
				if got := stats.Snapshot().Acquisitions; got != 2*mutexes*rounds {
					t.Fatalf("%d acquisitions, want %d", got, 2*mutexes*rounds)
				}
				t.Logf("at most %d readers inside at once", c.maxReaders)
			})
		})
	}
}

// rwRounds takes one side of rw rounds times, entering the checker and
// doing work inside each time.
func rwRounds(ctx context.Context, rw *RWMutex, write bool, rounds int, c *rwChecker, work func() error) error {
	lock, unlock, token := rw.RLock, rw.RUnlock, rw.ReadToken
	if write {
		lock, unlock, token = rw.Lock, rw.Unlock, rw.Token
	}
	for j := 0; j < rounds; j++ {
		if err := lock(ctx); err != nil {
			return err
		}
		c.enter(write, token())
		err := work()
		c.leave(write)
		if err != nil {
			return err
		}
		if err := unlock(ctx); err != nil {
			return err
		}
	}
	return nil
}

// TestRWMutexReaderWatchesLowestWriter queues R0 (holding), W1, W2, R3 and
// checks, on the server's watch table, who watches whom: W2 its
// predecessor W1 (and with lookahead R0), R3 the lowest writer W1 and
// nothing else. Then R3 waits through both writers in turn.
func TestRWMutexReaderWatchesLowestWriter(t *testing.T) {
	t.Parallel()
	for _, f := range rwFormats {
		t.Run(f.String(), func(t *testing.T) {
			zktest.Each(t, func(t *testing.T, connect string) {
				dir := zktest.Path(t)
				ctx := testContext(t)
				observer := dialTest(t, connect)
				sessions := make([]*Session, 4)
				rws := make([]*RWMutex, 4)
				for i := range rws {
					sessions[i] = dialTest(t, connect)
					rws[i] = NewRWMutex(sessions[i], dir, WithFormat(f))
				}
				if err := rws[0].RLock(ctx); err != nil {
					t.Fatal(err)
				}
				w1 := lockAsync(ctx, rws[1].Lock)
				waitChildren(t, observer, dir, func(c []string) bool { return len(c) == 2 })
				w2 := lockAsync(ctx, rws[2].Lock)
				waitChildren(t, observer, dir, func(c []string) bool { return len(c) == 3 })
				r3 := lockAsync(ctx, rws[3].RLock)
				waitChildren(t, observer, dir, func(c []string) bool { return len(c) == 4 })
				q := rwQueue(t, observer, dir, f)
				id := func(i int) string { return fmt.Sprintf("0x%x", sessions[i].ID()) }
				// Every contender watches its own node; the rest by the rules.
				want := map[string][]string{
					q[0]: {id(0), id(1), id(2)}, // W1's predecessor, W2's lookahead
					q[1]: {id(1), id(2), id(3)}, // W2's predecessor, R3's lowest writer
					q[2]: {id(2)},
					q[3]: {id(3)},
				}
				waitNodeWatches(t, connect, dir, want)

				if err := rws[0].RUnlock(ctx); err != nil {
					t.Fatal(err)
				}
				recv(t, "W1", w1)
				notYet(t, "R3 while W1 holds", r3)
				if err := rws[1].Unlock(ctx); err != nil {
					t.Fatal(err)
				}
				recv(t, "W2", w2)
				// R3 now waits for W2, the lowest writer left.
				waitNodeWatches(t, connect, dir, map[string][]string{q[2]: {id(2), id(3)}, q[3]: {id(3)}})
				notYet(t, "R3 while W2 holds", r3)
				if err := rws[2].Unlock(ctx); err != nil {
					t.Fatal(err)
				}
				recv(t, "R3", r3)
				if got := rws[3].writer.opts.stats.Snapshot().Notifications; got != 2 {
					t.Errorf("R3 was notified %d times, want 2 (one per writer)", got)
				}
				if err := rws[3].RUnlock(ctx); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// waitNodeWatches waits until the watch table shows, for the nodes of dir,
// exactly the watching sessions in want (keyed by node name).
func waitNodeWatches(t *testing.T, connect, dir string, want map[string][]string) {
	t.Helper()
	waitWatchTable(t, connect, fmt.Sprintf("watches %v under %s", want, dir), func(table map[string][]string) bool {
		for node, sessions := range want {
			if !slices.Equal(table[joinPath(dir, node)], sortedCopy(sessions)) {
				return false
			}
		}
		return true
	})
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

var (
	curatorReadName  = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-__READ__\d{10}$`)
	curatorWriteName = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-__WRIT__\d{10}$`)
	kazooReadName    = regexp.MustCompile(`^[0-9a-f]{32}__rlock__\d{10}$`)
	kazooWriteName   = regexp.MustCompile(`^[0-9a-f]{32}__lock__\d{10}$`)
)

// TestRWMutexLayout checks the node names of both kinds in both formats,
// the tokens against the nodes, and that nodes of other shapes in the
// directory are ignored.
func TestRWMutexLayout(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		for _, tc := range []struct {
			format      Format
			read, write *regexp.Regexp
		}{{Curator, curatorReadName, curatorWriteName}, {Kazoo, kazooReadName, kazooWriteName}} {
			s := dialTest(t, connect)
			dir := base + "/" + tc.format.String()
			ctx := testContext(t)
			r := NewRWMutex(s, dir, WithFormat(tc.format))
			if err := r.RLock(ctx); err != nil {
				t.Fatal(err)
			}
			// A stranger's node sorts first but follows no format: ignored.
			if _, err := s.Conn().Create(dir+"/stranger-0000000000", nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			w := NewRWMutex(s, dir, WithFormat(tc.format))
			wctx, cancel := context.WithCancel(ctx)
			wrote := lockAsync(wctx, w.Lock)
			waitChildren(t, s, dir, func(c []string) bool { return len(c) == 3 })
			q := rwQueue(t, s, dir, tc.format)
			if len(q) != 2 || !tc.read.MatchString(q[0]) || !tc.write.MatchString(q[1]) {
				t.Fatalf("%v layout: queue %v", tc.format, q)
			}
			checkOwnNode(t, s, joinPath(dir, q[0]), r.ReadToken(), "read")
			cancel()
			if err := <-wrote; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled Lock: %v", err)
			}
			waitChildren(t, s, dir, func(c []string) bool { return len(c) == 2 })
			if err := r.RUnlock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := w.TryLock(ctx); err != nil {
				t.Fatalf("TryLock once alone: %v", err)
			}
			if q := rwQueue(t, s, dir, tc.format); len(q) != 1 || !tc.write.MatchString(q[0]) || w.Token().Path != joinPath(dir, q[0]) {
				t.Fatalf("write node %v, token %v", q, w.Token())
			}
			if err := w.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestRWMutexCancel cancels waits of each kind behind holders of each
// kind: the wait returns the context's error and leaves no node.
func TestRWMutexCancel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		holdWrite, waitRead bool
	}{
		{"reader behind writer", true, true},
		{"writer behind reader", false, false},
		{"writer behind writer", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zktest.Each(t, func(t *testing.T, connect string) {
				dir := zktest.Path(t)
				ctx := testContext(t)
				s := dialTest(t, connect)
				holder := NewRWMutex(s, dir)
				hold, release := holder.RLock, holder.RUnlock
				if tc.holdWrite {
					hold, release = holder.Lock, holder.Unlock
				}
				if err := hold(ctx); err != nil {
					t.Fatal(err)
				}
				waiter := NewRWMutex(dialTest(t, connect), dir)
				wait := waiter.Lock
				if tc.waitRead {
					wait = waiter.RLock
				}
				wctx, cancel := context.WithCancel(ctx)
				got := lockAsync(wctx, wait)
				waitChildren(t, s, dir, func(c []string) bool { return len(c) == 2 })
				cancel()
				if err := <-got; !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled wait: %v", err)
				}
				waitChildren(t, s, dir, func(c []string) bool { return len(c) == 1 })
				if waiter.Done() != nil || waiter.ReadDone() != nil {
					t.Fatal("a cancelled wait left the waiter holding")
				}
				if err := release(ctx); err != nil {
					t.Fatal(err)
				}
				if err := wait(ctx); err != nil {
					t.Fatalf("after the cancelled wait: %v", err)
				}
			})
		})
	}
}

// TestRWMutexSessionExpiry expires the session of a holder of each kind:
// its Done closes, the waiter of the other kind gets the lock, and the
// holder's unlock says the session is lost.
func TestRWMutexSessionExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		write bool // the holder's kind; the waiter is of the other
	}{{"reader", false}, {"writer", true}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := zktest.EmbeddedServer(t, zkserver.Config{})
			dir := zktest.Path(t)
			ctx := testContext(t)
			sa := dialTest(t, srv.ConnectString())
			a := NewRWMutex(sa, dir)
			b := NewRWMutex(dialTest(t, srv.ConnectString()), dir)
			hold, unlock, done, wait := a.RLock, a.RUnlock, a.ReadDone, b.Lock
			if tc.write {
				hold, unlock, done, wait = a.Lock, a.Unlock, a.Done, b.RLock
			}
			if err := hold(ctx); err != nil {
				t.Fatal(err)
			}
			got := lockAsync(ctx, wait)
			waitChildren(t, sa, dir, func(c []string) bool { return len(c) == 2 })
			lost := done()
			srv.ExpireSession(sa.ID())
			waitClosed(t, "the lost lock's Done", lost)
			recv(t, "the waiter", got)
			if err := unlock(ctx); !errors.Is(err, ErrSessionLost) {
				t.Fatalf("unlock after expiry: %v", err)
			}
			if err := hold(ctx); !errors.Is(err, ErrSessionLost) {
				t.Fatalf("lock on a lost session: %v", err)
			}
		})
	}
}
