package tui

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestFindPage: F asks for a query under the selected node, the matches
// are listed, and Enter goes to one in the tree.
func TestFindPage(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserverConfig())
	connect := srv.ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	mustCreate(t, admin, base, "", 0)
	mustCreate(t, admin, base+"/a", "", 0)
	mustCreate(t, admin, base+"/a/lock-1", "one", 0)
	mustCreate(t, admin, base+"/b", "", 0)
	mustCreate(t, admin, base+"/b/lock-2", "two", 0)
	mustCreate(t, admin, base+"/b/other", "three", 0)
	app := newTestApp(t, connect, true)
	d := newDriver(t, app, 120, 30)
	d.key(":")
	d.typeText("cd " + base)
	d.key("enter")
	d.waitText("History   " + base)
	d.key("F")
	d.waitText("find>")
	d.typeText("lock-*")
	d.key("enter")
	d.waitText("2 of 6 nodes matched")
	d.waitText(base + "/b/lock-2")
	d.key("j")
	d.key("enter")
	d.waitText(`two`)
	if _, ok := d.app.top().(*treePage); !ok {
		t.Fatalf("Enter on a match left the page %T on top", d.app.top())
	}
	if got := d.app.pages[0].(*treePage).tree.selectedPath(); got != base+"/b/lock-2" {
		t.Fatalf("selected %s after Enter on a match", got)
	}
}
