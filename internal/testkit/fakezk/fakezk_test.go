package fakezk

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestHonestFakeServesGoZookeeper: the kit's control case is a server
// go-zookeeper works with, so what the misbehaving cases break is theirs.
func TestHonestFakeServesGoZookeeper(t *testing.T) {
	t.Parallel()
	s := New(t, Honest())
	conn, events, err := zk.Connect([]string{s.Addr()}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	deadline := time.After(10 * time.Second)
	for connected := false; !connected; {
		select {
		case ev := <-events:
			connected = ev.State == zk.StateHasSession
		case <-deadline:
			t.Fatal("no session from the honest fake")
		}
	}
	children, _, err := conn.Children("/")
	if err != nil || len(children) != 1 || children[0] != "zookeeper" {
		t.Fatalf("children of /: %v %v", children, err)
	}
	if ok, _, err := conn.Exists("/nothing"); ok || err != nil {
		t.Fatalf("exists /nothing: %v %v", ok, err)
	}
	if _, err := conn.Create("/x", nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != zk.ErrNoAuth {
		t.Fatalf("create: %v, want no auth", err)
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
