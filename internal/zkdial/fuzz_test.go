package zkdial

import (
	"bytes"
	"errors"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
)

// endConn closes ended when a read fails: the client has read all it
// will.
type endConn struct {
	net.Conn
	ended chan struct{}
	once  sync.Once
}

func (c *endConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil {
		c.once.Do(func() { close(c.ended) })
	}
	return n, err
}

// fuzzRequests are what the fuzzed session asks, in order (go-zookeeper
// numbers them from xid 1): one of each kind of reply it decodes.
var fuzzRequests = []func(c *zk.Conn) error{
	func(c *zk.Conn) error { _, _, err := c.Exists("/"); return err },
	func(c *zk.Conn) error { _, _, err := c.Children("/"); return err },
	func(c *zk.Conn) error { _, _, err := c.Get("/a"); return err },
	func(c *zk.Conn) error { _, _, err := c.GetACL("/"); return err },
	func(c *zk.Conn) error {
		_, err := c.Multi(&zk.CreateRequest{Path: "/m", Acl: zk.WorldACL(zk.PermAll)}, &zk.DeleteRequest{Path: "/d", Version: -1})
		return err
	},
	func(c *zk.Conn) error { _, err := c.Sync("/"); return err },
	func(c *zk.Conn) error { _, _, _, err := c.ExistsW("/w"); return err },
	func(c *zk.Conn) error {
		_, err := c.Create("/c", []byte("x"), zk.FlagPersistent, zk.WorldACL(zk.PermAll))
		return err
	},
}

// fuzzSeeds are server streams: an honest session answering every
// request, and the faults of issue 22.
func fuzzSeeds() [][]byte {
	stat := record(&jute.StatResponse{})
	honest := join(
		connectAnswer(10000, 0x1234),
		rawReply(1, jute.ErrOK, stat),
		rawReply(2, jute.ErrOK, record(&jute.GetChildren2Response{Children: []string{"zookeeper"}})),
		rawReply(3, jute.ErrOK, record(&jute.GetDataResponse{Data: []byte("x")})),
		rawReply(4, jute.ErrOK, record(&jute.GetACLResponse{ACL: []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}})),
		rawReply(5, jute.ErrOK, record(&jute.MultiResponse{Results: []jute.MultiResult{
			{Type: jute.OpCreate, Rec: &jute.PathResponse{Path: "/m"}}, {Type: jute.OpDelete}}})),
		rawReply(6, jute.ErrOK, record(&jute.PathResponse{Path: "/"})),
		rawReply(7, jute.ErrNoNode, nil),
		notificationOf(jute.EventNodeCreated, jute.StateSyncConnected, "/w"),
		rawReply(8, jute.ErrOK, record(&jute.PathResponse{Path: "/c"})),
	)
	return [][]byte{
		nil,
		honest,
		connectAnswer(0, 0x1234),
		join(connectAnswer(10000, 1), rawReply(1, jute.ErrOK, stat), rawReply(2, jute.ErrOK, []byte{0x7f, 0xff, 0xff, 0xff})),
		join(connectAnswer(10000, 1), rawReply(1, jute.ErrOK, stat), rawReply(2, jute.ErrOK, []byte{0xff, 0xff, 0xff, 0xff})),
		join(connectAnswer(10000, 1), []byte{0, 0, 0, 5, 0, 0, 0, 1, 0}),
		join(connectAnswer(10000, 1), rawReply(1, jute.ErrOK, stat), rawReply(3, jute.ErrOK, record(&jute.GetDataResponse{Data: make([]byte, 64)}))),
		{0x80, 0, 0, 0, 1, 2, 3, 4},
		[]byte("HTTP/1.1 400 Bad Request\r\n\r\n"),
	}
}

// FuzzGoZookeeperOverServerStream runs go-zookeeper itself, through the
// checked connection, against a server that sends the fuzzed bytes (then
// closes): whatever they are, go-zookeeper must not panic (a panic in its
// goroutines ends the fuzzing process), every request must end, and the
// run must allocate in proportion to the bytes sent, not to the lengths
// they announce.
func FuzzGoZookeeperOverServerStream(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		runGoZookeeperOver(t, stream)
		runtime.ReadMemStats(&after)
		// go-zookeeper's own buffers are 3 MiB a connection.
		if grew, bound := after.TotalAlloc-before.TotalAlloc, uint64(16<<20+32*len(stream)); grew > bound {
			t.Fatalf("%d bytes from the server made the client allocate %d bytes (bound %d)", len(stream), grew, bound)
		}
	})
}

// runGoZookeeperOver connects go-zookeeper to a one-connection server
// that sends stream, asks fuzzRequests in turn until one fails for the
// connection's sake, and closes.
func runGoZookeeperOver(t *testing.T, stream []byte) {
	w := NewWatch([]string{"fuzz:2181"}, Options{})
	dialed := false
	ended := make(chan struct{}) // the client read the stream's end
	dial := func(_, addr string, _ time.Duration) (net.Conn, error) {
		if dialed {
			return nil, errors.New("the fuzzed server takes one connection")
		}
		dialed = true
		a := &attempt{addr: addr, watch: w}
		c := newCheckedConn(newGuardConn(newScript(bytes.Clone(stream)), a, false, DefaultAnswerTimeout), a, DefaultMaxFrame, false)
		return &endConn{Conn: c, ended: ended}, nil
	}
	conn, events, err := zk.Connect([]string{"fuzz:2181"}, 10*time.Second, zk.WithLogger(quietLogger{}), zk.WithLogInfo(false),
		zk.WithMaxBufferSize(DefaultMaxFrame), zk.WithDialer(dial), zk.WithHostProvider(&Hosts{}))
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		for _, ask := range fuzzRequests {
			if err := ask(conn); errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrClosing) {
				return
			}
		}
	}()
	// Once the client has read the stream's end, nothing more will come:
	// a request queued since waits for a reconnection that cannot be.
	hang := time.After(30 * time.Second)
	select {
	case <-asked:
	case <-ended:
	case <-hang:
		t.Fatal("a request never ended")
	}
	// Close waits up to a second for an answer to closeSession that no
	// connection will carry; the session's end is its events' close.
	go conn.Close()
	select {
	case <-asked:
	case <-hang:
		t.Fatal("a request never ended")
	}
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-hang:
			t.Fatal("go-zookeeper did not stop after Close")
		}
	}
}
