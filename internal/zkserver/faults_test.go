package zkserver_test

import (
	"encoding/binary"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/wireclient"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

func dial(t *testing.T, srv *zkserver.Server) *wireclient.Conn {
	t.Helper()
	c, err := wireclient.Dial(srv.ConnectString(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustCall(t *testing.T, c *wireclient.Conn, op jute.Op, req jute.Record) {
	t.Helper()
	h, err := c.Call(op, req, nil)
	if err != nil || h.Err != jute.ErrOK {
		t.Fatalf("op %d: %v %s", op, err, h.Err.String())
	}
}

// TestDropAfterApply is the case protected creates exist for: the create
// happens, but the client only sees its connection drop.
func TestDropAfterApply(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dial(t, srv)
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Op == jute.OpCreate && r.Path == "/lost-reply" {
			return zkserver.DropAfterApply
		}
		return zkserver.Proceed
	})
	_, err := c.Call(jute.OpCreate, &jute.CreateRequest{Path: "/lost-reply", ACL: worldAll}, nil)
	if err == nil {
		t.Fatal("the create was answered; want a dropped connection")
	}
	back, err := wireclient.Reattach(srv.ConnectString(), 10*time.Second, c.SessionID, c.Passwd)
	if err != nil || back.SessionID != c.SessionID {
		t.Fatalf("re-attach after a dropped connection: %v (session %x)", err, back.SessionID)
	}
	defer back.Close()
	mustCall(t, back, jute.OpExists, &jute.PathWatchRequest{Path: "/lost-reply"})
}

func TestDropBeforeApply(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dial(t, srv)
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Op == jute.OpCreate {
			return zkserver.DropBeforeApply
		}
		return zkserver.Proceed
	})
	if _, err := c.Call(jute.OpCreate, &jute.CreateRequest{Path: "/never", ACL: worldAll}, nil); err == nil {
		t.Fatal("the create was answered; want a dropped connection")
	}
	srv.SetFaultHook(nil)
	other := dial(t, srv)
	if h, _ := other.Call(jute.OpExists, &jute.PathWatchRequest{Path: "/never"}, nil); h.Err != jute.ErrNoNode {
		t.Fatalf("a create dropped before it was applied exists: %s", h.Err.String())
	}
}

// TestDropConnectionKeepsSession: the session and its ephemerals outlive
// the dropped connection, and the client re-attaches.
func TestDropConnectionKeepsSession(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dial(t, srv)
	mustCall(t, c, jute.OpCreate, &jute.CreateRequest{Path: "/e", ACL: worldAll, Flags: jute.ModeEphemeral})
	if !srv.DropConnection(c.SessionID) {
		t.Fatal("DropConnection found no connection")
	}
	<-c.Done()
	back, err := wireclient.Reattach(srv.ConnectString(), 10*time.Second, c.SessionID, c.Passwd)
	if err != nil || back.SessionID != c.SessionID {
		t.Fatalf("re-attach: %v", err)
	}
	defer back.Close()
	mustCall(t, back, jute.OpExists, &jute.PathWatchRequest{Path: "/e"})
}

// TestReplyDelayIsALowerBound checks an injected delay holds replies back
// at least that long and keeps their order.
func TestReplyDelayIsALowerBound(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dial(t, srv)
	const delay = 150 * time.Millisecond
	if !srv.SetSessionReplyDelay(c.SessionID, delay) {
		t.Fatal("no such session")
	}
	start := time.Now()
	mustCall(t, c, jute.OpExists, &jute.PathWatchRequest{Path: "/"})
	if elapsed := time.Since(start); elapsed < delay {
		t.Fatalf("reply after %v, before the injected %v", elapsed, delay)
	}
	srv.SetSessionReplyDelay(c.SessionID, 0)
	srv.SetReplyDelay(delay)
	order := pipelined(t, c, 5)
	for i, xid := range order {
		if xid != int32(100+i) {
			t.Fatalf("replies out of order under delay: %v", order)
		}
	}
}

// TestPauseHoldsRequests: nothing is answered while the server is paused,
// and everything is once it resumes.
func TestPauseHoldsRequests(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dial(t, srv)
	srv.Pause()
	var resumedAt atomic.Int64
	time.AfterFunc(100*time.Millisecond, func() {
		resumedAt.Store(time.Now().UnixNano())
		srv.Resume()
	})
	mustCall(t, c, jute.OpExists, &jute.PathWatchRequest{Path: "/"})
	answered := time.Now().UnixNano()
	if r := resumedAt.Load(); r == 0 || answered < r {
		t.Fatal("a request was answered while the server was paused")
	}
}

// TestFIFOPerClient sends requests back to back without waiting and checks
// the replies come in the order the requests were sent.
func TestFIFOPerClient(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c := dial(t, srv)
	order := pipelined(t, c, 200)
	for i, xid := range order {
		if xid != int32(100+i) {
			t.Fatalf("reply %d has xid %d", i, xid)
		}
	}
}

// pipelined writes n requests (xids 100…) in one go, alternating writes and
// reads, and returns the xids of the replies in arrival order.
func pipelined(t *testing.T, c *wireclient.Conn, n int) []int32 {
	t.Helper()
	var frames []byte
	for i := 0; i < n; i++ {
		e := jute.NewEncoder(make([]byte, 4))
		xid := int32(100 + i)
		if i%2 == 0 {
			(&jute.RequestHeader{Xid: xid, Type: jute.OpSetData}).Encode(e)
			(&jute.SetDataRequest{Path: "/", Data: []byte{byte(i)}, Version: -1}).Encode(e)
		} else {
			(&jute.RequestHeader{Xid: xid, Type: jute.OpGetData}).Encode(e)
			(&jute.PathWatchRequest{Path: "/"}).Encode(e)
		}
		b := e.Bytes()
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		frames = append(frames, b...)
	}
	c.ReplyOrder() // forget earlier replies
	if _, err := c.SendFrame(int32(100+n-1), frames); err != nil {
		t.Fatal(err)
	}
	order := c.ReplyOrder()
	if len(order) != n {
		t.Fatalf("%d replies to %d requests", len(order), n)
	}
	return order
}

// waitGone waits (with a deadline) for a watch on path to report NodeDeleted.
func waitGone(t *testing.T, w *wireclient.Conn, path string, deadline time.Duration) {
	t.Helper()
	for _, ev := range w.WaitEvents(1, deadline) {
		if ev.Type == jute.EventNodeDeleted && ev.Path == path {
			return
		}
	}
	t.Fatalf("%s was not deleted within %v", path, deadline)
}

// TestReattachWithShorterTimeout: the session then expires by the new,
// shorter timeout, as ZooKeeper re-arms it.
func TestReattachWithShorterTimeout(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	long, err := wireclient.Dial(srv.ConnectString(), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, long, jute.OpCreate, &jute.CreateRequest{Path: "/e", ACL: worldAll, Flags: jute.ModeEphemeral})
	long.Drop()
	short, err := wireclient.Reattach(srv.ConnectString(), 300*time.Millisecond, long.SessionID, long.Passwd)
	if err != nil || short.SessionID != long.SessionID {
		t.Fatalf("re-attach: %v", err)
	}
	w := dial(t, srv)
	mustCall(t, w, jute.OpExists, &jute.PathWatchRequest{Path: "/e", Watch: true})
	short.Drop()
	waitGone(t, w, "/e", 10*time.Second) // the old 30 s deadline would miss this
}

// TestPauseExpiresSilentSessions: like a SIGSTOPped ZooKeeper, a paused
// server expires on resume the sessions that outlived their timeout.
func TestPauseExpiresSilentSessions(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c, err := wireclient.Dial(srv.ConnectString(), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustCall(t, c, jute.OpCreate, &jute.CreateRequest{Path: "/e", ACL: worldAll, Flags: jute.ModeEphemeral})
	w := dial(t, srv)
	mustCall(t, w, jute.OpExists, &jute.PathWatchRequest{Path: "/e", Watch: true})
	srv.Pause()
	time.AfterFunc(time.Second, srv.Resume) // frozen for over three session timeouts
	waitGone(t, w, "/e", 10*time.Second)
	<-c.Done() // and its connection is closed, as after any expiry
}

func TestSubMillisecondTickDump(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{TickTime: 500 * time.Microsecond})
	dial(t, srv)
	out, err := zktest.FourLetter(srv.ConnectString(), "dump", 10*time.Second)
	if err != nil || !strings.HasPrefix(out, "SessionTracker dump:") {
		t.Fatalf("dump: %q %v", out, err)
	}
}
