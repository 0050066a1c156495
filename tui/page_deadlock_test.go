package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// deadlockScene: session 0xa1 holds /app/l1 and waits in /app/l2's queue;
// 0xa2 holds /app/l2 and waits in /app/l1's.
func deadlockScene(now time.Time) (recognize.Result, *introspect.Snapshot) {
	lock := func(path string, holder, waiter int64) recognize.Lock {
		h := fakeContender(curatorNode("lock", 0), holder, "", time.Minute, now)
		w := fakeContender(curatorNode("lock", 1), waiter, "", 30*time.Second, now)
		h.Format, w.Format, w.WaitsFor = "curator", "curator", h.Node
		return recognize.Lock{Path: path, Recipe: "mutex", Format: "curator", Holders: []recognize.Contender{h}, Waiters: []recognize.Contender{w}}
	}
	res := recognize.Result{Locks: []recognize.Lock{lock("/app/l1", 0xa1, 0xa2), lock("/app/l2", 0xa2, 0xa1)}}
	in := fakeIntrospection(now)
	in.Sessions = []introspect.Session{
		{ID: 0xa1, Hex: "0xa1", Client: "10.0.0.5:51234", Server: "zk1:2181", Connected: true, Timeout: 10 * time.Second,
			Ephemerals: []string{"/app/l1/" + curatorNode("lock", 0), "/app/l2/" + curatorNode("lock", 1)}},
		{ID: 0xa2, Hex: "0xa2", Client: "10.0.0.6:40112", Server: "zk2:2181", Connected: true, Timeout: 10 * time.Second,
			Ephemerals: []string{"/app/l1/" + curatorNode("lock", 1), "/app/l2/" + curatorNode("lock", 0)}},
	}
	return res, in
}

// TestLocksListShowsDeadlock: :locks finds the cycle across its rows and
// says it in red above them, counts it in the summary, and names it in
// each lock's warnings cell.
func TestLocksListShowsDeadlock(t *testing.T) {
	t.Parallel()
	clock := &listsClock{now: listsEpoch}
	res, in := deadlockScene(clock.now)
	f := &fakeSource{res: res, snapshot: in, dirs: map[string]recognize.Recipe{}, errs: map[string]error{}}
	p := newRecipeListPageFrom(listsShared(t, clock), kindLocks, "/app", f.source())
	newPageRunner(t, p, 120, 40)
	v := p.View()
	for _, want := range []string{"2 locks under /app", "1 deadlock", "✗ deadlock: sessions 0xa1 and 0xa2 wait for each other in a cycle: session 0xa1 holds"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q on\n%s", want, v)
		}
	}
	for _, path := range []string{"/app/l1", "/app/l2"} {
		if cells, _ := rowCells(p, path); !strings.Contains(cells, "DEADLOCK") {
			t.Errorf("%s: %s", path, cells)
		}
	}
	// The recipes the page keeps are as recognised: the deadlock is
	// worked out at each rebuild, not written into them.
	if l := p.recipes["/app/l1"].(*recognize.Lock); l.Deadlocked || len(l.Warnings) != 0 {
		t.Errorf("the page's recipe was marked: %+v", l)
	}
}

// TestSessionPageTellsItsStory: a session in the cycle: the deadlock in
// red first, what it holds, where it waits and behind whom, its nodes
// labelled by their part.
func TestSessionPageTellsItsStory(t *testing.T) {
	t.Parallel()
	clock := &listsClock{now: listsEpoch}
	res, in := deadlockScene(clock.now)
	f := &fakeSource{res: res, snapshot: in}
	p := newSessionPageFrom(listsShared(t, clock), 0xa1, in, f.source())
	newPageRunner(t, p, 120, 40)
	v := p.View()
	for _, want := range []string{
		"✗ DEADLOCK   deadlock: sessions 0xa1 and 0xa2 wait for each other",
		"holds      /app/l1 (mutex, curator): lock-0000000000, held ≤1m00s (start not seen)",
		"waits      /app/l2 (mutex, curator): waiter 1 lock-0000000001 — curator lock-0000000000 (session 0xa2) holds",
		"holds      /app/l1/_c_", "waits      /app/l2/_c_",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q on\n%s", want, v)
		}
	}
}

// TestRecipePageSaysDeadlock: a lock's own page finds the cycle it is in
// through its contenders' sessions' ephemeral nodes, and leads with it in
// red.
func TestRecipePageSaysDeadlock(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserverConfig())
	connect := srv.ConnectString()
	root := zktest.Path(t)
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan error, 2)
	defer func() { cancel(); <-waiting; <-waiting }()
	var sessions []*recipes.Session
	for range 2 {
		s, err := recipes.Dial([]string{connect})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions = append(sessions, s)
	}
	l1, l2 := root+"/l1", root+"/l2"
	for i, p := range []string{l1, l2} {
		if err := recipes.NewMutex(sessions[i], p).Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	go func() { waiting <- recipes.NewMutex(sessions[0], l2).Lock(ctx) }()
	go func() { waiting <- recipes.NewMutex(sessions[1], l1).Lock(ctx) }()

	app := newTestApp(t, connect, false)
	d := newDriver(t, app, 120, 40)
	d.waitText("zookeeper")
	d.send(pushMsg{page: newRecipePage(app.shared, l1)})
	d.waitFor("the deadlock on the lock's page, first, in red", func(s string) bool {
		lines := strings.Split(s, "\n")
		return len(lines) > 2 && strings.HasPrefix(lines[2], "✗ deadlock: sessions "+fmt.Sprintf("0x%x", sessions[0].ID())) &&
			strings.Contains(s, "mutex · zkx · 1 holding · 1 waiting")
	})
}
