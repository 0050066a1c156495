package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestExplorerFollowsItsSession: the connection drops (the header says
// suspended, then connected again), then the session expires (a new one
// opens and every view reads again): the tree keeps following changes and
// a recipe page recovers.
func TestExplorerFollowsItsSession(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserverConfig())
	connect := srv.ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	mustCreate(t, admin, base, "", 0)
	mustCreate(t, admin, base+"/before", "", 0)
	lock := base + "/lock"
	mustCreate(t, admin, lock, "", 0)
	mustCreate(t, admin, lock+"/_c_00000000-aaaa-bbbb-cccc-000000000000-lock-", "", zk.FlagEphemeral|zk.FlagSequence)

	app := newTestApp(t, connect, false)
	d := newDriver(t, app, 120, 30)
	d.waitText("zookeeper")
	d.key(":")
	d.typeText("cd " + base + "/before")
	d.key("enter")
	d.waitText("before")

	srv.DropConnection(app.shared.Client.SessionID())
	// Update takes one message at a time and the screen is read between
	// them, so the suspended state is seen even if it is short.
	d.waitText("suspended")
	d.waitText("connected")
	old := app.shared.Client.SessionID()
	srv.ExpireSession(old)
	d.waitText("(1 new since start)")
	if app.shared.Client.SessionID() == old {
		t.Fatal("no new session after expiry")
	}
	mustCreate(t, admin, base+"/after", "", 0)
	d.waitFor("the tree following the new session", func(s string) bool {
		return strings.Contains(s, "after") && strings.Contains(s, "before")
	})
	d.send(pushMsg{page: newRecipePage(app.shared, lock)})
	d.waitText("1 holding · 0 waiting")
	mustCreate(t, admin, lock+"/_c_00000001-aaaa-bbbb-cccc-000000000000-lock-", "", zk.FlagEphemeral|zk.FlagSequence)
	d.waitText("1 holding · 1 waiting")
}

// TestExplorerWhileMembersDie connects the explorer to a real 3-node
// ensemble and kills the member it talks to, then the leader, then takes
// the quorum away for a moment: each time the header says suspended, then
// connected (to a survivor), and the tree goes on following changes.
func TestExplorerWhileMembersDie(t *testing.T) {
	t.Parallel()
	e := zktest.Real(t, 3)
	connect := e.ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	mustCreate(t, admin, base, "", 0)
	mustCreate(t, admin, base+"/before", "", 0)
	app := newTestApp(t, connect, false)
	d := newDriver(t, app, 160, 30)
	d.waitText("connected")
	d.key(":")
	d.typeText("cd " + base + "/before") // opens base
	d.key("enter")
	d.waitText("before")

	member := func(addr string) *zktest.Member {
		for _, m := range e.Members() {
			if m.Addr() == addr {
				return m
			}
		}
		t.Fatalf("connected to %q, not a member of %s", addr, connect)
		return nil
	}
	step := 0
	follows := func(what string) {
		t.Helper()
		step++
		child := fmt.Sprintf("after-%d", step)
		createThroughFaults(t, admin, base+"/"+child)
		d.waitFor(what+": the tree showing "+child, func(s string) bool { return strings.Contains(s, child) })
	}
	reconnected := func(what, dead string) {
		t.Helper()
		d.waitText("suspended")
		d.waitFor(what+": connected to a survivor", func(s string) bool {
			server := app.shared.Client.Server()
			return server != dead && strings.Contains(s, "→ "+server) && strings.Contains(strings.SplitN(s, "\n", 2)[0], "connected")
		})
	}

	mine := member(app.shared.Client.Server())
	mine.Kill(t)
	reconnected("its member killed", mine.Addr())
	follows("its member killed")
	mine.Restart(t)
	e.WaitServing(t)

	leader := e.Leader(t)
	leader.Kill(t)
	if app.shared.Client.Server() == leader.Addr() {
		reconnected("the leader killed", leader.Addr())
	}
	follows("the leader killed")
	leader.Restart(t)
	e.WaitServing(t)

	// No quorum: the member we talk to drops us, and nobody can serve
	// until the others come back (sooner than the session times out).
	mine = member(app.shared.Client.Server())
	var others []*zktest.Member
	for _, m := range e.Members() {
		if m != mine {
			others = append(others, m)
		}
	}
	for _, m := range others {
		m.Pause(t)
	}
	d.waitText("suspended")
	for _, m := range others {
		m.Resume(t)
	}
	e.WaitServing(t)
	reconnectedAfterQuorum := func(s string) bool {
		return strings.Contains(strings.SplitN(s, "\n", 2)[0], "connected")
	}
	d.waitFor("the quorum back: connected", reconnectedAfterQuorum)
	follows("the quorum back")
}

// createThroughFaults creates a node while members die: a create whose
// connection went, or that found no server (an election under way), is
// sent again (go-zookeeper holds it until it has reconnected, or has tried
// every server once), and NodeExists then means the first one was applied.
func createThroughFaults(t *testing.T, conn *zk.Conn, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := conn.Create(path, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll))
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			return
		case !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrNoServer) || time.Now().After(deadline):
			t.Fatalf("create %s: %v", path, err)
		}
	}
}
