package zkdial

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// scriptConn is a peer whose bytes are given in advance: reads return
// them, then EOF; writes are kept.
type scriptConn struct {
	input   *bytes.Reader
	written bytes.Buffer
	closed  bool
}

func newScript(stream []byte) *scriptConn { return &scriptConn{input: bytes.NewReader(stream)} }

func (s *scriptConn) Read(b []byte) (int, error) {
	if s.closed {
		return 0, net.ErrClosed
	}
	return s.input.Read(b)
}
func (s *scriptConn) Write(b []byte) (int, error)      { return s.written.Write(b) }
func (s *scriptConn) Close() error                     { s.closed = true; return nil }
func (s *scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (s *scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (s *scriptConn) SetDeadline(time.Time) error      { return nil }
func (s *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (s *scriptConn) SetWriteDeadline(time.Time) error { return nil }

func frameOf(build func(e *jute.Encoder)) []byte {
	e := jute.NewFrameEncoder()
	build(e)
	return jute.Frame(e)
}

func connectAnswer(timeout int32, session int64) []byte {
	return frameOf(func(e *jute.Encoder) {
		(&jute.ConnectResponse{TimeOut: timeout, SessionID: session, Passwd: make([]byte, 16)}).Encode(e)
	})
}

func notificationOf(typ jute.EventType, state jute.State, path string) []byte {
	return frameOf(func(e *jute.Encoder) {
		(&jute.ReplyHeader{Xid: jute.XidNotification, Zxid: -1}).Encode(e)
		(&jute.WatcherEvent{Type: typ, State: state, Path: path}).Encode(e)
	})
}

func record(r jute.Record) []byte {
	e := jute.NewEncoder(nil)
	r.Encode(e)
	return e.Bytes()
}

func requestOf(xid int32, op jute.Op, body jute.Record) []byte {
	return frameOf(func(e *jute.Encoder) {
		(&jute.RequestHeader{Xid: xid, Type: op}).Encode(e)
		if body != nil {
			body.Encode(e)
		}
	})
}

var connectRequest = frameOf(func(e *jute.Encoder) {
	(&jute.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)}).Encode(e)
})

// session runs a client's side over a scripted server stream: it writes
// the session request and requests (reqs, in order, each before the
// server's next frame is read) and reads every frame until an error.
// It returns what the client read and the error that ended the reading.
func session(t *testing.T, w *Watch, stream []byte, reqs ...[]byte) ([]byte, error) {
	t.Helper()
	a := &attempt{addr: "127.0.0.1:2181", watch: w}
	c := newCheckedConn(newScript(stream), a, 1<<20, false)
	if _, err := c.Write(connectRequest); err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if _, err := c.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := io.ReadAll(c)
	return got, err
}

func TestCheckedConnPassesZooKeeper(t *testing.T) {
	t.Parallel()
	children := record(&jute.GetChildren2Response{Children: []string{"a", "zookeeper"}})
	data := record(&jute.GetDataResponse{Data: []byte("x"), Stat: jute.Stat{DataLength: 1}})
	multi := record(&jute.MultiResponse{Results: []jute.MultiResult{
		{Type: jute.OpCreate, Rec: &jute.PathResponse{Path: "/a"}},
		{Type: jute.OpSetData, Rec: &jute.StatResponse{}},
		{Type: jute.OpDelete},
		{Type: jute.OpError, Err: jute.ErrNoNode}}})
	stream := bytes.Join([][]byte{
		connectAnswer(10000, 0x1234),
		rawReply(1, jute.ErrOK, children),
		rawReply(-2, jute.ErrOK, nil),
		notificationOf(jute.EventNodeDataChanged, jute.StateSyncConnected, "/w"),
		rawReply(3, jute.ErrOK, data),
		rawReply(2, jute.ErrNoNode, nil), // an error reply has no body
		rawReply(4, jute.ErrOK, multi),
	}, nil)
	w := NewWatch([]string{"127.0.0.1:2181"}, Options{})
	got, err := session(t, w, stream,
		requestOf(1, jute.OpGetChildren2, &jute.PathWatchRequest{Path: "/"}),
		requestOf(-2, jute.OpPing, nil),
		requestOf(2, jute.OpExists, &jute.PathWatchRequest{Path: "/w", Watch: true}),
		requestOf(3, jute.OpGetData, &jute.PathWatchRequest{Path: "/a"}),
		requestOf(4, jute.OpMulti, &jute.MultiRequest{}))
	if err != nil {
		t.Fatalf("a ZooKeeper stream refused: %v", err)
	}
	if !bytes.Equal(got, stream) {
		t.Fatalf("the stream was changed on its way through:\n%x\n%x", got, stream)
	}
	if w.Fatal() != nil {
		t.Errorf("the watch gave up: %v", w.Fatal())
	}
}

// join puts frames one after another in a new slice.
func join(frames ...[]byte) []byte { return bytes.Join(frames, nil) }

// rawReply is a reply frame with body as given.
func rawReply(xid int32, code jute.Code, body []byte) []byte {
	f := frameOf(func(e *jute.Encoder) { (&jute.ReplyHeader{Xid: xid, Zxid: 7, Err: code}).Encode(e) })
	f = append(f, body...)
	binary.BigEndian.PutUint32(f, uint32(len(f)-4))
	return f
}

// TestCheckedConnRefuses: every frame ZooKeeper never sends ends the
// connection with an error that says what was wrong, before the reader
// gets a byte of it; in a session, the watch gives up with it.
func TestCheckedConnRefuses(t *testing.T) {
	t.Parallel()
	ok := connectAnswer(10000, 0x1234)
	list := requestOf(1, jute.OpGetChildren2, &jute.PathWatchRequest{Path: "/"})
	cases := []struct {
		name    string
		stream  []byte
		reqs    [][]byte
		kind    ProtocolErrorKind
		want    string
		handOut int // bytes read before the refusal
	}{
		{"session timeout 0", connectAnswer(0, 0x1234), nil, NotZooKeeper, "session timeout of 0 ms", 0},
		{"negative session timeout", connectAnswer(-5, 0x1234), nil, NotZooKeeper, "session timeout of -5 ms", 0},
		{"no session for a new one", connectAnswer(0, 0), nil, NotZooKeeper, "no session (id 0)", 0},
		{"2 GiB answer", []byte{0x80, 0, 0, 0, 1, 2, 3}, nil, NotZooKeeper, "a frame of 2147483648 bytes", 0},
		{"protocol version", frameOf(func(e *jute.Encoder) {
			(&jute.ConnectResponse{ProtocolVersion: 7, TimeOut: 1, SessionID: 1, Passwd: make([]byte, 16)}).Encode(e)
		}), nil, NotZooKeeper, "protocol version 7", 0},
		{"huge vector", join(ok, rawReply(1, jute.ErrOK, []byte{0x7f, 0xff, 0xff, 0xff})), [][]byte{list}, BadReply,
			"vector length 2147483647 (children) with 0 bytes left in a 20-byte getChildren2 reply", len(ok)},
		{"null vector", join(ok, rawReply(1, jute.ErrOK, []byte{0xff, 0xff, 0xff, 0xff})), [][]byte{list}, BadReply,
			"vector length -1 (children)", len(ok)},
		{"string past the frame", join(ok, rawReply(1, jute.ErrOK, []byte{0, 0, 0, 1, 0, 0, 0, 9, 'a'})), [][]byte{list}, BadReply,
			"string length 9 (children) with 1 bytes left", len(ok)},
		{"stat cut off", join(ok, rawReply(1, jute.ErrOK, []byte{0, 0, 0, 0, 1, 2})), [][]byte{list}, BadReply,
			"stat cut off", len(ok)},
		{"a reply shorter than its header", join(ok, []byte{0, 0, 0, 5, 0, 0, 0, 1, 0}), [][]byte{list}, BadReply,
			"a frame of 5 bytes (a reply has 16 to", len(ok)},
		{"a reply over the limit", join(ok, []byte{0x01, 0, 0, 0}), [][]byte{list}, BadReply, "a frame of 16777216 bytes", len(ok)},
		{"a reply to no request", join(ok, rawReply(1001, jute.ErrOK, nil)), [][]byte{list}, BadReply,
			"a reply to request 1001, which was not sent", len(ok)},
		{"a reply twice", join(ok, rawReply(1, jute.ErrNoNode, nil), rawReply(1, jute.ErrNoNode, nil)), [][]byte{list}, BadReply,
			"a reply to request 1, which was not sent or was answered already", len(ok) + 20},
		{"an answer to no ping", join(ok, rawReply(-2, jute.ErrOK, nil)), nil, BadReply, "an answer to a ping that was not sent", len(ok)},
		{"a notification unwatched", join(ok, notificationOf(jute.EventNodeDeleted, jute.StateSyncConnected, "/flood/1")), [][]byte{list}, BadReply,
			`a notification for "/flood/1", which this session does not watch`, len(ok)},
		{"a session event as a notification", join(ok, notificationOf(jute.EventNone, jute.StateExpired, "/")), nil, BadReply, "event type -1", len(ok)},
		{"a notification's state", join(ok, notificationOf(jute.EventNodeCreated, jute.StateDisconnected, "/")), nil, BadReply, "state 0", len(ok)},
		{"a multi result of no type", join(ok, rawReply(1, jute.ErrOK, []byte{0, 0, 0, 99, 0, 0, 0, 0, 0})),
			[][]byte{requestOf(1, jute.OpMulti, &jute.MultiRequest{})}, BadReply, "a multi result of type 99", len(ok)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWatch([]string{"127.0.0.1:2181"}, Options{})
			got, err := session(t, w, tc.stream, tc.reqs...)
			var pe *ProtocolError
			if !errors.As(err, &pe) || pe.Kind != tc.kind || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a %v ProtocolError saying %q", err, tc.kind, tc.want)
			}
			if len(got) != tc.handOut {
				t.Errorf("%d bytes handed out before the refusal, want %d", len(got), tc.handOut)
			}
			select {
			case abort := <-w.Abort():
				if !errors.As(abort, &pe) {
					t.Errorf("the watch gave up with %v", abort)
				}
			default:
				t.Errorf("the watch did not give up")
			}
		})
	}
}

func TestCheckedConnNamesTheMember(t *testing.T) {
	t.Parallel()
	w := NewWatch([]string{"127.0.0.1:2181"}, Options{})
	_, err := session(t, w, join(connectAnswer(10000, 1), rawReply(1, jute.ErrOK, []byte{0x7f, 0xff, 0xff, 0xff})),
		requestOf(1, jute.OpGetChildren, &jute.PathWatchRequest{Path: "/"}))
	want := "127.0.0.1:2181 sent a reply that is not ZooKeeper's: vector length 2147483647 (children) with 0 bytes left in a 20-byte getChildren reply"
	if err == nil || err.Error() != want {
		t.Fatalf("error %q\nwant  %q", err, want)
	}
	if w.Fatal() == nil || w.Fatal().Error() != want {
		t.Errorf("the watch's fatal error: %v", w.Fatal())
	}
}

// TestCheckedConnWatches: a notification answers a watch the session
// left, on any request that leaves one, setWatches and persistent
// recursive watches included.
func TestCheckedConnWatches(t *testing.T) {
	t.Parallel()
	ok := connectAnswer(10000, 1)
	stream := bytes.Join([][]byte{ok,
		notificationOf(jute.EventNodeChildrenChanged, jute.StateSyncConnected, "/kids"),
		notificationOf(jute.EventNodeCreated, jute.StateSyncConnected, "/later"),
		notificationOf(jute.EventNodeDataChanged, jute.StateSyncConnected, "/re"),
		notificationOf(jute.EventNodeDeleted, jute.StateSyncConnected, "/tree/a/b"),
	}, nil)
	w := NewWatch([]string{"127.0.0.1:2181"}, Options{})
	_, err := session(t, w, stream,
		requestOf(1, jute.OpGetChildren2, &jute.PathWatchRequest{Path: "/kids", Watch: true}),
		requestOf(2, jute.OpExists, &jute.PathWatchRequest{Path: "/later", Watch: true}),
		requestOf(3, jute.OpSetWatches, &jute.SetWatches{DataWatches: []string{"/re"}}),
		requestOf(4, jute.OpAddWatch, &jute.PathIntRequest{Path: "/tree", Value: jute.AddWatchPersistentRecursive}))
	if err != io.EOF && err != nil {
		t.Fatalf("watched notifications refused: %v", err)
	}
}

// TestCheckedConnStall: a request unanswered for a session timeout while
// pings sent after it are answered ends the connection, named.
func TestCheckedConnStall(t *testing.T) {
	t.Parallel()
	w := NewWatch([]string{"127.0.0.1:2181"}, Options{})
	a := &attempt{addr: "127.0.0.1:2181", watch: w}
	s := newScript(join(connectAnswer(1000, 1), rawReply(-2, jute.ErrOK, nil)))
	c := newCheckedConn(s, a, 1<<20, false)
	c.Write(connectRequest)
	buf := make([]byte, 64)
	if _, err := io.ReadFull(c, buf[:len(connectAnswer(1000, 1))]); err != nil {
		t.Fatal(err)
	}
	c.Write(requestOf(1, jute.OpExists, &jute.PathWatchRequest{Path: "/slow"}))
	c.Write(requestOf(-2, jute.OpPing, nil))
	c.mu.Lock()
	c.pending[1].at = time.Now().Add(-2 * time.Second) // as if sent that long ago
	c.mu.Unlock()
	if u := w.Unanswered(); u != "" {
		t.Errorf("no current connection in the watch, yet: %q", u)
	}
	w.current = c
	_, err := c.Read(buf)
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Kind != Stalled || !strings.Contains(err.Error(), "exists /slow has waited 2s for an answer while the server answered 1 ping sent after it") {
		t.Fatalf("error %v, want a stall", err)
	}
	if !strings.Contains(w.Unanswered(), "has not answered exists /slow") {
		t.Errorf("Unanswered: %q", w.Unanswered())
	}
}

// TestCheckedConnSASLRequired: error -124 on a reply gives up at once with
// the advice to authenticate.
func TestCheckedConnSASLRequired(t *testing.T) {
	t.Parallel()
	w := NewWatch([]string{"127.0.0.1:2181"}, Options{})
	session(t, w, join(connectAnswer(10000, 1), rawReply(1, jute.ErrSessionClosedRequireSASL, nil)),
		requestOf(1, jute.OpExists, &jute.PathWatchRequest{Path: "/"}))
	var sr *SASLRequiredError
	if !errors.As(w.Fatal(), &sr) {
		t.Fatalf("fatal: %v, want SASL required", w.Fatal())
	}
}

// BenchmarkCheckedConnReplies: the cost the check adds to each reply of a
// walk (a getChildren2 of ten children, requested, read, checked, handed
// on), against the socket's own.
func BenchmarkCheckedConnReplies(b *testing.B) {
	body := record(&jute.GetChildren2Response{Children: []string{"n0000", "n0001", "n0002", "n0003", "n0004", "n0005", "n0006", "n0007", "n0008", "n0009"}})
	const batch = 1000
	var stream bytes.Buffer
	stream.Write(connectAnswer(10000, 1))
	for xid := int32(1); xid <= batch; xid++ {
		stream.Write(rawReply(xid, jute.ErrOK, body))
	}
	reqs := make([][]byte, batch)
	for i := range reqs {
		reqs[i] = requestOf(int32(i+1), jute.OpGetChildren2, &jute.PathWatchRequest{Path: "/t/d000"})
	}
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(rawReply(1, jute.ErrOK, body))))
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		a := &attempt{addr: "bench:2181"}
		c := newCheckedConn(newScript(stream.Bytes()), a, DefaultMaxFrame, false)
		c.readPace = 0 // the check's cost alone: no wait for more bytes at the end
		c.Write(connectRequest)
		for _, r := range reqs {
			c.Write(r)
		}
		for {
			if _, err := c.Read(buf); err != nil {
				break
			}
		}
	}
}

// BenchmarkCheckedConnNotifications: the cost the check adds to each
// notification of a busy watched node (read, checked, handed on), with no
// wait between reads (readPace 0): it allocates nothing per notification.
func BenchmarkCheckedConnNotifications(b *testing.B) {
	const batch = 1000
	var stream bytes.Buffer
	stream.Write(connectAnswer(10000, 1))
	stream.Write(rawReply(1, jute.ErrOK, record(&jute.StatResponse{})))
	for range batch {
		stream.Write(notificationOf(jute.EventNodeChildrenChanged, jute.StateSyncConnected, "/storm"))
	}
	watch := requestOf(1, jute.OpExists, &jute.PathWatchRequest{Path: "/storm", Watch: true})
	buf := make([]byte, 4096)
	b.ReportAllocs()
	b.SetBytes(int64(len(notificationOf(jute.EventNodeChildrenChanged, jute.StateSyncConnected, "/storm"))))
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		a := &attempt{addr: "bench:2181"}
		c := newCheckedConn(newScript(stream.Bytes()), a, DefaultMaxFrame, false)
		c.readPace = 0
		c.Write(connectRequest)
		c.Write(watch)
		for {
			if _, err := c.Read(buf); err != nil {
				break
			}
		}
	}
}

// TestCheckedConnPaceGivesWay: while the reader lets notifications gather
// (readPace, an hour here), a request sent ends its wait, so that the
// answer is read as it comes, and so does Close. Without either wake-up
// the frames below would come an hour late.
func TestCheckedConnPaceGivesWay(t *testing.T) {
	t.Parallel()
	client, server := net.Pipe()
	defer server.Close()
	a := &attempt{addr: "127.0.0.1:2181", watch: NewWatch([]string{"127.0.0.1:2181"}, Options{})}
	c := newCheckedConn(client, a, 1<<20, false)
	c.readPace = time.Hour
	go func() { // the server: each answer after its request, a notification after the watch's
		for _, answer := range [][]byte{
			connectAnswer(10000, 1),
			join(rawReply(1, jute.ErrOK, record(&jute.StatResponse{})), notificationOf(jute.EventNodeDataChanged, jute.StateSyncConnected, "/t")),
			rawReply(2, jute.ErrOK, record(&jute.GetDataResponse{})),
		} {
			if _, err := jute.ReadFrame(server, 1<<20); err != nil {
				return
			}
			if _, err := server.Write(answer); err != nil {
				return
			}
		}
	}()
	type read struct {
		frame []byte
		err   error
	}
	reads := make(chan read, 8)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			reads <- read{bytes.Clone(buf[:n]), err}
			if err != nil {
				return
			}
		}
	}()
	next := func(what string) read {
		t.Helper()
		select {
		case r := <-reads:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("%s not read within 10s: the reader still waits for its pace", what)
		}
		return read{}
	}
	c.Write(connectRequest)
	if r := next("the answer to the session request"); r.err != nil {
		t.Fatal(r.err)
	}
	c.Write(requestOf(1, jute.OpExists, &jute.PathWatchRequest{Path: "/t", Watch: true}))
	if r := next("the watch's reply"); r.err != nil {
		t.Fatal(r.err)
	}
	// The notification that follows waits for the pace, until a request:
	c.Write(requestOf(2, jute.OpGetData, &jute.PathWatchRequest{Path: "/t"}))
	if r := next("the notification"); r.err != nil || !bytes.Equal(r.frame, notificationOf(jute.EventNodeDataChanged, jute.StateSyncConnected, "/t")) {
		t.Fatalf("read %x, %v; want the notification", r.frame, r.err)
	}
	if r := next("the getData reply"); r.err != nil || !bytes.Equal(r.frame, rawReply(2, jute.ErrOK, record(&jute.GetDataResponse{}))) {
		t.Fatalf("read %x, %v; want the getData reply", r.frame, r.err)
	}
	c.Close()
	if r := next("the close"); r.err == nil {
		t.Fatalf("read %x after Close, want an error", r.frame)
	}
}
