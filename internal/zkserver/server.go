package zkserver

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Server is one embedded ZooKeeper-compatible server.
type Server struct {
	cfg     Config
	started time.Time
	ln      net.Listener
	secure  []net.Listener // TLS listeners beside ln (ListenTLS)
	wg      sync.WaitGroup

	// mu orders every request: the tree, sessions, watches and zxid change
	// only under it, and replies and notifications are queued under it.
	mu            sync.Mutex
	tree          *tree
	watches       *watches
	sessions      map[int64]*session
	conns         map[*conn]struct{}
	zxid          int64
	nextSessionID int64
	timers        map[string]*time.Timer // pending TTL expiries by path
	closed        bool
	perAddress    map[string]int // connections by client address (MaxClientCnxns)
	refused       int            // connections refused since refusedLogged
	refusedLogged time.Time

	lastZxid atomic.Int64 // mirror of zxid for lock-free readers (pings, 4lw)
	stats    serverStats
	pause    gate
	faults   faults
}

// New returns a server that is not yet listening.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	now := cfg.Clock()
	return &Server{
		cfg:        cfg,
		started:    now,
		tree:       newTree(),
		watches:    newWatches(),
		sessions:   map[int64]*session{},
		conns:      map[*conn]struct{}{},
		timers:     map[string]*time.Timer{},
		perAddress: map[string]int{},
		// ZooKeeper's standalone session ids: server id 1 in the top byte,
		// then the start time in milliseconds.
		nextSessionID: int64(uint64(now.UnixMilli())<<24>>8) | 1<<56,
	}
}

// Start listens on addr (host:port; port 0 picks a free one) and serves in
// the background until Close.
func Start(addr string, cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("zkserver: listen on %s: %w", addr, err)
	}
	s := New(cfg)
	s.ln = ln
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.serve(ln)
	}()
	s.cfg.Logger.Info("zkserver listening", "addr", ln.Addr().String())
	return s, nil
}

// Addr returns the address the server listens on (nil when it listens
// nowhere: see Pipe).
func (s *Server) Addr() net.Addr {
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// ConnectString returns host:port for clients ("" when the server
// listens nowhere).
func (s *Server) ConnectString() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

func (s *Server) serve(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.cfg.Logger.Warn("accept failed", "err", err)
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors: do not spin
			continue
		}
		if !s.serveConn(nc) {
			return
		}
	}
}

// serveConn serves one client connection until it ends; false when the
// server is closed (the connection is closed then).
func (s *Server) serveConn(nc net.Conn) bool {
	c := newConn(s, nc)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		nc.Close()
		return false
	}
	if !s.admitLocked(c) {
		s.mu.Unlock()
		closeAtOnce(nc)
		return true
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.wg.Add(2)
	go func() { defer s.wg.Done(); c.readLoop() }()
	go func() { defer s.wg.Done(); c.writeLoop() }()
	return true
}

// ErrClosed is Pipe's answer once the server is closed.
var ErrClosed = errors.New("zkserver: server closed")

// Pipe opens a client connection to the server within the process: one
// end of an in-memory pipe, whose other end the server serves as it
// serves a socket. A server made with New and never started serves its
// clients this way alone, with nothing on the network.
func (s *Server) Pipe() (net.Conn, error) {
	client, server := net.Pipe()
	if !s.serveConn(server) {
		client.Close()
		return nil, ErrClosed
	}
	return client, nil
}

// Close stops listening, closes every connection and waits for the
// server's goroutines. Sessions die with the server.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	for _, sess := range s.sessions {
		sess.stopTimer()
	}
	for _, t := range s.timers {
		t.Stop()
	}
	secure := s.secure
	s.mu.Unlock()
	for _, ln := range secure {
		ln.Close()
	}
	s.pause.open()
	var err error
	if s.ln != nil {
		err = s.ln.Close()
	}
	for _, c := range conns {
		c.close()
	}
	s.wg.Wait()
	return err
}

// nextZxid starts a transaction; the caller holds mu.
func (s *Server) nextZxid() int64 {
	s.zxid++
	s.lastZxid.Store(s.zxid)
	return s.zxid
}

// deliver completes a committed transaction: it sends its notifications
// and schedules the removals it makes due. The caller holds mu.
func (s *Server) deliver(changes []change) {
	for _, ch := range changes {
		s.watches.notify(ch, func(c *conn, eventType jute.EventType, path string) {
			c.sendEvent(eventType, path)
		})
		if s.cfg.ReadOnly {
			continue // nothing goes by the server's own hand
		}
		if ch.kind == changeDeleted {
			s.afterDelete(ch.path)
		} else if n := s.tree.get(ch.path); n != nil && n.kind() == kindTTL {
			s.scheduleReap(ch.path, n) // created, or its mtime moved
		}
	}
}

// gate blocks goroutines while the server is paused.
type gate struct {
	mu     sync.Mutex
	closed chan struct{} // non-nil while paused; closed on resume
}

func (g *gate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed == nil {
		g.closed = make(chan struct{})
	}
}

func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed != nil {
		close(g.closed)
		g.closed = nil
	}
}

func (g *gate) paused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed != nil
}

// wait returns when the gate is open or done is closed.
func (g *gate) wait(done <-chan struct{}) {
	g.mu.Lock()
	ch := g.closed
	g.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-done:
	}
}

// serverStats are the counters srvr, stat and mntr print.
type serverStats struct {
	mu         sync.Mutex
	received   int64
	sent       int64
	minLatency int64 // ms
	maxLatency int64
	sumLatency int64
	count      int64
}

func (st *serverStats) addReceived() {
	st.mu.Lock()
	st.received++
	st.mu.Unlock()
}

func (st *serverStats) addSent() {
	st.mu.Lock()
	st.sent++
	st.mu.Unlock()
}

func (st *serverStats) addLatency(ms int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.count == 0 || ms < st.minLatency {
		st.minLatency = ms
	}
	if ms > st.maxLatency {
		st.maxLatency = ms
	}
	st.sumLatency += ms
	st.count++
}

func (st *serverStats) reset() {
	st.mu.Lock()
	st.received, st.sent, st.minLatency, st.maxLatency, st.sumLatency, st.count = 0, 0, 0, 0, 0, 0
	st.mu.Unlock()
}

type statsSnapshot struct {
	received, sent int64
	minLat, maxLat int64
	avgLat         float64
}

func (st *serverStats) snapshot() statsSnapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	snap := statsSnapshot{received: st.received, sent: st.sent, minLat: st.minLatency, maxLat: st.maxLatency}
	if st.count > 0 {
		snap.avgLat = float64(st.sumLatency) / float64(st.count)
	}
	return snap
}

// replyFrame encodes a reply header and an optional body as one frame.
func replyFrame(xid int32, zxid int64, errCode jute.Code, body jute.Record) []byte {
	e := jute.NewEncoder(make([]byte, 4, 64))
	(&jute.ReplyHeader{Xid: xid, Zxid: zxid, Err: errCode}).Encode(e)
	if body != nil {
		body.Encode(e)
	}
	return frameBytes(e)
}

// frameBytes fills in the length prefix reserved at the start of e.
func frameBytes(e *jute.Encoder) []byte {
	b := e.Bytes()
	n := len(b) - 4
	b[0], b[1], b[2], b[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return b
}
