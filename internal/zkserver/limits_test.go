package zkserver

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/wireclient"
)

// startLimited starts a server on a free loopback port with cfg.
func startLimited(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := Start("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dialWire(t *testing.T, addr string) *wireclient.Conn {
	t.Helper()
	c, err := wireclient.Dial(addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestMaxClientCnxns: past the limit of connections from one address the
// server closes a new connection at once, unanswered, as ZooKeeper's
// maxClientCnxns does; a connection that ends makes room again.
func TestMaxClientCnxns(t *testing.T) {
	t.Parallel()
	s := startLimited(t, Config{MaxClientCnxns: 3})
	var open []*wireclient.Conn
	for range 3 {
		open = append(open, dialWire(t, s.ConnectString()))
	}
	if c, err := wireclient.Dial(s.ConnectString(), 5*time.Second); err == nil {
		c.Close()
		t.Fatal("a 4th connection from the same address got a session; the limit is 3")
	}
	open[0].Close()
	retryFor(t, "room after a connection closed", func() (bool, string) {
		c, err := wireclient.Dial(s.ConnectString(), 5*time.Second)
		if err != nil {
			return false, err.Error()
		}
		c.Close()
		return true, ""
	})
	// Four-letter words count as connections too, as in ZooKeeper: until
	// the server has seen the probe above close, the limit holds and conf
	// is refused (an empty answer), so it is asked until it answers.
	var conf string
	retryFor(t, "conf answered", func() (bool, string) {
		conf = fourLetter(t, s.ConnectString(), "conf")
		return conf != "", "refused: the probe's closed connection still counted"
	})
	if !strings.Contains(conf, "maxClientCnxns=3") {
		t.Errorf("conf does not say the limit:\n%s", conf)
	}
}

func fourLetter(t *testing.T, addr, cmd string) string {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	nc.Write([]byte(cmd))
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := nc.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// TestMaxTreeBytes: a write that would grow the tree past the bound is
// refused with QUOTAEXCEEDED (ZooKeeper's answer to a write past an
// enforced quota), in a multi as the failed operation, and changes
// nothing; deletes make room again.
func TestMaxTreeBytes(t *testing.T) {
	t.Parallel()
	s := startLimited(t, Config{MaxTreeBytes: 64 << 10})
	c := dialWire(t, s.ConnectString())
	acl := []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
	create := func(path string, size int) jute.Code {
		h, err := c.Call(jute.OpCreate, &jute.CreateRequest{Path: path, Data: make([]byte, size), ACL: acl}, &jute.PathResponse{})
		if err != nil {
			t.Fatal(err)
		}
		return h.Err
	}
	if code := create("/a", 30<<10); code != jute.ErrOK {
		t.Fatalf("create of 30 KiB under a 64 KiB bound: %d", code)
	}
	if code := create("/b", 40<<10); code != jute.ErrQuotaExceeded {
		t.Fatalf("create past the bound: code %d, want %d (quota exceeded)", code, jute.ErrQuotaExceeded)
	}
	h, err := c.Call(jute.OpSetData, &jute.SetDataRequest{Path: "/a", Data: make([]byte, 70<<10), Version: -1}, &jute.StatResponse{})
	if err != nil || h.Err != jute.ErrQuotaExceeded {
		t.Fatalf("setData growing past the bound: %v %d", err, h.Err)
	}
	var resp jute.MultiResponse
	h, err = c.Call(jute.OpMulti, &jute.MultiRequest{Ops: []jute.MultiOp{
		{Type: jute.OpCreate, Rec: &jute.CreateRequest{Path: "/m1", ACL: acl}},
		{Type: jute.OpCreate, Rec: &jute.CreateRequest{Path: "/m2", Data: make([]byte, 40<<10), ACL: acl}},
	}}, &resp)
	if err != nil || len(resp.Results) != 2 || resp.Results[1].Err != jute.ErrQuotaExceeded {
		t.Fatalf("a multi past the bound: %v %d %+v", err, h.Err, resp.Results)
	}
	if h, _ := c.Call(jute.OpExists, &jute.PathWatchRequest{Path: "/m1"}, &jute.StatResponse{}); h.Err != jute.ErrNoNode {
		t.Errorf("the refused multi created /m1: %d", h.Err)
	}
	if h, _ := c.Call(jute.OpDelete, &jute.PathIntRequest{Path: "/a", Value: -1}, nil); h.Err != jute.ErrOK {
		t.Fatalf("delete: %d", h.Err)
	}
	if code := create("/b", 40<<10); code != jute.ErrOK {
		t.Fatalf("create after a delete made room: %d", code)
	}
}

// TestMaxWatches: a read that would set a watch past the bound is
// refused whole with THROTTLEDOP (ZooKeeper's answer for a request it
// did not execute at all); reads without a watch go on, and a watch that
// fires makes room.
func TestMaxWatches(t *testing.T) {
	t.Parallel()
	s := startLimited(t, Config{MaxWatches: 2})
	c := dialWire(t, s.ConnectString())
	acl := []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
	for _, p := range []string{"/w1", "/w2", "/w3"} {
		if h, err := c.Call(jute.OpCreate, &jute.CreateRequest{Path: p, ACL: acl}, &jute.PathResponse{}); err != nil || h.Err != jute.ErrOK {
			t.Fatalf("create %s: %v %d", p, err, h.Err)
		}
	}
	get := func(path string, watch bool) jute.Code {
		h, err := c.Call(jute.OpGetData, &jute.PathWatchRequest{Path: path, Watch: watch}, &jute.GetDataResponse{})
		if err != nil {
			t.Fatal(err)
		}
		return h.Err
	}
	if get("/w1", true) != jute.ErrOK || get("/w2", true) != jute.ErrOK {
		t.Fatal("two watches under a bound of two refused")
	}
	if code := get("/w3", true); code != jute.ErrThrottled {
		t.Fatalf("a third watch: code %d, want %d (throttled)", code, jute.ErrThrottled)
	}
	if code := get("/w3", false); code != jute.ErrOK {
		t.Errorf("a read without a watch at the bound: %d", code)
	}
	if h, _ := c.Call(jute.OpSetData, &jute.SetDataRequest{Path: "/w1", Data: []byte("x"), Version: -1}, &jute.StatResponse{}); h.Err != jute.ErrOK {
		t.Fatal("setData")
	}
	c.WaitEvents(1, 5*time.Second)
	if code := get("/w3", true); code != jute.ErrOK {
		t.Errorf("a watch after one fired: %d", code)
	}
}

// retryFor calls try every 20 ms until it is done, and fails the test with
// what and try's last state if 10 s pass first: the server sees a closed
// connection a moment after its client closes it.
func retryFor(t *testing.T, what string, try func() (done bool, state string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		done, state := try()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s: %s", what, state)
		}
		time.Sleep(20 * time.Millisecond) // polling for the server to see the close, bounded by the deadline
	}
}
