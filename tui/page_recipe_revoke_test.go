package tui

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestRevokeKey: r on a Curator lock whose holder looks revocable (its
// node empty, its session watching it) asks, writes __REVOKE__ into the
// holder's node, and the page then says when the revocation was
// requested, as F does; on a Kazoo lock r refuses with the reason.
func TestRevokeKey(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserverConfig())
	connect := srv.ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	mustCreate(t, admin, base, "", 0)
	curDir, kzDir := base+"/curator", base+"/kazoo"
	mustCreate(t, admin, curDir, "", 0)
	mustCreate(t, admin, kzDir, "", 0)
	holder := zktest.Conn(t, connect)
	node := mustCreate(t, holder, curDir+"/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-", "", zk.FlagEphemeral|zk.FlagSequence)
	// A revocable Curator holder watches its own node.
	if _, _, _, err := holder.GetW(node); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, zktest.Conn(t, connect), kzDir+"/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1__lock__", "k1", zk.FlagEphemeral|zk.FlagSequence)

	app := newTestApp(t, connect, false)
	d := newDriver(t, app, 120, 40)
	d.waitText("zookeeper")
	d.send(pushMsg{page: newRecipePage(app.shared, curDir)})
	d.waitText("1 holding · 0 waiting")
	d.key("r")
	d.waitFor("the request's confirmation", func(s string) bool {
		return strings.Contains(s, "Ask the holder of "+curDir+" to release?") &&
			strings.Contains(s, fmt.Sprintf("session  0x%x", holder.SessionID())) && strings.Contains(s, "hears    its node is empty")
	})
	d.key("y")
	d.waitFor("the page flagging the request", func(s string) bool {
		return strings.Contains(s, "asked #0 to release") && strings.Contains(s, "revocation requested at")
	})
	if data, _, err := admin.Get(node); err != nil || string(data) != recognize.RevokeMarker {
		t.Fatalf("the holder's node holds %q (%v), want %s", data, err, recognize.RevokeMarker)
	}
	d.key("F")
	d.waitFor("F mentioning the request", func(s string) bool {
		return strings.Contains(s, "Force-release") && strings.Contains(s, "revoke   asked ") && strings.Contains(s, ", still held")
	})
	d.key("esc")

	d.send(pushMsg{page: newRecipePage(app.shared, kzDir)})
	d.waitText("mutex · kazoo · 1 holding")
	d.key("r")
	d.waitFor("the refusal", func(s string) bool {
		return strings.Contains(s, "Revoke: not asked") && strings.Contains(s, "Kazoo has no revocation")
	})
	if data, _, err := admin.Get(path.Join(kzDir, "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1__lock__0000000000")); err != nil || string(data) != "k1" {
		t.Fatalf("the Kazoo holder's node holds %q (%v)", data, err)
	}
}
