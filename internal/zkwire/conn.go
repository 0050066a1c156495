package zkwire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// ErrClosed is a call on a connection that ended.
var ErrClosed = errors.New("zkwire: connection closed")

// Dialer opens the network connection (TLS and SASL wrap it there); nil
// dials plain TCP.
type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

// Options tune Dial.
type Options struct {
	Dial           Dialer
	SessionTimeout time.Duration // asked of the server (default 10s)
	// ReadOnly lets a member cut off from its quorum serve the session.
	ReadOnly bool
	// MaxFrame bounds a reply (default 64 MiB: a multiRead of many nodes).
	MaxFrame int
	// Notify, when set, receives each notification (a watch firing) with
	// its number on this connection (1, 2, …), on the reading goroutine
	// and in the order the server sent them; it must not block for long,
	// or replies wait behind it. Without it notifications are dropped.
	Notify func(ev jute.WatcherEvent, seq uint64)
}

// ServerError is a request the server refused, with ZooKeeper's code
// (jute.ErrNoNode, jute.ErrNoAuth, jute.ErrUnimplemented…).
type ServerError struct{ Code jute.Code }

func (e *ServerError) Error() string { return fmt.Sprintf("zookeeper error %d", e.Code) }

// Unwrap is the code, so that errors.Is(err, jute.ErrNoNode) holds.
func (e *ServerError) Unwrap() error { return e.Code }

// Conn is one session on one server.
type Conn struct {
	nc        net.Conn
	sessionID int64
	timeout   time.Duration
	maxFrame  int
	notify    func(jute.WatcherEvent, uint64)
	notified  uint64 // notifications read so far; only the reading goroutine writes it

	writeMu sync.Mutex
	mu      sync.Mutex
	xid     int32
	pending map[int32]chan reply
	err     error
	done    chan struct{}
}

type reply struct {
	header jute.ReplyHeader
	body   []byte
	// notified is how many notifications came before this reply.
	notified uint64
}

// Dial connects to one server and opens a session.
func Dial(ctx context.Context, addr string, o Options) (*Conn, error) {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 10 * time.Second
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = 64 << 20
	}
	dial := o.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if deadline, ok := ctx.Deadline(); ok {
		nc.SetDeadline(deadline)
	}
	e := jute.NewFrameEncoder()
	(&jute.ConnectRequest{TimeOut: int32(o.SessionTimeout / time.Millisecond), Passwd: make([]byte, 16),
		ReadOnly: o.ReadOnly, HasReadOnly: true}).Encode(e)
	if _, err := nc.Write(jute.Frame(e)); err != nil {
		nc.Close()
		return nil, fmt.Errorf("zkwire: connect to %s: %w", addr, err)
	}
	br := bufio.NewReaderSize(nc, 64<<10)
	body, err := jute.ReadFrame(br, o.MaxFrame)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("zkwire: connect to %s: %w", addr, err)
	}
	var resp jute.ConnectResponse
	d := jute.NewDecoder(body)
	resp.Decode(d)
	switch {
	case d.Err() != nil:
		nc.Close()
		return nil, fmt.Errorf("zkwire: connect to %s: %w", addr, d.Err())
	case resp.SessionID == 0:
		nc.Close()
		return nil, fmt.Errorf("zkwire: %s refused the session", addr)
	}
	nc.SetDeadline(time.Time{})
	c := &Conn{nc: nc, sessionID: resp.SessionID, timeout: time.Duration(resp.TimeOut) * time.Millisecond,
		maxFrame: o.MaxFrame, notify: o.Notify, pending: map[int32]chan reply{}, done: make(chan struct{})}
	go c.readLoop(br)
	go c.pingLoop()
	return c, nil
}

// SessionID is the session's id.
func (c *Conn) SessionID() int64 { return c.sessionID }

// AddAuth adds credentials to the session, as go-zookeeper's AddAuth.
func (c *Conn) AddAuth(ctx context.Context, scheme string, creds []byte) error {
	return c.call(ctx, jute.XidAuth, jute.OpAuth, &jute.AuthPacket{Scheme: scheme, Auth: creds}, nil)
}

// Call sends a request and decodes its reply into resp (when the server
// answered without an error and resp is not nil). A server's refusal is a
// *ServerError; the rest are transport errors or ctx's.
func (c *Conn) Call(ctx context.Context, op jute.Op, req, resp jute.Record) error {
	_, err := c.CallOrdered(ctx, op, req, resp)
	return err
}

// CallOrdered is Call that also returns how many notifications the
// connection had handed to Options.Notify before the reply came. ZooKeeper
// sends a session the notification of a change before any reply that
// reflects it, so a read's answer is the state after exactly those
// notifications: a caller that counts them knows which changes it saw.
func (c *Conn) CallOrdered(ctx context.Context, op jute.Op, req, resp jute.Record) (notified uint64, err error) {
	c.mu.Lock()
	xid := c.nextXid()
	c.mu.Unlock()
	return c.exchange(ctx, xid, op, req, resp)
}

// nextXid numbers a request; c.mu is held.
func (c *Conn) nextXid() int32 {
	c.xid++
	if c.xid <= 0 { // wrapped: the negative xids are the protocol's own
		c.xid = 1
	}
	return c.xid
}

func (c *Conn) call(ctx context.Context, xid int32, op jute.Op, req, resp jute.Record) error {
	_, err := c.exchange(ctx, xid, op, req, resp)
	return err
}

func (c *Conn) exchange(ctx context.Context, xid int32, op jute.Op, req, resp jute.Record) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err // not sent: an ended wait must not race a quick reply
	}
	frame := requestFrame(xid, op, req)
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return 0, c.err
	}
	c.pending[xid] = ch
	c.mu.Unlock()
	if err := c.write(frame); err != nil {
		c.fail(err)
		return 0, err
	}
	return c.await(ctx, xid, ch, op, resp)
}

// requestFrame is one request as the server reads it: its length, its
// header, then req (none for a ping or a close).
func requestFrame(xid int32, op jute.Op, req jute.Record) []byte {
	e := jute.NewFrameEncoder()
	(&jute.RequestHeader{Xid: xid, Type: op}).Encode(e)
	if req != nil {
		req.Encode(e)
	}
	return jute.Frame(e)
}

// Request is one request of CallAll and where its reply goes (Resp may
// be nil).
type Request struct {
	Op        jute.Op
	Req, Resp jute.Record
}

// CallAll sends every request in one write and waits for all their
// replies: what as many Calls at once would do, without a goroutine and
// a write per request (a walk reads ACLs this way, which a multiRead
// cannot carry). errs[i] is what Call would have returned for reqs[i].
func (c *Conn) CallAll(ctx context.Context, reqs []Request) (errs []error) {
	errs = make([]error, len(reqs))
	fill := func(from int, err error) {
		for i := from; i < len(errs); i++ {
			errs[i] = err
		}
	}
	if err := ctx.Err(); err != nil {
		fill(0, err)
		return errs
	}
	xids := make([]int32, len(reqs))
	chans := make([]chan reply, len(reqs))
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		fill(0, c.err)
		return errs
	}
	for i := range reqs {
		xids[i], chans[i] = c.nextXid(), make(chan reply, 1)
		c.pending[xids[i]] = chans[i]
	}
	c.mu.Unlock()
	var out []byte
	for i, r := range reqs {
		out = append(out, requestFrame(xids[i], r.Op, r.Req)...)
	}
	if err := c.write(out); err != nil {
		c.fail(err)
		fill(0, err)
		return errs
	}
	for i, r := range reqs {
		if _, errs[i] = c.await(ctx, xids[i], chans[i], r.Op, r.Resp); ctx.Err() != nil {
			c.forget(xids[i+1:])
			fill(i+1, ctx.Err())
			break
		}
	}
	return errs
}

// await waits for the reply to xid and decodes it into resp.
func (c *Conn) await(ctx context.Context, xid int32, ch chan reply, op jute.Op, resp jute.Record) (uint64, error) {
	select {
	case r, ok := <-ch:
		if !ok {
			return 0, c.Err()
		}
		if r.header.Err != jute.ErrOK {
			return r.notified, &ServerError{Code: r.header.Err}
		}
		if resp != nil {
			d := jute.NewDecoder(r.body)
			resp.Decode(d)
			if d.Err() != nil {
				return r.notified, fmt.Errorf("zkwire: reply to op %d: %w", op, d.Err())
			}
		}
		return r.notified, nil
	case <-ctx.Done():
		c.forget([]int32{xid})
		return 0, ctx.Err()
	}
}

// forget drops the waits for xids: their replies, if they come, are
// dropped.
func (c *Conn) forget(xids []int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, xid := range xids {
		delete(c.pending, xid)
	}
}

func (c *Conn) write(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.nc.Write(b)
	return err
}

// readLoop hands each reply to its caller and each notification to
// Options.Notify, in the order they came; pings' answers are dropped.
func (c *Conn) readLoop(br *bufio.Reader) {
	for {
		body, err := jute.ReadFrame(br, c.maxFrame)
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
		if h.Xid == jute.XidNotification {
			c.notification(d)
			continue
		}
		c.mu.Lock()
		ch := c.pending[h.Xid]
		delete(c.pending, h.Xid)
		c.mu.Unlock()
		if ch != nil {
			ch <- reply{header: h, body: body[d.Offset():], notified: c.notified}
		}
	}
}

// notification decodes one watch event and hands it on; a malformed one
// is dropped rather than end the session (the count still moves on, so a
// caller comparing counts sees that something came).
func (c *Conn) notification(d *jute.Decoder) {
	c.notified++
	if c.notify == nil {
		return
	}
	var ev jute.WatcherEvent
	ev.Decode(d)
	if d.Err() != nil {
		return
	}
	c.notify(ev, c.notified)
}

func (c *Conn) pingLoop() {
	t := time.NewTicker(max(c.timeout/3, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if err := c.write(requestFrame(jute.XidPing, jute.OpPing, nil)); err != nil {
				c.fail(err)
				return
			}
		}
	}
}

// fail ends the connection once, failing every call in flight.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	switch {
	case err == nil || errors.Is(err, ErrClosed):
		c.err = ErrClosed
	default:
		c.err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	close(c.done)
	c.nc.Close()
	for xid, ch := range c.pending {
		close(ch)
		delete(c.pending, xid)
	}
}

// Err says why the connection ended, nil while it lives.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the session (closeSession, waiting at most a second) and
// the connection.
func (c *Conn) Close() error {
	if c.Err() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.Call(ctx, jute.OpCloseSession, nil, nil)
		cancel()
	}
	c.fail(ErrClosed)
	return nil
}

// Done is closed when the connection ends (Err says why).
func (c *Conn) Done() <-chan struct{} { return c.done }
