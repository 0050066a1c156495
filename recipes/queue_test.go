package recipes

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

var queueItemName = regexp.MustCompile(`^qn-\d{10}$`)

// TestQueueFIFO has one producer and several consumers, each with its own
// session, started before the queue exists: every item is taken exactly
// once, and each consumer takes its items in the order they were put.
func TestQueueFIFO(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		const items, consumers = 60, 4
		ctx := testContext(t)
		consumeCtx, stop := context.WithCancel(ctx)
		var (
			mu       sync.Mutex
			taken    = map[int]int{}
			total    atomic.Int32
			allTaken = make(chan struct{})
			wg       sync.WaitGroup
		)
		defer func() { stop(); wg.Wait() }()
		for c := 0; c < consumers; c++ {
			q := NewQueue(dialTest(t, connect), dir)
			wg.Add(1)
			go func() {
				defer wg.Done()
				last := -1
				for {
					data, err := q.Take(consumeCtx)
					if errors.Is(err, context.Canceled) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					n, err := strconv.Atoi(string(data))
					if err != nil {
						t.Errorf("took %q", data)
						return
					}
					if n <= last {
						t.Errorf("consumer %d took item %d after item %d", c, n, last)
					}
					last = n
					mu.Lock()
					taken[n]++
					mu.Unlock()
					if total.Add(1) == items {
						close(allTaken)
					}
				}
			}()
		}
		producer := NewQueue(dialTest(t, connect), dir)
		for i := 0; i < items; i++ {
			if _, err := producer.Put(ctx, []byte(fmt.Sprintf("%04d", i))); err != nil {
				t.Fatal(err)
			}
		}
		waitClosed(t, "every item to be taken", allTaken)
		stop()
		wg.Wait()
		for i := 0; i < items; i++ {
			if taken[i] != 1 {
				t.Errorf("item %d taken %d times", i, taken[i])
			}
		}
		if len(taken) != items {
			t.Errorf("%d distinct items taken, want %d", len(taken), items)
		}
	})
}

// TestQueueTakeBlocks starts a Take on a queue whose directory does not
// exist yet: it waits on a watch for the directory, and returns the item a
// producer then puts.
func TestQueueTakeBlocks(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		consumer := NewQueue(dialTest(t, connect), dir)
		got := make(chan queueTakeResult, 1)
		go func() { got <- queueTake(ctx, consumer) }()
		waitWatched(t, connect, dir, 1) // waiting for the directory to appear
		select {
		case r := <-got:
			t.Fatalf("Take returned on an empty queue: %q %v", r.data, r.err)
		default:
		}
		if _, err := NewQueue(dialTest(t, connect), dir).Put(ctx, []byte("first")); err != nil {
			t.Fatal(err)
		}
		if r := queueRecv(t, got); r.err != nil || string(r.data) != "first" {
			t.Fatalf("Take: %q %v", r.data, r.err)
		}
		if c := children(t, consumer.session, dir); len(c) != 0 {
			t.Fatalf("after the take: %v", c)
		}
	})
}

// TestQueueTakeWakesOnWatch blocks a Take on an existing, empty directory
// and puts an item after its listing has reached the server: the Take is
// woken by its child watch, once. Only the embedded server tells a test when
// a request has arrived.
func TestQueueTakeWakesOnWatch(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	dir := zktest.Path(t)
	ctx := testContext(t)
	s := dialTest(t, srv.ConnectString())
	if _, err := s.Conn().Create(dir, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	listed := make(chan struct{})
	var once sync.Once
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.SessionID == s.ID() && r.Op == jute.OpGetChildren2 && r.Path == dir {
			once.Do(func() { close(listed) })
		}
		return zkserver.Proceed
	})
	consumer := NewQueue(s, dir)
	got := make(chan queueTakeResult, 1)
	go func() { got <- queueTake(ctx, consumer) }()
	waitClosed(t, "the Take's listing", listed)
	// The same session: the server applies its requests in order, so the
	// create comes after the listing and fires its watch.
	if _, err := NewQueue(s, dir).Put(ctx, []byte("item")); err != nil {
		t.Fatal(err)
	}
	if r := queueRecv(t, got); r.err != nil || string(r.data) != "item" {
		t.Fatalf("Take: %q %v", r.data, r.err)
	}
	if n := consumer.opts.stats.Snapshot().Notifications; n != 1 {
		t.Fatalf("the Take was woken %d times, want 1", n)
	}
}

// TestQueueNoTakeOfAReplacedItem holds consumer A's delete of the first
// item at the server while consumer B takes that item and emptying the
// queue lets a producer put a second. Had the directory been a container,
// the server would have reaped and remade it, the second item would have
// had the first's name and version, and A's delete would have removed it
// while A returned the first item again (CI caught this in TestQueueFIFO).
// Only the embedded server can hold a request.
func TestQueueNoTakeOfAReplacedItem(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	dir := zktest.Path(t)
	ctx := testContext(t)
	connect := srv.ConnectString()
	producer := NewQueue(dialTest(t, connect), dir)
	first, err := producer.Put(ctx, []byte("first"))
	if err != nil {
		t.Fatal(err)
	}
	a := NewQueue(dialTest(t, connect), dir)
	aDeleting, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.SessionID == a.session.ID() && r.Op == jute.OpDelete && r.Path == dir+"/"+first {
			once.Do(func() { close(aDeleting); <-release }) // hold A's connection
		}
		return zkserver.Proceed
	})
	t.Cleanup(func() { srv.SetFaultHook(nil) })
	got := make(chan queueTakeResult, 1)
	go func() { got <- queueTake(ctx, a) }()
	waitClosed(t, "A's delete of the first item", aDeleting)

	if r := queueTake(ctx, NewQueue(dialTest(t, connect), dir)); r.err != nil || string(r.data) != "first" {
		close(release)
		t.Fatalf("B's Take: %q %v", r.data, r.err)
	}
	second, err := producer.Put(ctx, []byte("second"))
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Errorf("the second item reused the name %s: the sequence started over", first)
	}
	if r := queueRecv(t, got); r.err != nil || string(r.data) != "second" {
		t.Fatalf("A's Take: %q %v, want the second item", r.data, r.err)
	}
}

// TestQueuePeekPollLen checks the non-blocking calls on an absent, a
// filled and an emptied queue; children of other shapes are ignored.
func TestQueuePeekPollLen(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, connect)
		q := NewQueue(s, dir)
		queueExpectEmpty(t, ctx, q)
		for _, item := range []string{"a", "b", "c"} {
			name, err := q.Put(ctx, []byte(item))
			if err != nil || !queueItemName.MatchString(name) {
				t.Fatalf("Put: %q %v", name, err)
			}
		}
		// Nodes that are no items: ignored by all.
		for _, name := range []string{"lock-0000000000", "qn-x", "xqn-0000000000"} {
			if _, err := s.Conn().Create(joinPath(dir, name), []byte("foreign"), zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
		}
		queueExpectLen(t, ctx, q, 3)
		queueExpect(t, "Peek", "a", nil)(q.Peek(ctx))
		queueExpect(t, "Peek again", "a", nil)(q.Peek(ctx))
		queueExpect(t, "Poll", "a", nil)(q.Poll(ctx))
		queueExpect(t, "Peek", "b", nil)(q.Peek(ctx))
		queueExpectLen(t, ctx, q, 2)
		queueExpect(t, "Poll", "b", nil)(q.Poll(ctx))
		queueExpect(t, "Poll", "c", nil)(q.Poll(ctx))
		queueExpectEmpty(t, ctx, q)
		if c := children(t, s, dir); len(c) != 3 {
			t.Fatalf("the foreign nodes: %v", c)
		}
		for _, name := range []string{"lock-0000000000", "qn-x", "xqn-0000000000"} {
			if err := s.Conn().Delete(joinPath(dir, name), -1); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestQueueInterop shares a queue with a client that works as ZooKeeper's
// DistributedQueue does: a persistent directory, items created as
// persistent sequential "qn-" nodes, taken by listing, sorting by sequence,
// reading and deleting. Each side takes what the other put, in order.
func TestQueueInterop(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		rawSession := dialTest(t, connect)
		raw := rawSession.Conn()
		acl := zk.WorldACL(zk.PermAll)
		if _, err := raw.Create(dir, nil, zk.FlagPersistent, acl); err != nil {
			t.Fatal(err)
		}
		defer raw.Delete(dir, -1)
		for i := 0; i < 5; i++ {
			if _, err := raw.Create(dir+"/qn-", []byte(fmt.Sprint("raw", i)), zk.FlagSequence, acl); err != nil {
				t.Fatal(err)
			}
		}
		s := dialTest(t, connect)
		q := NewQueue(s, dir)
		for i := 0; i < 5; i++ {
			queueExpect(t, "Take", fmt.Sprint("raw", i), nil)(q.Take(ctx))
		}

		for i := 0; i < 3; i++ {
			if _, err := q.Put(ctx, []byte(fmt.Sprint("ours", i))); err != nil {
				t.Fatal(err)
			}
		}
		names := children(t, rawSession, dir)
		sort.Slice(names, func(i, j int) bool { return queueSuffix(t, names[i]) < queueSuffix(t, names[j]) })
		for i, name := range names {
			data, stat, err := raw.Get(joinPath(dir, name))
			if err != nil || !queueItemName.MatchString(name) || stat.EphemeralOwner != 0 {
				t.Fatalf("item %s: %+v %v", name, stat, err)
			}
			if want := fmt.Sprint("ours", i); string(data) != want {
				t.Fatalf("item %s holds %q, want %q", name, data, want)
			}
			if err := raw.Delete(joinPath(dir, name), -1); err != nil {
				t.Fatal(err)
			}
		}
		if len(names) != 3 {
			t.Fatalf("items %v", names)
		}
	})
}

// TestQueueTakeCancel cancels blocked Takes, on an absent and on an
// existing directory: they return promptly with the context's error, leave
// no node behind, and the next item goes to the next Take.
func TestQueueTakeCancel(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, connect)
		q := NewQueue(s, dir)

		takeCtx, cancel := context.WithCancel(ctx)
		got := make(chan queueTakeResult, 1)
		go func() { got <- queueTake(takeCtx, q) }()
		waitWatched(t, connect, dir, 1)
		cancel()
		if r := queueRecv(t, got); !errors.Is(r.err, context.Canceled) || r.data != nil {
			t.Fatalf("cancelled Take: %q %v", r.data, r.err)
		}
		if exists, _, err := s.Conn().Exists(dir); err != nil || exists {
			t.Fatalf("a cancelled Take left %s behind (%v)", dir, err)
		}

		// On an existing directory, which a raw client keeps.
		if _, err := s.Conn().Create(dir, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		defer s.Conn().Delete(dir, -1)
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if _, err := q.Take(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Take with an expiring context: %v", err)
		}
		if c := children(t, s, dir); len(c) != 0 {
			t.Fatalf("a cancelled Take left %v", c)
		}
		if _, err := NewQueue(dialTest(t, connect), dir).Put(ctx, []byte("next")); err != nil {
			t.Fatal(err)
		}
		queueExpect(t, "Take after the cancelled ones", "next", nil)(q.Take(ctx))
	})
}

// TestQueueFaults injects what only the embedded server can: lost answers
// to a take's delete and to a put's create, a dropped connection and an
// expired session while a Take waits.
func TestQueueFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		fault     zkserver.Fault
		wantErr   error // of the take
		remaining []string
	}{
		// Deleted, answer lost: the retried delete finds nothing, and
		// cannot tell our delete from another consumer's.
		{"delete answer lost", zkserver.DropAfterApply, ErrUncertain, []string{"b"}},
		// Not deleted: the retried delete removes it; we took it.
		{"delete dropped before applied", zkserver.DropBeforeApply, nil, []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := zktest.EmbeddedServer(t, zkserver.Config{})
			dir := zktest.Path(t)
			ctx := testContext(t)
			producer := NewQueue(dialTest(t, srv.ConnectString()), dir)
			for _, item := range []string{"a", "b"} {
				if _, err := producer.Put(ctx, []byte(item)); err != nil {
					t.Fatal(err)
				}
			}
			s := dialTest(t, srv.ConnectString())
			queueFaultOnce(srv, s, jute.OpDelete, dir, tc.fault)
			q := NewQueue(s, dir)
			// Poll takes as Take does, but sets no watch: go-zookeeper
			// v1.0.4 races (under -race) re-setting watches on reconnect
			// against the answer to a request queued meanwhile.
			data, err := q.Poll(ctx)
			if string(data) != "a" || !queueErrIs(err, tc.wantErr) {
				t.Fatalf("Poll: %q %v, want \"a\" %v", data, err, tc.wantErr)
			}
			if got := queueContents(t, ctx, producer); strings.Join(got, ",") != strings.Join(tc.remaining, ",") {
				t.Fatalf("left in the queue: %v, want %v", got, tc.remaining)
			}
		})
	}

	for _, tc := range []struct {
		name  string
		fault zkserver.Fault
		left  int
	}{
		{"put answer lost", zkserver.DropAfterApply, 1},
		{"put dropped before applied", zkserver.DropBeforeApply, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := zktest.EmbeddedServer(t, zkserver.Config{})
			dir := zktest.Path(t)
			ctx := testContext(t)
			s := dialTest(t, srv.ConnectString())
			q := NewQueue(s, dir)
			// A directory that stays, so that the create under test is the
			// first one.
			if _, err := s.Conn().Create(dir, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			queueFaultOnce(srv, s, jute.OpCreate, dir, tc.fault)
			if name, err := q.Put(ctx, []byte("x")); !errors.Is(err, ErrUncertain) || name != "" {
				t.Fatalf("Put whose answer was lost: %q %v", name, err)
			}
			queueExpectLen(t, ctx, q, tc.left)
		})
	}

	t.Run("connection dropped while waiting", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, srv.ConnectString())
		got := make(chan queueTakeResult, 1)
		go func() { got <- queueTake(ctx, NewQueue(s, dir)) }()
		waitWatched(t, srv.ConnectString(), dir, 1)
		srv.DropConnection(s.ID())
		waitWatched(t, srv.ConnectString(), dir, 1) // watching again
		if _, err := NewQueue(dialTest(t, srv.ConnectString()), dir).Put(ctx, []byte("after")); err != nil {
			t.Fatal(err)
		}
		if r := queueRecv(t, got); r.err != nil || string(r.data) != "after" {
			t.Fatalf("Take across a dropped connection: %q %v", r.data, r.err)
		}
	})

	t.Run("session expiry while waiting", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, srv.ConnectString())
		got := make(chan queueTakeResult, 1)
		go func() { got <- queueTake(ctx, NewQueue(s, dir)) }()
		waitWatched(t, srv.ConnectString(), dir, 1)
		srv.ExpireSession(s.ID())
		if r := queueRecv(t, got); !errors.Is(r.err, ErrSessionLost) {
			t.Fatalf("Take on an expired session: %q %v", r.data, r.err)
		}
	})
}

// queueFaultOnce makes the server answer the first request op of session
// s on an item of dir with fault.
func queueFaultOnce(srv *zkserver.Server, s *Session, op jute.Op, dir string, fault zkserver.Fault) {
	var fired atomic.Bool
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.SessionID == s.ID() && r.Op == op && strings.HasPrefix(r.Path, dir+"/") && fired.CompareAndSwap(false, true) {
			return fault
		}
		return zkserver.Proceed
	})
}

type queueTakeResult struct {
	data []byte
	err  error
}

func queueTake(ctx context.Context, q *Queue) queueTakeResult {
	data, err := q.Take(ctx)
	return queueTakeResult{data, err}
}

func queueRecv(t *testing.T, ch <-chan queueTakeResult) queueTakeResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(testTimeout):
		t.Fatal("timed out waiting for the Take")
		return queueTakeResult{}
	}
}

// queueExpect checks a call's item and error.
func queueExpect(t *testing.T, what, want string, wantErr error) func([]byte, error) {
	t.Helper()
	return func(data []byte, err error) {
		t.Helper()
		if string(data) != want || !queueErrIs(err, wantErr) {
			t.Fatalf("%s: %q %v, want %q %v", what, data, err, want, wantErr)
		}
	}
}

func queueErrIs(err, want error) bool {
	if want == nil {
		return err == nil
	}
	return errors.Is(err, want)
}

func queueExpectLen(t *testing.T, ctx context.Context, q *Queue, want int) {
	t.Helper()
	if n, err := q.Len(ctx); err != nil || n != want {
		t.Fatalf("Len: %d %v, want %d", n, err, want)
	}
}

func queueExpectEmpty(t *testing.T, ctx context.Context, q *Queue) {
	t.Helper()
	queueExpect(t, "Peek on an empty queue", "", ErrEmpty)(q.Peek(ctx))
	queueExpect(t, "Poll on an empty queue", "", ErrEmpty)(q.Poll(ctx))
	queueExpectLen(t, ctx, q, 0)
}

// queueContents polls the queue empty and returns what it held.
func queueContents(t *testing.T, ctx context.Context, q *Queue) []string {
	t.Helper()
	var items []string
	for {
		data, err := q.Poll(ctx)
		if errors.Is(err, ErrEmpty) {
			return items
		}
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, string(data))
	}
}

// queueSuffix parses an item's sequence number as ZooKeeper's recipe does.
func queueSuffix(t *testing.T, name string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimPrefix(name, "qn-"), 10, 64)
	if err != nil {
		t.Fatalf("item name %q: %v", name, err)
	}
	return n
}
