package zkdial

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/jute"
)

// checkedConn sits where the session reads and writes: over the wrap,
// whose SASL exchange it never sees. It reads each request on its way out
// (its xid, opcode, path, and whether it leaves a watch) and reads each
// frame from the server whole before the session sees a byte of it: the
// answer to the session request, then replies, pings and notifications,
// each checked against what was asked (see checkFrame). A frame that is
// not ZooKeeper's closes the connection with a *ProtocolError, so that
// go-zookeeper, which allocates whatever a length on the wire says and
// trusts the session timeout it is given, never reads it.
type checkedConn struct {
	net.Conn
	attempt  *attempt
	maxFrame int
	wrapped  bool

	// The reader's own: the frame being handed out, and when the socket
	// was last read (pace).
	rd        *bufio.Reader
	head      [4]byte // the next frame's length
	frame     []byte
	off       int
	rerr      error
	lastFill  time.Time
	readPace  time.Duration // readPace; tests change it
	paceTimer *time.Timer
	socket    syscall.RawConn // the socket below, for its low-water mark (pace); nil: none

	sent chan struct{} // has a value when a request went out or Close was called (pace)

	wmu sync.Mutex
	out []byte // the start of a request not yet written whole

	mu        sync.Mutex
	askedID   int64 // the session the session request asked for (0: new)
	session   bool  // the session request was answered
	timeout   time.Duration
	pending   map[int32]*request
	order     []*request // in the order sent; answered ones leave from the front
	pingsSent int        // pings are answered in the order sent
	pingsBack int
	watched   map[string]bool
	recursive []string // paths of persistent recursive watches
}

// request is one request sent and not yet answered.
type request struct {
	xid      int32
	op       jute.Op
	path     string
	at       time.Time
	answered bool
	// pingsBefore is how many pings were sent before it: the answers to
	// the later ones come after its own, from ZooKeeper.
	pingsBefore int
}

// pingsAfter is how many pings sent after r were answered.
func (c *checkedConn) pingsAfter(r *request) int { return max(0, c.pingsBack-r.pingsBefore) }

func newCheckedConn(below net.Conn, a *attempt, maxFrame int, wrapped bool) *checkedConn {
	return &checkedConn{Conn: below, attempt: a, maxFrame: maxFrame, wrapped: wrapped,
		rd: bufio.NewReaderSize(below, 64<<10), askedID: -1, readPace: readPace, sent: make(chan struct{}, 1),
		pending: map[int32]*request{}, watched: map[string]bool{}}
}

// Write notes each request as it goes out whole, before the server can
// answer it.
func (c *checkedConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.noteRequests(b) {
		c.wake()
	}
	return c.Conn.Write(b)
}

// noteRequests notes the requests written whole so far; noted says
// whether b completed one.
func (c *checkedConn) noteRequests(b []byte) (noted bool) {
	if len(c.out) > 0 {
		c.out = append(c.out, b...)
		b = c.out
	}
	for len(b) >= 4 {
		n := int(binary.BigEndian.Uint32(b))
		if n > len(b)-4 {
			break
		}
		c.noteRequest(b[4 : 4+n])
		noted = true
		b = b[4+n:]
	}
	c.out = append(c.out[:0], b...)
	return noted
}

// noteRequest reads one request frame's body: the first is the session
// request (no header); the rest start with xid and opcode.
func (c *checkedConn) noteRequest(body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := jute.NewDecoder(body)
	if c.askedID == -1 {
		var req jute.ConnectRequest
		req.Decode(d)
		c.askedID = req.SessionID
		return
	}
	var h jute.RequestHeader
	h.Decode(d)
	if d.Err() != nil {
		return
	}
	if h.Type == jute.OpPing {
		c.pingsSent++
		return
	}
	r := &request{xid: h.Xid, op: h.Type, at: time.Now(), pingsBefore: c.pingsSent}
	switch h.Type {
	case jute.OpExists, jute.OpGetData, jute.OpGetChildren, jute.OpGetChildren2:
		r.path = d.String()
		if d.Bool() && d.Err() == nil {
			c.watched[r.path] = true
		}
	case jute.OpAddWatch:
		r.path = d.String()
		if mode := d.Int(); d.Err() == nil {
			if mode == jute.AddWatchPersistentRecursive {
				c.recursive = append(c.recursive, r.path)
			} else {
				c.watched[r.path] = true
			}
		}
	case jute.OpSetWatches, jute.OpSetWatches2:
		sw := jute.SetWatches{HasPersistent: h.Type == jute.OpSetWatches2}
		sw.Decode(d)
		for _, list := range [][]string{sw.DataWatches, sw.ExistWatches, sw.ChildWatches, sw.PersistentWatches} {
			for _, p := range list {
				c.watched[p] = true
			}
		}
		c.recursive = append(c.recursive, sw.PersistentRecursiveWatches...)
	case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL, jute.OpDelete, jute.OpSetData,
		jute.OpGetACL, jute.OpSetACL, jute.OpSync, jute.OpGetAllChildrenNumber, jute.OpGetEphemerals:
		r.path = d.String()
	}
	if len(r.path) > 200 {
		r.path = r.path[:200] + "…"
	}
	c.pending[h.Xid] = r
	c.order = append(c.order, r)
}

// oldest is the oldest request still unanswered, or nil.
func (c *checkedConn) oldest() *request {
	for len(c.order) > 0 && c.order[0].answered {
		c.order[0] = nil
		c.order = c.order[1:]
	}
	if len(c.order) == 0 {
		return nil
	}
	return c.order[0]
}

// Read hands out the frames read and checked, one at a time.
func (c *checkedConn) Read(b []byte) (int, error) {
	for c.off >= len(c.frame) {
		if c.rerr != nil {
			return 0, c.rerr
		}
		if err := c.next(); err != nil {
			c.rerr = err
			return 0, err
		}
	}
	n := copy(b, c.frame[c.off:])
	c.off += n
	return n, nil
}

// next reads the next frame whole and checks it.
func (c *checkedConn) next() error {
	if cap(c.frame) > 1<<20 {
		c.frame = nil // a large frame is not held for the life of the connection
	}
	head := c.head[:]
	fill := c.rd.Buffered() == 0
	if fill {
		if err := c.pace(); err != nil {
			c.Conn.Close()
			return err
		}
	}
	if _, err := io.ReadFull(c.rd, head); err != nil {
		return c.readFailed(err, false)
	}
	if fill {
		c.lastFill = time.Now()
	}
	n := int64(int32(binary.BigEndian.Uint32(head)))
	c.mu.Lock()
	session := c.session
	c.mu.Unlock()
	limit, least := int64(c.maxFrame), int64(16)
	if !session {
		limit, least = maxConnectResponse, minConnectResponse
	}
	if n < least || n > limit {
		return c.violation(session, fmt.Sprintf("a frame of %d bytes (%s)", uint32(n), frameBounds(session, least, limit)))
	}
	frame, err := readFrame(c.rd, c.head, int(n), c.frame[:0])
	c.frame, c.off = frame, 0
	if err != nil {
		return c.readFailed(err, true)
	}
	if session {
		return c.checkFrame(frame[4:])
	}
	return c.checkAnswer(frame[4:])
}

func frameBounds(session bool, least, limit int64) string {
	if !session {
		return "an answer to a session request has 36 or 37"
	}
	return fmt.Sprintf("a reply has %d to %d", least, limit)
}

// readFrame reads a frame's body of n bytes after its head, growing the
// buffer as the bytes arrive rather than as the length announces them.
func readFrame(r io.Reader, head [4]byte, n int, buf []byte) ([]byte, error) {
	buf = append(buf, head[:]...)
	for len(buf) < 4+n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(4+n, max(2*cap(buf), 4096)))
			copy(grown, buf)
			buf = grown
		}
		k, err := r.Read(buf[len(buf):min(cap(buf), 4+n)])
		buf = buf[:len(buf)+k]
		if err != nil && len(buf) < 4+n {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

// readFailed passes on an error from below, after telling the watch what
// it means: a failure the wrap found fatal (SASL refused), a wrap's
// exchange that failed on this member, or a session's peer gone silent.
func (c *checkedConn) readFailed(err error, midFrame bool) error {
	var fatal *FatalError
	var ne net.Error
	c.mu.Lock()
	session, waiting, pings := c.session, c.oldest(), c.pingsSent-c.pingsBack
	c.mu.Unlock()
	switch {
	case errors.As(err, &fatal):
		c.attempt.giveUp(fatal)
	case !session && c.wrapped:
		// The wrap's exchange failed in a way another member may not.
		c.attempt.fail(err)
	case session && errors.As(err, &ne) && ne.Timeout() && (waiting != nil || pings > 0):
		what := "its pings"
		if waiting != nil {
			what = waiting.op.String() + " " + waiting.path + " nor its pings"
		}
		c.attempt.broke(fmt.Errorf("%s went silent: it answered neither %s for %v", c.attempt.addr, what, time.Since(c.lastSent(waiting)).Round(100*time.Millisecond)))
	case midFrame:
		c.attempt.broke(fmt.Errorf("%s closed the connection in the middle of a frame", c.attempt.addr))
	}
	return err
}

func (c *checkedConn) lastSent(r *request) time.Time {
	if r != nil {
		return r.at
	}
	return time.Now()
}

// checkAnswer checks the answer to the session request.
func (c *checkedConn) checkAnswer(body []byte) error {
	c.mu.Lock()
	asked := c.askedID
	c.mu.Unlock()
	resp, bad := checkConnectResponse(body, max(asked, 0))
	if bad != "" {
		return c.violation(false, bad)
	}
	c.mu.Lock()
	c.session = true
	c.timeout = time.Duration(resp.timeout) * time.Millisecond
	c.mu.Unlock()
	c.attempt.answer()
	return nil
}

// checkFrame checks a frame of an open session: a reply to a request
// sent and not yet answered, an answer to a ping sent, or a notification
// for a path watched; a reply's body as its request's reply is written.
// A request left unanswered for a whole session timeout while the
// connection lives is a stall: ZooKeeper answers a session's requests in
// order, pings among them.
func (c *checkedConn) checkFrame(body []byte) error {
	d := jute.NewDecoder(body)
	var h jute.ReplyHeader
	h.Decode(d)
	frame := len(body)
	c.mu.Lock()
	defer c.mu.Unlock()
	var bad string
	// c.mu is held below: the watch's lock may be taken under it, never
	// the other way round.
	switch {
	case h.Xid == jute.XidNotification:
		path, why := checkNotification(body[d.Offset():], frame)
		switch {
		case why != "":
			bad = why
		case !c.watchedPath(path):
			bad = fmt.Sprintf("a notification for %s, which this session does not watch", quote(path, 100))
		}
	case h.Xid == jute.XidPing:
		if c.pingsBack == c.pingsSent {
			bad = "an answer to a ping that was not sent"
			break
		}
		c.pingsBack++
	default:
		r := c.pending[h.Xid]
		if r == nil {
			bad = fmt.Sprintf("a reply to request %d, which was not sent or was answered already", h.Xid)
			break
		}
		delete(c.pending, h.Xid)
		r.answered = true
		if h.Err == jute.ErrSessionClosedRequireSASL {
			c.attempt.giveUp(&FatalError{Err: &SASLRequiredError{Member: c.attempt.addr, Authenticated: c.wrapped}})
		}
		if h.Err == jute.ErrOK {
			bad = checkReplyBody(r.op, body[d.Offset():], frame)
		}
	}
	if bad != "" {
		return c.violation(true, bad)
	}
	if r := c.oldest(); r != nil && c.timeout > 0 && time.Since(r.at) > max(c.timeout, time.Second) {
		return c.stall(r)
	}
	return nil
}

// watchedPath reports whether a notification for path answers a watch
// this connection left (it allocates nothing: it runs for every one).
func (c *checkedConn) watchedPath(path []byte) bool {
	if c.watched[string(path)] {
		return true
	}
	for _, p := range c.recursive {
		dir := strings.TrimSuffix(p, "/")
		if string(path) == p || len(path) > len(dir) && path[len(dir)] == '/' && string(path[:len(dir)]) == dir {
			return true
		}
	}
	return false
}

// stall closes a connection whose server keeps it alive but left r
// unanswered for a session timeout.
func (c *checkedConn) stall(r *request) error {
	err := &ProtocolError{Member: c.attempt.addr, Kind: Stalled, Reason: fmt.Sprintf(
		"%s has waited %v for an answer while the server answered %s sent after it (ZooKeeper answers a session's requests in order)",
		describe(r), time.Since(r.at).Round(100*time.Millisecond), plural(c.pingsAfter(r), "ping"))}
	c.attempt.giveUp(&FatalError{Err: err})
	c.Conn.Close()
	return err
}

// violation closes the connection on a frame that is not ZooKeeper's:
// in a session, a fatal error (whatever else it sent may be a lie too);
// before it, this member's failure (another member may be ZooKeeper).
func (c *checkedConn) violation(session bool, reason string) error {
	kind := NotZooKeeper
	if session {
		kind = BadReply
	}
	err := &ProtocolError{Member: c.attempt.addr, Kind: kind, Reason: reason}
	if session {
		c.attempt.giveUp(&FatalError{Err: err})
	} else {
		c.attempt.fail(err)
	}
	c.Conn.Close()
	return err
}

// unanswered describes the oldest request waiting for its answer.
func (c *checkedConn) unanswered() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.oldest()
	switch {
	case r == nil:
		return ""
	case c.pingsAfter(r) > 0:
		return fmt.Sprintf("%s has not answered %s in %v, though it answered %s sent after it", c.attempt.addr, describe(r),
			time.Since(r.at).Round(100*time.Millisecond), plural(c.pingsAfter(r), "ping"))
	}
	return fmt.Sprintf("%s has not answered %s in %v", c.attempt.addr, describe(r), time.Since(r.at).Round(100*time.Millisecond))
}

func describe(r *request) string {
	if r.path == "" {
		return r.op.String()
	}
	return r.op.String() + " " + display.Line(r.path)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
