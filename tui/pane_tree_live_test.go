package tui

import (
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestCollapsedCountsStayLive: the child counts of collapsed rows on screen
// follow their children, though neither they nor their parents are
// expanded for it: a grandchild added under a collapsed row, and a first
// child under a leaf row.
func TestCollapsedCountsStayLive(t *testing.T) {
	t.Parallel()
	srv := goldenServer(t)
	writer := zktest.Conn(t, srv.ConnectString())
	for _, p := range []string{"/app", "/app/locks", "/app/locks/a", "/app/config"} {
		mustCreate(t, writer, p, "", 0)
	}
	app := newTestApp(t, srv.ConnectString(), true)
	d := newDriver(t, app, 120, 32)
	d.waitText("zookeeper")
	d.key(":")
	d.typeText("cd /app/config")
	d.key("enter")
	d.waitFor("the rows under /app", func(s string) bool {
		return strings.Contains(s, "▸ locks  1") && strings.Contains(s, "config")
	})
	d.waitFor("the collapsed rows counted", func(string) bool {
		return app.shared.Tree.Counted("/app/locks") && app.shared.Tree.Counted("/app/config")
	})
	mustCreate(t, writer, "/app/locks/b", "", 0)
	d.waitText("▸ locks  2")
	mustCreate(t, writer, "/app/config/x", "", 0)
	d.waitText("▸ config  1")
	if err := writer.Delete("/app/locks/a", -1); err != nil {
		t.Fatal(err)
	}
	d.waitText("▸ locks  1")
}
