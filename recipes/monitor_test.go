package recipes

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestMonitorHoldingLostWhileRewatching: the watch on a held node goes
// (EventNotWatching, as after an expiry), the monitor asks for it again, and
// the answer does not come (the server is stalled); the session is declared
// lost meanwhile. Done must close then, not once the request gives up (the
// nemesis test saw Done lag a lost session by seconds). The request gives
// up when go-zookeeper stops waiting for the silent server, two thirds of
// the 30 s session timeout later; the test waits a third of that.
func TestMonitorHoldingLostWhileRewatching(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	// NewSession, not Dial: a Session made by Dial closes its connection
	// when lost, which ends the request at once and hides the wait.
	conn, events, err := zk.Connect([]string{srv.ConnectString()}, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	s, err := NewSession(conn, events, WithSessionTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	path := zktest.Path(t)
	if _, err := s.Conn().Create(path, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	rewatch := make(chan struct{}, 1)
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.SessionID == s.ID() && r.Op == jute.OpGetData && r.Path == path {
			select {
			case rewatch <- struct{}{}:
			default:
			}
		}
		return zkserver.Proceed
	})
	srv.SetSessionReplyDelay(s.ID(), time.Hour) // no answer from now on

	own := make(chan zk.Event, 1)
	lost, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	go s.monitorHolding(path, own, lost, release)
	own <- zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: path}
	waitClosed(t, "the monitor's request to watch again", rewatch)
	s.lose(errors.New("lost for the test"))
	select {
	case <-lost:
	case <-time.After(7 * time.Second):
		t.Fatal("Done not closed 7s after the session was lost: it waited for the request")
	}
	srv.ExpireSession(s.ID()) // Close would wait a second for an answer held back by the delay
}
