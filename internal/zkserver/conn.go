package zkserver

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/sasl"
)

// maxQueuedBytes bounds a connection's outbox: a client that stops reading
// is disconnected rather than allowed to grow the server's memory.
const maxQueuedBytes = 64 << 20

// writeTimeout bounds one write to a client that has stopped reading.
const writeTimeout = 30 * time.Second

// handshakeTimeout closes connections that never open a session, as
// ZooKeeper's sessionless-connection timeout does.
const handshakeTimeout = 10 * time.Second

// conn is one client connection. Its reader goroutine decodes and applies
// requests in order; its writer goroutine drains the outbox.
type conn struct {
	server *Server
	nc     net.Conn
	remote string // "/ip:port", as ZooKeeper prints it
	ip     string // Java's host address form, the id of the ip scheme

	// Guarded by server.mu.
	sess     *session
	auth     []jute.Id
	detached bool
	counted  bool // in its address's count (MaxClientCnxns)

	out       outbox
	done      chan struct{}
	closeOnce sync.Once
	closing   atomic.Bool // a close is queued behind the outbox: the writer ends the connection

	established time.Time
	stats       connStats
	sasl        *sasl.DigestMD5Server // the exchange under way; reader goroutine only
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{server: s, nc: nc, done: make(chan struct{}), established: time.Now()}
	c.out.wake = make(chan struct{}, 1)
	c.remote = "/" + nc.RemoteAddr().String()
	if tcp, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		c.ip = javaHostAddress(tcp.IP)
		c.remote = "/" + net.JoinHostPort(c.ip, itoa(tcp.Port))
	}
	c.auth = []jute.Id{{Scheme: "ip", ID: c.ip}}
	return c
}

// connStats are the per-connection counters cons prints.
type connStats struct {
	received   atomic.Int64
	sent       atomic.Int64
	lastOp     atomic.Value // string
	lastCxid   atomic.Int64
	lastZxid   atomic.Int64
	lastResp   atomic.Int64 // unix ms
	lastLat    atomic.Int64
	minLat     atomic.Int64
	maxLat     atomic.Int64
	sumLat     atomic.Int64
	countLat   atomic.Int64
	fourLetter atomic.Bool // a four-letter-word connection, shown with interest 0
}

// record notes a request answered at the server's clock's time at.
func (st *connStats) record(op string, cxid int32, zxid int64, latency int64, at time.Time) {
	st.lastOp.Store(op)
	st.lastCxid.Store(int64(cxid))
	st.lastZxid.Store(zxid)
	st.lastResp.Store(at.UnixMilli())
	st.lastLat.Store(latency)
	if n := st.countLat.Add(1); n == 1 || latency < st.minLat.Load() {
		st.minLat.Store(latency)
	}
	if latency > st.maxLat.Load() {
		st.maxLat.Store(latency)
	}
	st.sumLat.Add(latency)
}

// readLoop reads length-prefixed packets until the connection ends.
func (c *conn) readLoop() {
	defer func() {
		if !c.closing.Load() {
			c.close()
		}
	}()
	br := bufio.NewReaderSize(c.nc, 64<<10)
	var head [4]byte
	established := false
	c.nc.SetReadDeadline(time.Now().Add(handshakeTimeout))
	for {
		if _, err := io.ReadFull(br, head[:]); err != nil {
			return
		}
		if !established {
			if cmd, ok := fourLetterWord(head); ok {
				c.stats.fourLetter.Store(true)
				c.fourLetter(cmd)
				return
			}
		}
		n := int32(binary.BigEndian.Uint32(head[:]))
		if n < 0 || n > jute.MaxPacket {
			c.server.cfg.Logger.Warn("closing connection: bad packet length", "remote", c.remote, "len", n)
			return
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(br, buf); err != nil {
			return
		}
		c.server.pause.wait(c.done)
		select {
		case <-c.done:
			return
		default:
		}
		c.server.stats.addReceived()
		c.stats.received.Add(1)
		if !established {
			if !c.handshake(buf) {
				return
			}
			established = true
			c.nc.SetReadDeadline(time.Time{})
			continue
		}
		if !c.handle(buf) {
			return
		}
	}
}

// writeLoop sends queued frames in order, honouring injected delays and
// pauses, and closes the connection after a frame marked closeAfter.
func (c *conn) writeLoop() {
	defer c.close() // however the writer ends, the connection and its watches go
	bw := bufio.NewWriterSize(c.nc, 64<<10)
	for {
		select {
		case <-c.out.wake:
		case <-c.done:
			return
		}
		for _, f := range c.out.drain() {
			c.server.pause.wait(c.done)
			if wait := time.Until(f.notBefore); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-c.done:
					t.Stop()
					return
				}
			}
			if f.closeAfter {
				bw.Flush()
				return
			}
			c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := bw.Write(f.data); err != nil {
				return
			}
			c.stats.sent.Add(1)
			c.server.stats.addSent()
		}
		if err := bw.Flush(); err != nil {
			return
		}
	}
}

// push queues one frame for the writer.
func (c *conn) push(b []byte) { c.out.push(frame{data: b, notBefore: c.server.faults.replyTime(c)}, c) }

// closeAfterFlush queues the end of the connection behind what is queued.
func (c *conn) closeAfterFlush() {
	c.closing.Store(true)
	c.out.push(frame{closeAfter: true, notBefore: c.server.faults.replyTime(c)}, c)
}

// sendEvent queues a watch notification; the caller holds s.mu.
func (c *conn) sendEvent(eventType jute.EventType, path string) {
	c.push(replyFrame(jute.XidNotification, -1, jute.ErrOK,
		&jute.WatcherEvent{Type: eventType, State: jute.StateSyncConnected, Path: path}))
}

// shutdown closes the socket and wakes both goroutines; it does not touch
// server state, so it is safe with or without s.mu held.
func (c *conn) shutdown() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.nc.Close()
	})
}

// close ends the connection and forgets it; the caller must not hold s.mu.
func (c *conn) close() {
	c.shutdown()
	c.server.mu.Lock()
	c.detachLocked()
	c.server.mu.Unlock()
}

// closeLocked is close for a caller that holds s.mu.
func (c *conn) closeLocked() {
	c.shutdown()
	c.detachLocked()
}

// detachLocked removes the connection and its watches from the server. The
// session outlives it until its timeout.
func (c *conn) detachLocked() {
	if c.detached {
		return
	}
	c.detached = true
	delete(c.server.conns, c)
	c.server.releaseLocked(c)
	c.server.watches.removeConn(c)
	if c.sess != nil && c.sess.conn == c {
		c.sess.conn = nil
	}
}

// handshake answers the ConnectRequest that opens every connection.
func (c *conn) handshake(buf []byte) bool {
	var req jute.ConnectRequest
	d := jute.NewDecoder(buf)
	req.Decode(d)
	if d.Err() != nil {
		c.server.cfg.Logger.Warn("closing connection: malformed connect request", "remote", c.remote, "err", d.Err())
		return false
	}
	s := c.server
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if req.LastZxidSeen > s.zxid && !s.cfg.ReadOnly {
		// The client has seen a newer state than ours: ZooKeeper refuses it
		// so that it tries another member.
		s.cfg.Logger.Info("refusing client ahead of us", "remote", c.remote, "client_zxid", req.LastZxidSeen, "zxid", s.zxid)
		return false
	}
	timeout := s.negotiateTimeout(req.TimeOut)
	resp := jute.ConnectResponse{ProtocolVersion: jute.ProtocolVersion, HasReadOnly: req.HasReadOnly}
	var sess *session
	if req.SessionID == 0 {
		sess = s.newSessionLocked(timeout)
	} else {
		sess = s.sessions[req.SessionID]
		// Like ZooKeeper, a re-attach closes the session's current
		// connection before it checks the password.
		if sess != nil && sess.conn != nil && sess.conn != c {
			sess.conn.closeLocked()
		}
		if sess == nil || !sess.passwordMatches(req.Passwd) {
			// Expired, unknown or a wrong password: all look expired.
			resp.Passwd = make([]byte, 16)
			c.push(connectFrame(&resp))
			c.closeAfterFlush()
			return false
		}
		sess.timeout = timeout
		sess.touch()
		sess.resetTimer(timeout) // the new timeout may be shorter than the armed one
	}
	sess.conn = c
	c.sess = sess
	resp.TimeOut = int32(timeout / time.Millisecond)
	resp.SessionID = sess.id
	resp.Passwd = sess.passwd
	c.push(connectFrame(&resp))
	s.cfg.Logger.Debug("session established", "session", hexID(sess.id), "remote", c.remote, "timeout", timeout)
	return true
}

func connectFrame(r *jute.ConnectResponse) []byte {
	e := jute.NewEncoder(make([]byte, 4, 48))
	r.Encode(e)
	return frameBytes(e)
}

// handle applies one request of an established session.
func (c *conn) handle(buf []byte) bool {
	s := c.server
	d := jute.NewDecoder(buf)
	var hdr jute.RequestHeader
	hdr.Decode(d)
	if d.Err() != nil {
		s.cfg.Logger.Warn("closing connection: malformed request header", "remote", c.remote)
		return false
	}
	start := time.Now()
	c.sess.touch()
	switch {
	case hdr.Type == jute.OpSASL:
		return c.saslStep(hdr, d)
	case s.cfg.SASLRequired && hdr.Type != jute.OpAuth && !c.hasSASL():
		// ZooKeeper's AuthenticationHelper: answer, then close.
		s.cfg.Logger.Info("closing session without SASL authentication", "session", hexID(c.sess.id), "remote", c.remote)
		c.push(replyFrame(hdr.Xid, 0, jute.ErrSessionClosedRequireSASL, nil))
		c.closeAfterFlush()
		return false
	}
	switch hdr.Type {
	case jute.OpPing:
		c.push(replyFrame(jute.XidPing, s.lastZxid.Load(), jute.ErrOK, nil))
		c.stats.record("PING", hdr.Xid, s.lastZxid.Load(), 0, s.cfg.Clock())
		return true
	case jute.OpAuth:
		return c.addAuth(hdr, d)
	}
	if !knownOp(hdr.Type) || s.cfg.unknownOp(hdr.Type) {
		// ZooKeeper's UnimplementedRequestProcessor: answer, then hang up.
		c.push(replyFrame(hdr.Xid, s.lastZxid.Load(), jute.ErrUnimplemented, nil))
		c.closeAfterFlush()
		return false
	}
	fault := s.faults.before(c.sess.id, hdr.Type, buf[8:])
	if fault == DropBeforeApply {
		return false
	}
	s.mu.Lock()
	if s.closed || c.detached {
		s.mu.Unlock()
		return false
	}
	if code := s.watchRefusalLocked(hdr.Type, buf[8:]); code != jute.ErrOK {
		c.push(replyFrame(hdr.Xid, s.zxid, code, nil))
		s.mu.Unlock()
		return true
	}
	reply, closeAfter := s.process(c, hdr, d)
	zxid := s.zxid
	if fault == DropAfterApply {
		c.closeLocked()
		s.mu.Unlock()
		return false
	}
	c.push(reply)
	if closeAfter {
		c.closeAfterFlush()
	}
	s.mu.Unlock()
	latency := time.Since(start).Milliseconds()
	s.stats.addLatency(latency)
	c.stats.record(opName(hdr.Type), hdr.Xid, zxid, latency, s.cfg.Clock())
	return !closeAfter
}

// addAuth handles addauth. Digest credentials become a digest id; a scheme
// the server does not know fails and closes the connection, as in ZooKeeper.
func (c *conn) addAuth(hdr jute.RequestHeader, d *jute.Decoder) bool {
	var req jute.AuthPacket
	req.Decode(d)
	s := c.server
	s.mu.Lock()
	defer s.mu.Unlock()
	var id jute.Id
	switch {
	case d.Err() != nil:
	case req.Scheme == "digest":
		id = jute.Id{Scheme: "digest", ID: DigestID(string(req.Auth))}
	case req.Scheme == "ip":
		id = jute.Id{Scheme: "ip", ID: c.ip}
	}
	if id.Scheme == "" {
		c.push(replyFrame(hdr.Xid, 0, jute.ErrAuthFailed, nil))
		c.closeAfterFlush()
		return false
	}
	c.addIDLocked(id)
	s.cfg.Logger.Info("credentials added", "session", hexID(c.sess.id), "remote", c.remote, "id", id.Scheme+":"+idUser(id))
	if id.Scheme == "digest" && s.cfg.SuperDigest != "" && id.ID == s.cfg.SuperDigest {
		c.addIDLocked(jute.Id{Scheme: "super", ID: ""})
	}
	c.push(replyFrame(hdr.Xid, 0, jute.ErrOK, nil))
	return true
}

// idUser is the user an id names, without a digest's password hash:
// what the log may show of who authenticated.
func idUser(id jute.Id) string {
	if id.Scheme == "digest" {
		user, _, _ := strings.Cut(id.ID, ":")
		return user
	}
	return id.ID
}

func (c *conn) addIDLocked(id jute.Id) {
	for _, have := range c.auth {
		if have == id {
			return
		}
	}
	c.auth = append(c.auth, id)
}

// frame is one queued write.
type frame struct {
	data       []byte
	notBefore  time.Time
	closeAfter bool
}

// outbox is a FIFO of frames. Pushing never blocks, because the pusher may
// hold the server lock; a client that lets maxQueuedBytes pile up is
// disconnected instead.
type outbox struct {
	mu     sync.Mutex
	frames []frame
	bytes  int
	wake   chan struct{}
}

func (o *outbox) push(f frame, c *conn) {
	o.mu.Lock()
	o.frames = append(o.frames, f)
	o.bytes += len(f.data)
	over := o.bytes > maxQueuedBytes
	o.mu.Unlock()
	if over {
		c.server.cfg.Logger.Warn("closing connection: client is not reading", "remote", c.remote)
		c.shutdown()
		return
	}
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *outbox) drain() []frame {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := o.frames
	o.frames = nil
	o.bytes = 0
	return q
}

func (o *outbox) queued() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.frames)
}
