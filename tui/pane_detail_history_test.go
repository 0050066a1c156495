package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
)

// TestHistoryTab: in a read-only explorer, H on a node shows the changes
// another client makes to it as they come: data old → new with the
// server's zxid and time, children added and removed, an ephemeral
// child's node created and deleted with its owner's session.
func TestHistoryTab(t *testing.T) {
	t.Parallel()
	srv := goldenServer(t)
	writer := zktest.Conn(t, srv.ConnectString())
	mustCreate(t, writer, "/app", "", 0)
	mustCreate(t, writer, "/app/config", `{"replicas":3}`, 0)
	app := newTestApp(t, srv.ConnectString(), true)
	d := newDriver(t, app, 120, 32)
	d.waitText("zookeeper")
	d.key(":")
	d.typeText("cd /app/config")
	d.key("enter")
	d.waitText(`"replicas": 3`)
	d.key("H")
	d.waitFor("both watches", func(s string) bool {
		return strings.Contains(s, "data followed since") && strings.Contains(s, "children followed since")
	})
	if s := d.screen(); !strings.Contains(s, "no change seen yet") {
		t.Fatalf("the first reads are no change:\n%s", s)
	}

	if _, err := writer.Set("/app/config", []byte(`{"replicas":5}`), -1); err != nil {
		t.Fatal(err)
	}
	d.waitText(`data v1`)
	mustCreate(t, writer, "/app/config/feature-x", "on", 0)
	d.waitText("+feature-x")
	if err := writer.Delete("/app/config/feature-x", -1); err != nil {
		t.Fatal(err)
	}
	// The screen is complete once the row's live count is back to none.
	// The header's zxid follows the tree's stats as they arrive: wait for
	// the delete's, which the golden shows.
	_, st, err := writer.Exists("/app/config")
	if err != nil {
		t.Fatal(err)
	}
	s := d.waitFor("the removal, the count back, and the header at the delete's zxid", func(s string) bool {
		return strings.Contains(s, "−feature-x") && !strings.Contains(s, "config  1") && strings.Contains(s, fmt.Sprintf("zxid 0x%x ", st.Pzxid))
	})
	goldenScreen(t, s)

	// An ephemeral node's deletion names its owner's session. The row goes
	// with the node; its history stays, for when it comes back.
	owner := zktest.Conn(t, srv.ConnectString())
	mustCreate(t, owner, "/app/leader", "me", zk.FlagEphemeral)
	d.waitText("leader") // the tree's child watch on /app saw it
	d.key(":")
	d.typeText("cd /app/leader")
	d.key("enter")
	d.waitFor("the leader's history", func(s string) bool {
		return strings.Contains(s, "/app/leader") && strings.Contains(s, "data followed since")
	})
	first := owner.SessionID()
	owner.Close()
	d.waitFor("the leader gone", func(s string) bool { return !strings.Contains(s, "leader") })
	mustCreate(t, zktest.Conn(t, srv.ConnectString()), "/app/leader", "me again", zk.FlagEphemeral)
	d.waitText("leader")
	d.key(":")
	d.typeText("cd /app/leader")
	d.key("enter")
	d.waitFor("the deletion", func(s string) bool {
		return strings.Contains(s, "/app/leader") && strings.Contains(s, fmt.Sprintf(`was "me" · ephemeral of %#x`, first))
	})

	// ? explains what is kept and what ZooKeeper does not say.
	d.key("?")
	d.waitText("ZooKeeper does not say who")
	d.key("x")
	// H again goes back to the data.
	d.key("H")
	d.waitFor("the Data tab", func(s string) bool { return !strings.Contains(s, "followed since") })
}

// TestHistoryEntryCountsChanges: an entry that stands for a burst read
// together says how many changes the versions counted, and names only what
// differs between its two reads.
func TestHistoryEntryCountsChanges(t *testing.T) {
	t.Parallel()
	clock := &listsClock{now: listsEpoch}
	d := newDetailPane(listsShared(t, clock))
	d.width = 100
	burst := zkview.HistoryEntry{Change: zkview.Change{Kind: zkview.ChangeChildren, Zxid: 0x42, Seen: clock.now,
		Added: []string{"w0-1", "w0-2"}, Removed: []string{"w0-0"}}, Unseen: 290, Changes: 293}
	lines := d.historyEntry(burst)
	if !strings.Contains(lines[0], "children 293 changes between two reads: +2 −1") || !strings.Contains(lines[1], "+w0-1 +w0-2 −w0-0") {
		t.Errorf("a burst's entry:\n%s", strings.Join(lines, "\n"))
	}
	// In a narrow pane the count and the figures stay whole, the words go;
	// the names stop where the line is cut.
	d.width = 40
	burst.Added = []string{"w0-000000001", "w0-000000002", "w0-000000003", "w0-000000004", "w0-000000005"}
	lines = d.historyEntry(burst)
	if !strings.Contains(lines[0], "children 293 changes: +5 −1") || !strings.HasPrefix(lines[1], "    +w0-000000001 +w0-000000002 +w0-000000003") ||
		strings.Contains(lines[1], "w0-000000005") {
		t.Errorf("a burst's entry, 40 columns:\n%s", strings.Join(lines, "\n"))
	}
	d.width = 100
	one := zkview.HistoryEntry{Change: zkview.Change{Kind: zkview.ChangeChildren, Zxid: 0x43, Seen: clock.now, Added: []string{"w0-3"}}, Changes: 1}
	if lines := d.historyEntry(one); strings.Contains(lines[0], "changes") || !strings.Contains(lines[0], "children +1 −0") {
		t.Errorf("a single change's entry:\n%s", strings.Join(lines, "\n"))
	}
}
