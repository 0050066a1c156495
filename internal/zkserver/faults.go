package zkserver

import (
	"sort"
	"sync/atomic"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Fault is what a FaultHook asks the server to do with one request.
type Fault int

const (
	// Proceed handles the request normally.
	Proceed Fault = iota
	// DropBeforeApply closes the connection without applying the request.
	DropBeforeApply
	// DropAfterApply applies the request, then closes the connection
	// instead of replying: the client sees a connection loss although the
	// change happened (the case protected creates exist for).
	DropAfterApply
)

// Request describes a request to a FaultHook. Path is the request's first
// field when it is a path (most requests), else "".
type Request struct {
	SessionID int64
	Op        jute.Op
	Path      string
	// Paths are the paths of a multi's or a multiRead's operations.
	Paths []string
}

// FaultHook decides the fate of each request of an established session
// (pings and auth excepted). It runs on the connection's reader goroutine,
// so it must not call Close, which waits for that goroutine.
type FaultHook func(Request) Fault

type faults struct {
	hook  atomic.Pointer[FaultHook]
	delay atomic.Int64 // nanos added to every reply
}

func (f *faults) before(sessionID int64, op jute.Op, body []byte) Fault {
	h := f.hook.Load()
	if h == nil {
		return Proceed
	}
	req := Request{SessionID: sessionID, Op: op}
	switch op {
	case jute.OpMulti, jute.OpMultiRead:
		var m jute.MultiRequest
		m.Decode(jute.NewDecoder(body))
		for _, o := range m.Ops {
			req.Paths = append(req.Paths, opPath(o.Rec))
		}
	case jute.OpCloseSession, jute.OpSetWatches, jute.OpSetWatches2, jute.OpWhoAmI:
	default:
		req.Path = jute.NewDecoder(body).String()
	}
	return (*h)(req)
}

// opPath is the path a multi operation names.
func opPath(rec jute.Record) string {
	switch r := rec.(type) {
	case *jute.CreateRequest:
		return r.Path
	case *jute.PathIntRequest:
		return r.Path
	case *jute.SetDataRequest:
		return r.Path
	case *jute.PathWatchRequest:
		return r.Path
	}
	return ""
}

// replyTime is when a reply queued now may be sent.
func (f *faults) replyTime(c *conn) time.Time {
	d := time.Duration(f.delay.Load())
	if c.sess != nil {
		d += time.Duration(c.sess.delay.Load())
	}
	if d <= 0 {
		return time.Time{}
	}
	return time.Now().Add(d)
}

// SetFaultHook installs h (nil removes it).
func (s *Server) SetFaultHook(h FaultHook) {
	if h == nil {
		s.faults.hook.Store(nil)
		return
	}
	s.faults.hook.Store(&h)
}

// SetReplyDelay delays every reply and notification by d (0 removes it).
// Order is kept: a delayed frame holds back the frames queued after it.
func (s *Server) SetReplyDelay(d time.Duration) { s.faults.delay.Store(int64(d)) }

// SetSessionReplyDelay delays the replies of one session by d.
func (s *Server) SetSessionReplyDelay(sessionID int64, d time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil {
		return false
	}
	sess.delay.Store(int64(d))
	return true
}

// DropConnection closes the connection of a session; the session lives on
// and the client may reconnect to it. It reports whether there was one.
func (s *Server) DropConnection(sessionID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil || sess.conn == nil {
		return false
	}
	sess.conn.closeLocked()
	return true
}

// ExpireSession expires a session now, as if its timeout had passed: its
// ephemeral nodes go, watchers hear of it, its connection is closed.
func (s *Server) ExpireSession(sessionID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil {
		return false
	}
	s.expireLocked(sess)
	return true
}

// Pause freezes the server as SIGSTOP freezes a ZooKeeper process: no
// request is applied and nothing is sent until Resume, connections stay
// open, and session clocks keep running.
func (s *Server) Pause() { s.pause.shut() }

// Resume thaws the server. As when a stopped ZooKeeper continues, sessions
// that were silent for longer than their timeout expire first, before any
// request that waited is applied.
func (s *Server) Resume() {
	if !s.pause.paused() {
		return
	}
	s.mu.Lock()
	for _, sess := range s.sessions {
		if sess.timer != nil && time.Since(time.Unix(0, sess.lastSeen.Load())) >= sess.timeout {
			s.cfg.Logger.Info("session expired during pause", "session", hexID(sess.id))
			s.expireLocked(sess)
		}
	}
	s.mu.Unlock()
	s.pause.open()
}

// SessionIDs lists the live sessions, sorted.
func (s *Server) SessionIDs() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]int64, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
