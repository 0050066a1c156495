package tui

import (
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/zktest"
)

// TestExplorerFollowsItsSession: the connection drops (the header says
// suspended, then connected again), then the session expires (a new one
// opens and every view reads again): the tree keeps following changes and
// a recipe page recovers.
func TestExplorerFollowsItsSession(t *testing.T) {
	srv := zktest.EmbeddedServer(t, zkserverConfig())
	connect := srv.ConnectString()
	base := zktest.Path(t)
	admin := zkConn(t, connect)
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

	srv.DropConnection(app.ctx.Client.SessionID())
	// Update takes one message at a time and the screen is read between
	// them, so the suspended state is seen even if it is short.
	d.waitText("suspended")
	d.waitText("connected")
	old := app.ctx.Client.SessionID()
	srv.ExpireSession(old)
	d.waitText("(1 new since start)")
	if app.ctx.Client.SessionID() == old {
		t.Fatal("no new session after expiry")
	}
	mustCreate(t, admin, base+"/after", "", 0)
	d.waitFor("the tree following the new session", func(s string) bool {
		return strings.Contains(s, "after") && strings.Contains(s, "before")
	})
	d.send(pushMsg{page: newRecipePage(app.ctx, lock)})
	d.waitText("1 holding · 0 waiting")
	mustCreate(t, admin, lock+"/_c_00000001-aaaa-bbbb-cccc-000000000000-lock-", "", zk.FlagEphemeral|zk.FlagSequence)
	d.waitText("1 holding · 1 waiting")
}
