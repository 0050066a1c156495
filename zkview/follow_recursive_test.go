package zkview

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// changeLog collects a follower's changes for a test to wait on.
type changeLog struct {
	mu    sync.Mutex
	got   []Change
	notes []string
	wake  chan struct{}
}

func newChangeLog() *changeLog { return &changeLog{wake: make(chan struct{}, 1)} }

func (l *changeLog) add(c Change) error {
	l.mu.Lock()
	l.got = append(l.got, c)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return nil
}

// options are FollowOptions that keep the notes and close watching at
// the first Watching call.
func (l *changeLog) options(watching chan struct{}) FollowOptions {
	var once sync.Once
	return FollowOptions{Note: l.note, Watching: func() { once.Do(func() { close(watching) }) }}
}

// await waits for ch to close, with a deadline.
func await(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func (l *changeLog) note(s string) {
	l.mu.Lock()
	l.notes = append(l.notes, s)
	l.mu.Unlock()
}

// waitFor waits, with a deadline, until n changes came, and returns them.
func (l *changeLog) waitFor(t *testing.T, n int) []Change {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		l.mu.Lock()
		got := append([]Change(nil), l.got...)
		l.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-l.wake:
		case <-deadline:
			t.Fatalf("timed out with %d of %d changes: %s", len(got), n, describeChanges(got))
		}
	}
}

func describeChanges(cs []Change) string {
	var parts []string
	for _, c := range cs {
		s := string(c.Kind) + " " + c.Path
		if c.NotRead != "" {
			s += " (not read)"
		} else if c.Kind == ChangeData || c.Kind == ChangeCreated {
			s += fmt.Sprintf(" v%d %q", c.Version, c.New)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// warmUp writes (write(0), write(1), …) until a follower reports a change:
// its first read, which set its watch, has happened.
func warmUp(t *testing.T, l *changeLog, write func(i int)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		write(i)
		select {
		case <-l.wake:
		case <-time.After(200 * time.Millisecond):
		}
		l.mu.Lock()
		n := len(l.got)
		l.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the follower reported nothing")
		}
	}
}

// burst writes, in ONE transaction, n creations and deletions of children
// of base and n data changes of base/x: every change has the same zxid,
// so no one-shot watch can be set again in between.
func burst(t *testing.T, c *Client, base string, n int) {
	t.Helper()
	w, err := c.Writer()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bw, err := w.DialBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer bw.Close()
	var ops []WriteOp
	for i := range n {
		p := fmt.Sprintf("%s/t%03d", base, i)
		ops = append(ops, WriteOp{Kind: OpCreate, Path: p, ACL: zk.WorldACL(zk.PermAll)}, WriteOp{Kind: OpDelete, Path: p, Version: -1})
	}
	for i := 1; i <= n; i++ {
		ops = append(ops, WriteOp{Kind: OpSetData, Path: base + "/x", Data: []byte(fmt.Sprint(i)), Version: -1})
	}
	if err := bw.Multi(ctx, ops); err != nil {
		t.Fatal(err)
	}
}

// TestFollowRecursiveLosesNothing: a burst written faster than any watch
// can be set again (one transaction) is seen change by change by the
// persistent recursive watch, in the server's order, with the data of
// each change zkx could read; a one-shot follower of the same node sees
// one merged change and none of the children created and deleted.
func TestFollowRecursiveLosesNothing(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		makeTree(t, c, base, "/x")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		rec := newChangeLog()
		ready := make(chan error, 1)
		watching := make(chan struct{})
		go func() { ready <- c.FollowRecursive(ctx, base, rec.options(watching), rec.add) }()
		await(t, watching, "the recursive watch")
		oneShot := newChangeLog()
		go func() { _ = c.Follow(ctx, base+"/x", false, oneShot.add) }()
		kids := newChangeLog()
		go func() { _ = c.Follow(ctx, base, true, kids.add) }()
		w, _ := c.Writer()
		// The one-shot followers set their watches with their first
		// reads, which the test cannot see: write until each reports.
		warmUp(t, oneShot, func(i int) {
			if _, err := w.Set(ctx, base+"/x", []byte(fmt.Sprint("warm-up ", i)), -1); err != nil {
				t.Fatal(err)
			}
		})
		warmUp(t, kids, func(i int) { makeTree(t, c, base, fmt.Sprintf("/k%d", i)) })
		// The recursive follower has seen every warm-up once it reports a
		// last marker write.
		makeTree(t, c, base, "/x/ready")
		for {
			got := rec.waitFor(t, 1)
			if last := got[len(got)-1]; last.Kind == ChangeCreated && last.Path == base+"/x/ready" {
				break
			}
			rec.waitFor(t, len(got)+1)
		}
		if _, err := w.Set(ctx, base+"/x", []byte("before"), -1); err != nil {
			t.Fatal(err)
		}
		seen := len(oneShot.waitFor(t, 1))
		for string(oneShot.waitFor(t, seen)[seen-1].New) != "before" {
			seen = len(oneShot.waitFor(t, seen+1))
		}
		var start int
		var before int32
		for { // the recursive follower reports "before" too: the burst's changes come after it
			got := rec.waitFor(t, 1)
			if last := got[len(got)-1]; last.Kind == ChangeData && string(last.New) == "before" {
				start, before = len(got), last.Version
				break
			}
			rec.waitFor(t, len(got)+1)
		}
		kidsBefore := len(kids.waitFor(t, 1))

		const n = 40
		burst(t, c, base, n)
		got := rec.waitFor(t, start+3*n)[start:]
		for i := range n {
			p := fmt.Sprintf("%s/t%03d", base, i)
			cr, del := got[2*i], got[2*i+1]
			if cr.Kind != ChangeCreated || cr.Path != p || del.Kind != ChangeDeleted || del.Path != p {
				t.Fatalf("change %d: %s, %s; want %s created then deleted", 2*i, describeChanges([]Change{cr}), describeChanges([]Change{del}), p)
			}
			if cr.NotRead != NotReadChangedAgain {
				t.Errorf("%s created: not read %q, want %q (deleted before any read)", p, cr.NotRead, NotReadChangedAgain)
			}
		}
		sets := got[2*n:]
		for i, ch := range sets {
			if ch.Kind != ChangeData || ch.Path != base+"/x" {
				t.Fatalf("change %d: %s; want a data change of %s/x", 2*n+i, describeChanges([]Change{ch}), base)
			}
			last := i == n-1
			switch {
			case !last && ch.NotRead != NotReadChangedAgain:
				t.Errorf("set %d: not read %q: it was overtaken by the next in the same transaction", i+1, ch.NotRead)
			case last && (ch.NotRead != "" || string(ch.New) != fmt.Sprint(n) || ch.Version != before+n):
				t.Errorf("last set: %s, not read %q; want v%d %q", describeChanges([]Change{ch}), ch.NotRead, before+n, fmt.Sprint(n))
			}
		}

		// The one-shot followers of the same nodes, for comparison: one
		// merged data change, and no child change at all (the children
		// came and went between two listings).
		merged := oneShot.waitFor(t, seen+1)[seen]
		if merged.Kind != ChangeData || string(merged.Old) != "before" || string(merged.New) != fmt.Sprint(n) {
			t.Errorf("one-shot follower: %s", describeChanges([]Change{merged}))
		}
		// Each change read exactly when the follower keeps up: write,
		// wait for it, write again.
		for i := range 3 {
			v := fmt.Sprintf("step %d", i)
			if _, err := w.Set(ctx, base+"/x", []byte(v), -1); err != nil {
				t.Fatal(err)
			}
			all := rec.waitFor(t, start+3*n+i+1)
			ch := all[len(all)-1]
			want := fmt.Sprint(n)
			if i > 0 {
				want = fmt.Sprintf("step %d", i-1)
			}
			if ch.NotRead != "" || string(ch.New) != v || string(ch.Old) != want {
				t.Errorf("step %d: %s old %q, want %q → %q", i, describeChanges([]Change{ch}), ch.Old, want, v)
			}
		}
		// A child made after the burst: the one-shot children follower
		// reports it, and nothing of the burst's before it.
		makeTree(t, c, base, "/zz")
		next := kids.waitFor(t, kidsBefore+1)[kidsBefore]
		if len(next.Added) != 1 || next.Added[0] != "zz" || len(next.Removed) != 0 {
			t.Errorf("one-shot children follower: %s %v %v, want only +zz (the burst's children came and went between two listings)", describeChanges([]Change{next}), next.Added, next.Removed)
		}
		cancel()
		if err := <-ready; err != context.Canceled {
			t.Errorf("FollowRecursive ended with %v, want context.Canceled", err)
		}
	})
}

// TestFollowRecursiveFallsBack: a server that answers addWatch as one
// before 3.6 does is followed with one-shot watches, with a note.
func TestFollowRecursiveFallsBack(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{UnknownOps: []jute.Op{jute.OpAddWatch}})
	c := dialTest(t, srv.ConnectString())
	base := zktest.Path(t)
	makeTree(t, c, base, "/a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := newChangeLog()
	watching := make(chan struct{})
	go func() { _ = c.FollowRecursive(ctx, base, rec.options(watching), rec.add) }()
	await(t, watching, "the one-shot followers")
	// Each follower sets its watches with its first read, which the test
	// cannot see: set /a until a change of it is seen.
	w, _ := c.Writer()
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		if _, err := w.Set(ctx, base+"/a", []byte(fmt.Sprint(i)), -1); err != nil {
			t.Fatal(err)
		}
		select {
		case <-rec.wake:
		case <-time.After(200 * time.Millisecond):
		}
		rec.mu.Lock()
		n := len(rec.got)
		rec.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no change seen through the one-shot fallback")
		}
	}
	makeTree(t, c, base, "/a/new")
	got := rec.waitFor(t, 2)
	found := false
	for _, ch := range got {
		if ch.Kind == ChangeChildren && ch.Path == base+"/a" && len(ch.Added) == 1 && ch.Added[0] == "new" {
			found = true
		}
	}
	if !found {
		got = rec.waitFor(t, len(got)+1)
		for _, ch := range got {
			found = found || ch.Kind == ChangeChildren && len(ch.Added) == 1 && ch.Added[0] == "new"
		}
	}
	if !found {
		t.Errorf("the new child was not reported: %s", describeChanges(got))
	}
	rec.mu.Lock()
	notes := strings.Join(rec.notes, "\n")
	rec.mu.Unlock()
	if !strings.Contains(notes, "persistent watches") || !strings.Contains(notes, "one-shot") {
		t.Errorf("no note of the fallback: %q", notes)
	}
}

// TestFollowRecursiveGap: when the watch's connection is dropped, a gap
// is reported and the watch is set again on a new session.
func TestFollowRecursiveGap(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dialTest(t, srv.ConnectString())
	base := zktest.Path(t)
	makeTree(t, c, base)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := map[int64]bool{}
	for _, id := range srv.SessionIDs() {
		before[id] = true
	}
	rec := newChangeLog()
	watching := make(chan struct{})
	go func() { _ = c.FollowRecursive(ctx, base, rec.options(watching), rec.add) }()
	await(t, watching, "the recursive watch")
	makeTree(t, c, base, "/one")
	rec.waitFor(t, 1)
	for _, id := range srv.SessionIDs() {
		if !before[id] {
			srv.DropConnection(id) // the watch's own session
		}
	}
	got := rec.waitFor(t, 2)
	if got[1].Kind != ChangeGap {
		t.Fatalf("after the drop: %s, want a gap", describeChanges(got))
	}
	// Set again: a new change is seen (retrying until the new watch is in
	// place, which the test cannot observe otherwise).
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		makeTree(t, c, base, fmt.Sprintf("/again%d", i))
		select {
		case <-rec.wake:
		case <-time.After(200 * time.Millisecond):
		}
		rec.mu.Lock()
		n := len(rec.got)
		rec.mu.Unlock()
		if n > 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watch was not set again")
		}
	}
}

// TestWhoAmI: the server names the session's identities (3.7+); a server
// that does not answer whoAmI is "unknown", not an error.
func TestWhoAmI(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect, WithAuth("digest", []byte("alice:secret")))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		who, err := c.WhoAmI(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, id := range who.Identities {
			ids = append(ids, id.Scheme+":"+id.User)
		}
		if !who.Known || !strings.Contains(strings.Join(ids, " "), "digest:alice") || !strings.Contains(strings.Join(ids, " "), "ip:127.0.0.1") {
			t.Errorf("whoami: known %v, %v", who.Known, ids)
		}
	})
	srv := zktest.EmbeddedServer(t, zkserver.Config{UnknownOps: []jute.Op{jute.OpWhoAmI}})
	c := dialTest(t, srv.ConnectString())
	who, err := c.WhoAmI(context.Background())
	if err != nil || who.Known {
		t.Errorf("whoami on an older server: %+v, %v; want unknown, no error", who, err)
	}
}
