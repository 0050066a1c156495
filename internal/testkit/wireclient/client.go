// Package wireclient is a minimal ZooKeeper client that speaks the wire
// protocol directly. It exists for tests: it can send any request, including
// those go-zookeeper lacks (addWatch, whoAmI, multiRead, getEphemerals,
// removeWatches), and it reports exactly what came back — error codes, reply
// zxids, and the order in which replies and notifications arrived.
package wireclient

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// ErrClosed is returned for calls on a closed connection.
var ErrClosed = errors.New("wireclient: connection closed")

// Frame is one frame received after the handshake, in arrival order.
type Frame struct {
	Seq    int // arrival index on this connection
	Header jute.ReplyHeader
	Body   []byte
}

// Conn is one connection with its session.
type Conn struct {
	nc        net.Conn
	SessionID int64
	Passwd    []byte
	Timeout   time.Duration

	writeMu sync.Mutex
	mu      sync.Mutex
	xid     int32
	pending map[int32]chan Frame
	events  []Frame
	replies []int32 // xids of replies in arrival order, for ordering tests
	eventCh chan struct{}
	seq     int
	err     error
	done    chan struct{}
}

// Dial opens a new session.
func Dial(addr string, timeout time.Duration) (*Conn, error) {
	return Reattach(addr, timeout, 0, nil)
}

// Reattach opens a connection to an existing session (sessionID 0: a new one).
// An expired session yields a Conn whose SessionID is 0 and which is closed.
func Reattach(addr string, timeout time.Duration, sessionID int64, passwd []byte) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	req := jute.ConnectRequest{
		TimeOut: int32(timeout / time.Millisecond), SessionID: sessionID, Passwd: passwd,
		HasReadOnly: true,
	}
	if passwd == nil {
		req.Passwd = make([]byte, 16)
	}
	e := jute.NewEncoder(make([]byte, 4))
	req.Encode(e)
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Write(jute.Frame(e)); err != nil {
		nc.Close()
		return nil, err
	}
	br := bufio.NewReader(nc)
	body, err := jute.ReadFrame(br, maxFrame)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("wireclient: handshake: %w", err)
	}
	var resp jute.ConnectResponse
	d := jute.NewDecoder(body)
	resp.Decode(d)
	if d.Err() != nil {
		nc.Close()
		return nil, fmt.Errorf("wireclient: handshake: %w", d.Err())
	}
	nc.SetDeadline(time.Time{})
	c := &Conn{
		nc: nc, SessionID: resp.SessionID, Passwd: resp.Passwd,
		Timeout: time.Duration(resp.TimeOut) * time.Millisecond,
		pending: map[int32]chan Frame{}, eventCh: make(chan struct{}, 1), done: make(chan struct{}),
	}
	if resp.SessionID == 0 {
		nc.Close()
		close(c.done)
		c.err = ErrClosed
		return c, nil
	}
	go c.readLoop(br)
	go c.pingLoop()
	return c, nil
}

// maxFrame bounds a reply frame.
const maxFrame = 16 << 20

func (c *Conn) readLoop(br *bufio.Reader) {
	defer c.fail(ErrClosed)
	for {
		body, err := jute.ReadFrame(br, maxFrame)
		if err != nil {
			c.fail(err)
			return
		}
		d := jute.NewDecoder(body)
		var h jute.ReplyHeader
		h.Decode(d)
		if d.Err() != nil {
			c.fail(d.Err())
			return
		}
		c.mu.Lock()
		f := Frame{Seq: c.seq, Header: h, Body: body[d.Offset():]}
		c.seq++
		switch h.Xid {
		case jute.XidNotification:
			c.events = append(c.events, f)
			select {
			case c.eventCh <- struct{}{}:
			default:
			}
		default: // replies, and pings only when a caller waits for one
			if h.Xid != jute.XidPing {
				c.replies = append(c.replies, h.Xid)
			}
			if ch := c.pending[h.Xid]; ch != nil {
				delete(c.pending, h.Xid)
				ch <- f
			}
		}
		c.mu.Unlock()
	}
}

func (c *Conn) pingLoop() {
	t := time.NewTicker(c.Timeout / 3)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			e := jute.NewEncoder(make([]byte, 4))
			(&jute.RequestHeader{Xid: jute.XidPing, Type: jute.OpPing}).Encode(e)
			c.write(jute.Frame(e))
		}
	}
}

func (c *Conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.done)
	c.nc.Close()
	for xid, ch := range c.pending {
		close(ch)
		delete(c.pending, xid)
	}
	select {
	case c.eventCh <- struct{}{}:
	default:
	}
}

func (c *Conn) write(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.nc.Write(b)
	return err
}

// Call sends a request with the next xid and waits for its reply. The reply
// body is decoded into resp when the reply carries no error and resp is not
// nil. The error is a transport error; server errors are in the header.
func (c *Conn) Call(op jute.Op, req, resp jute.Record) (jute.ReplyHeader, error) {
	c.mu.Lock()
	c.xid++
	xid := c.xid
	c.mu.Unlock()
	return c.CallXid(xid, op, req, resp)
}

// CallXid is Call with a chosen xid (setWatches uses -8, auth -4).
func (c *Conn) CallXid(xid int32, op jute.Op, req, resp jute.Record) (jute.ReplyHeader, error) {
	f, err := c.CallRaw(xid, op, req)
	if err != nil {
		return jute.ReplyHeader{}, err
	}
	if f.Header.Err == jute.ErrOK && resp != nil {
		d := jute.NewDecoder(f.Body)
		resp.Decode(d)
		if d.Err() != nil {
			return f.Header, fmt.Errorf("wireclient: decoding reply to op %d: %w", op, d.Err())
		}
	}
	return f.Header, nil
}

// CallRaw sends a request and returns the raw reply frame.
func (c *Conn) CallRaw(xid int32, op jute.Op, req jute.Record) (Frame, error) {
	e := jute.NewEncoder(make([]byte, 4))
	(&jute.RequestHeader{Xid: xid, Type: op}).Encode(e)
	if req != nil {
		req.Encode(e)
	}
	return c.SendFrame(xid, jute.Frame(e))
}

// SendFrame writes raw bytes (a whole frame, length included) and waits for
// the reply with xid.
func (c *Conn) SendFrame(xid int32, b []byte) (Frame, error) {
	ch := make(chan Frame, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return Frame{}, ErrClosed
	}
	c.pending[xid] = ch
	c.mu.Unlock()
	if err := c.write(b); err != nil {
		return Frame{}, err
	}
	select {
	case f, ok := <-ch:
		if !ok {
			return Frame{}, ErrClosed
		}
		return f, nil
	case <-time.After(30 * time.Second):
		return Frame{}, fmt.Errorf("wireclient: no reply to xid %d within 30s", xid)
	}
}

// Events returns and forgets the notifications received so far.
func (c *Conn) Events() []jute.WatcherEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]jute.WatcherEvent, 0, len(c.events))
	for _, f := range c.events {
		var ev jute.WatcherEvent
		ev.Decode(jute.NewDecoder(f.Body))
		out = append(out, ev)
	}
	c.events = nil
	return out
}

// EventFrames returns and forgets the notifications received so far, with
// their arrival order.
func (c *Conn) EventFrames() []Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.events
	c.events = nil
	return out
}

// WaitEvents waits until at least n notifications are queued or the
// deadline passes, then returns and forgets all of them.
func (c *Conn) WaitEvents(n int, deadline time.Duration) []jute.WatcherEvent {
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		c.mu.Lock()
		have, failed := len(c.events), c.err != nil
		c.mu.Unlock()
		if have >= n || failed {
			return c.Events()
		}
		select {
		case <-c.eventCh:
		case <-timer.C:
			return c.Events()
		}
	}
}

// ReplyOrder returns and forgets the xids of the replies received so far,
// in arrival order.
func (c *Conn) ReplyOrder() []int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.replies
	c.replies = nil
	return out
}

// Done is closed when the connection ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended, or nil.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the session with closeSession and closes the connection.
func (c *Conn) Close() error {
	if c.Err() == nil {
		c.Call(jute.OpCloseSession, nil, nil)
	}
	c.fail(ErrClosed)
	return nil
}

// Drop closes the socket without ending the session, as a crashed or
// partitioned client would.
func (c *Conn) Drop() { c.fail(ErrClosed) }
