package recipes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/lockstats"
)

// Token is a fencing token: the zxid that created the holder's lock node
// (it grows with every acquisition of the lock), with the node's sequence
// number, the session and the node's path. A resource that remembers the
// highest Zxid it has seen can refuse a stale holder. Compare Zxid, not Seq:
// sequence numbers restart when an emptied container directory is removed
// and made again.
type Token struct {
	Zxid    int64
	Seq     int32 // -1 when the lock node has no sequence number
	Session int64
	Path    string
}

func (t Token) String() string {
	return fmt.Sprintf("zxid=0x%x seq=%d session=0x%x path=%s", t.Zxid, t.Seq, t.Session, t.Path)
}

// Mutex is a distributed lock in one directory. One goroutine at a time may
// use a Mutex; use a Mutex per contender.
type Mutex struct {
	session *Session
	dir     string
	opts    options
	marker  string
	line    *waitingLine // nil for Spin

	mu      sync.Mutex
	state   mutexState
	token   Token
	lost    chan struct{} // closed when the current holding is lost
	release chan struct{} // closed by Unlock, so the monitor stops
}

type mutexState int

const (
	idle mutexState = iota
	locking
	held
)

// NewMutex returns a Mutex on directory dir (created on demand, as
// containers). Options: WithData, WithACL, WithFormat, WithLookahead.
func NewMutex(s *Session, dir string, opts ...Option) *Mutex {
	m := &Mutex{session: s, dir: dir, opts: buildOptions(opts), marker: curatorLock}
	if m.opts.format == Kazoo {
		m.marker = kazooLock
	}
	switch m.opts.strategy {
	case lockstats.Chain:
		m.line = &waitingLine{session: s, dir: dir, opts: m.opts, markers: []string{m.marker}, rule: chainRule(m.opts.lookahead)}
	case lockstats.Herd:
		m.line = &waitingLine{session: s, dir: dir, opts: m.opts, markers: []string{m.marker}, rule: herdRule}
	}
	return m
}

// Lock blocks until the lock is held, ctx ends, or the session is lost.
// On failure nothing of the attempt is left on the server.
func (m *Mutex) Lock(ctx context.Context) error { return m.lock(ctx, true) }

// TryLock takes the lock if nobody holds it or waits for it, else returns
// ErrLocked at once.
func (m *Mutex) TryLock(ctx context.Context) error { return m.lock(ctx, false) }

func (m *Mutex) lock(ctx context.Context, wait bool) error {
	m.mu.Lock()
	if m.state != idle {
		m.mu.Unlock()
		return ErrDeadlock
	}
	m.state = locking
	m.mu.Unlock()

	var g grant
	var err error
	if m.line == nil {
		g, err = m.acquireSpin(ctx, wait)
	} else {
		g, err = m.line.acquire(ctx, m.marker, wait)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.state = idle
		return err
	}
	m.state, m.token = held, g.token
	m.lost, m.release = make(chan struct{}), make(chan struct{})
	go m.session.monitorHolding(g.token.Path, g.own, m.lost, m.release)
	return nil
}

// acquireSpin polls for a single ephemeral node, as SET NX does.
func (m *Mutex) acquireSpin(ctx context.Context, wait bool) (grant, error) {
	st := m.opts.stats
	path := joinPath(m.dir, "lock")
	var waitedSince time.Time
	for {
		st.CountCreate()
		_, err := call(ctx, m.session, func() (string, error) {
			return m.session.create(path, m.opts.data, zk.FlagEphemeral, m.opts.acl)
		})
		switch {
		case err == nil:
		case errors.Is(err, zk.ErrNodeExists):
			if !wait {
				return grant{}, ErrLocked
			}
			m.opts.tell(lockstats.Event{Kind: lockstats.Polling})
			if waitedSince.IsZero() {
				waitedSince = time.Now()
			}
			if err := m.session.pause(ctx, m.opts.pollInterval); err != nil {
				return grant{}, err
			}
			continue
		case errors.Is(err, zk.ErrNoNode):
			if err := m.session.ensureDir(ctx, m.dir, m.opts.acl); err != nil {
				return grant{}, err
			}
			continue
		case retryable(err):
			if err := m.session.waitConnected(ctx); err != nil {
				return grant{}, err
			}
			if !ambiguous(err) {
				continue
			}
		default:
			return grant{}, err
		}
		// Created, or perhaps created before the connection went: the
		// node's owner says.
		st.CountRead()
		stat, err := retry(ctx, m.session, func() (*zk.Stat, error) {
			ok, st, err := m.session.conn.Exists(path)
			if !ok {
				st = nil // go-zookeeper returns a zero Stat for a missing node
			}
			return st, err
		})
		if err != nil {
			return grant{}, err
		}
		if stat == nil || stat.EphemeralOwner != m.session.id {
			continue
		}
		st.MarkAcquired(waitedSince)
		token := Token{Zxid: stat.Czxid, Seq: -1, Session: m.session.id, Path: path}
		m.opts.tell(lockstats.Event{Kind: lockstats.Acquired, Path: token.Path})
		return grant{token: token}, nil
	}
}

// monitorHolding watches a holding until it is released or lost: the
// session ends, or our node (watched by own) is deleted by someone else.
// It closes lost in the second case and returns when release is closed.
func (s *Session) monitorHolding(path string, own <-chan zk.Event, lost, release chan struct{}) {
	for {
		select {
		case <-release:
			return
		case <-s.done:
		case ev := <-own:
			select {
			case <-release:
				return // our own release deleted it
			default:
			}
			if ev.Type == zk.EventNodeDataChanged || (ev.Type == zk.EventNotWatching && s.alive() == nil) {
				// Written to, or the watch went with a connection while the
				// session lives: the node is still ours; watch it again.
				// The answer may be long in coming (the client is between
				// sessions, the server stalled): meanwhile a release or the
				// loss of the session still counts.
				rewatch := make(chan result[<-chan zk.Event], 1)
				go func() {
					_, _, w, err := s.conn.GetW(path)
					rewatch <- result[<-chan zk.Event]{w, err}
				}()
				var r result[<-chan zk.Event]
				select {
				case r = <-rewatch:
				case <-release:
					return
				case <-s.done:
					close(lost)
					return
				}
				if r.err == nil {
					own = r.value
					continue
				}
				if !errors.Is(r.err, zk.ErrNoNode) && s.alive() == nil {
					own = nil // unknown for now; the session still guards us
					continue
				}
			}
		}
		close(lost)
		return
	}
}

// Unlock releases the lock. It returns ErrSessionLost when the session (and
// with it the lock) is already gone, and ErrNotLocked when the Mutex does
// not hold the lock or its node was deleted by someone else.
func (m *Mutex) Unlock(ctx context.Context) error {
	m.mu.Lock()
	if m.state != held {
		m.mu.Unlock()
		return ErrNotLocked
	}
	path := m.token.Path
	close(m.release)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.state = idle
		m.mu.Unlock()
	}()
	if err := m.session.alive(); err != nil {
		return err
	}
	m.opts.stats.MarkReleased()
	m.opts.tell(lockstats.Event{Kind: lockstats.Released, Node: path[strings.LastIndexByte(path, '/')+1:]})
	err := m.session.deleteOwn(ctx, path, m.opts.stats)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("%w: lock node %s was deleted by someone else", ErrNotLocked, path)
	case err != nil && m.session.alive() == nil:
		// The Mutex is free again, so its node must go, or it would block
		// every waiter until the session ends: keep at it in the background.
		go m.session.abandon(path)
	}
	return err
}

// Token returns the fencing token of the current holding (zero when not held).
func (m *Mutex) Token() Token {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != held {
		return Token{}
	}
	return m.token
}

// Done is closed when the current holding is lost: the session ended, or
// the lock node was deleted by someone else. It is not closed by Unlock;
// select on it only while holding the lock.
func (m *Mutex) Done() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != held {
		return nil
	}
	return m.lost
}

// IsOwner returns a check for conn.Multi that succeeds only while our lock
// node exists, so a transaction commits only if we still hold the lock.
func (m *Mutex) IsOwner() zk.CheckVersionRequest {
	return zk.CheckVersionRequest{Path: m.Token().Path, Version: 0}
}

// abandon removes the node of a wait that failed or was cancelled, on a
// fresh context: it tries for up to the session timeout before returning,
// then keeps trying in the background, so a server that is briefly away does
// not leave an orphan at the head of the queue.
func (s *Session) abandon(path string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if s.deleteQuietly(ctx, path) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		s.deleteQuietly(ctx, path)
	}()
}
