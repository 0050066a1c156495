package zkserver

import (
	"crypto/rand"
	"crypto/subtle"
	"sort"
	"strconv"
	"sync/atomic"
	"time"
)

// session outlives its connections: a client may reconnect and re-attach
// with the id and password until the session times out.
type session struct {
	id       int64
	passwd   []byte
	timeout  time.Duration // guarded by s.mu
	conn     *conn         // current connection or nil; guarded by s.mu
	lastSeen atomic.Int64  // unix nanos of the last packet
	timer    *time.Timer   // nil for a session that never expires (Past)
	delay    atomic.Int64  // injected reply delay, nanos
}

func (sess *session) touch() { sess.lastSeen.Store(time.Now().UnixNano()) }

// stopTimer stops the expiry timer of a session that has one.
func (sess *session) stopTimer() {
	if sess.timer != nil {
		sess.timer.Stop()
	}
}

// resetTimer re-arms the expiry timer of a session that has one.
func (sess *session) resetTimer(d time.Duration) {
	if sess.timer != nil {
		sess.timer.Reset(d)
	}
}

func (sess *session) passwordMatches(p []byte) bool {
	return subtle.ConstantTimeCompare(sess.passwd, p) == 1
}

func (s *Server) negotiateTimeout(requestedMs int32) time.Duration {
	t := time.Duration(requestedMs) * time.Millisecond
	if t < s.cfg.MinSessionTimeout {
		t = s.cfg.MinSessionTimeout
	}
	if t > s.cfg.MaxSessionTimeout {
		t = s.cfg.MaxSessionTimeout
	}
	return t
}

// newSessionLocked creates a session; like ZooKeeper's createSession it is a
// transaction and takes a zxid (but not on a read-only server).
func (s *Server) newSessionLocked(timeout time.Duration) *session {
	if !s.cfg.ReadOnly {
		s.nextZxid()
	}
	for s.sessions[s.nextSessionID] != nil { // a session of the past (Past) may have the id
		s.nextSessionID++
	}
	sess := &session{id: s.nextSessionID, passwd: make([]byte, 16), timeout: timeout}
	s.nextSessionID++
	rand.Read(sess.passwd)
	sess.touch()
	s.sessions[sess.id] = sess
	sess.timer = time.AfterFunc(timeout, func() { s.checkExpiry(sess) })
	return sess
}

// checkExpiry runs when a session may have timed out: it expires the session
// if no packet arrived within its timeout, or re-arms for the remainder.
// While the server is paused Resume decides instead.
func (s *Server) checkExpiry(sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.sessions[sess.id] != sess {
		return
	}
	if s.pause.paused() {
		sess.timer.Reset(sess.timeout)
		return
	}
	idle := time.Since(time.Unix(0, sess.lastSeen.Load()))
	if idle < sess.timeout {
		sess.timer.Reset(sess.timeout - idle)
		return
	}
	s.cfg.Logger.Info("session expired", "session", hexID(sess.id), "timeout", sess.timeout)
	s.expireLocked(sess)
}

// expireLocked ends a session the way ZooKeeper's expirer does: a
// closeSession transaction, then its connection is closed.
func (s *Server) expireLocked(sess *session) {
	s.closeSessionLocked(sess)
	if sess.conn != nil {
		sess.conn.closeLocked()
	}
}

// closeSessionLocked is the closeSession transaction: a zxid, the session's
// ephemeral nodes deleted (and their watches fired), the session forgotten.
func (s *Server) closeSessionLocked(sess *session) {
	if s.cfg.ReadOnly {
		// A viewer's session: it owns nothing and writes no transaction.
		delete(s.sessions, sess.id)
		sess.stopTimer()
		return
	}
	zxid := s.nextZxid()
	paths := make([]string, 0, len(s.tree.ephemerals[sess.id]))
	for p := range s.tree.ephemerals[sess.id] {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var changes []change
	for _, p := range paths {
		if s.tree.get(p) != nil {
			changes = append(changes, s.tree.remove(p, zxid, nil))
		}
	}
	delete(s.sessions, sess.id)
	sess.stopTimer()
	s.deliver(changes)
}

func hexID(id int64) string { return "0x" + strconv.FormatUint(uint64(id), 16) }

func itoa(n int) string { return strconv.Itoa(n) }
