package recipes

import (
	"sync/atomic"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestEnsureDirParentRemoved: a parent directory goes between ensureDir's
// create of it and the create of its child, as an emptied container does
// when the server reaps it (the nemesis test found a Semaphore acquisition
// failing so, after a pause had expired every session). ensureDir makes the
// parent again instead of failing with NoNode.
func TestEnsureDirParentRemoved(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	s := dialTest(t, srv.ConnectString())
	other := dialTest(t, srv.ConnectString())
	base := zktest.Path(t)
	parent, child := base+"/parent", base+"/parent/child"
	var fired atomic.Bool
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.SessionID == s.ID() && r.Path == child && fired.CompareAndSwap(false, true) {
			if err := other.Conn().Delete(parent, -1); err != nil {
				t.Errorf("remove the parent: %v", err)
			}
		}
		return zkserver.Proceed
	})
	if err := s.ensureDir(testContext(t), child, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if !fired.Load() {
		t.Fatal("the fault never fired")
	}
	if ok, _, err := s.Conn().Exists(child); !ok || err != nil {
		t.Fatalf("after ensureDir: %s exists %v, %v", child, ok, err)
	}
}
