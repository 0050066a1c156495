package recipes

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A nemesis contender loops: dial a session, acquire, hold, release; when
// its session is lost, close it and dial a new one.
//
// While it holds, it uses the fenced resource only while its session is
// Connected. The recipes close Done only when the session is Lost, and the
// client learns that late: when it reconnects and the server says expired,
// or a whole session timeout after the connection went. The server expires
// the session a timeout after it last heard from the client, and the lock
// passes on at once; go-zookeeper suspends (the connection is declared dead)
// two thirds of a timeout after it last heard from the server. So Suspended
// comes a third of a timeout before the lock can pass on, and Lost a timeout
// or more after: a holder that waited for Done would still be working while
// the next holder works. It therefore stops at Suspended, as Curator
// advises, and resumes if the session comes back Connected (the lock was
// never lost: the session lived, and with it the node). Wall-clock overlaps
// remain possible when the holder itself is stalled (GC, CPU starvation)
// for longer than that third of a timeout, and when a session is expired
// while its client still hears from the server (another client closing it
// with its id and password): no client can know in time then, and only the
// fencing token protects the resource. The nemesis does not do the latter,
// and the session timeouts are chosen so that a third of one is far beyond
// this machine's scheduling delays; every overlap therefore fails the test.

// nemesisGrant is what an acquisition gives a holder.
type nemesisGrant struct {
	token   Token
	done    <-chan struct{}
	usable  func() bool // may the holder use the resource now?
	release func(context.Context) error
}

// contenderKind makes the acquire function of one kind of contender on a
// session.
type contenderKind struct {
	access  access
	acquire func(s *Session, dir string) func(context.Context) (nemesisGrant, error)
}

func connectedAndHeld(s *Session, done <-chan struct{}) func() bool {
	return func() bool { return s.State() == Connected && !closed(done) }
}

func mutexContender(opts ...Option) contenderKind {
	return contenderKind{access: exclusive, acquire: func(s *Session, dir string) func(context.Context) (nemesisGrant, error) {
		m := NewMutex(s, dir, opts...)
		return func(ctx context.Context) (nemesisGrant, error) {
			if err := m.Lock(ctx); err != nil {
				return nemesisGrant{}, err
			}
			done := m.Done()
			return nemesisGrant{token: m.Token(), done: done, usable: connectedAndHeld(s, done), release: m.Unlock}, nil
		}
	}}
}

func rwContender(write bool) contenderKind {
	a := shared
	if write {
		a = exclusive
	}
	return contenderKind{access: a, acquire: func(s *Session, dir string) func(context.Context) (nemesisGrant, error) {
		rw := NewRWMutex(s, dir)
		return func(ctx context.Context) (nemesisGrant, error) {
			if write {
				if err := rw.Lock(ctx); err != nil {
					return nemesisGrant{}, err
				}
				done := rw.Done()
				return nemesisGrant{token: rw.Token(), done: done, usable: connectedAndHeld(s, done), release: rw.Unlock}, nil
			}
			if err := rw.RLock(ctx); err != nil {
				return nemesisGrant{}, err
			}
			done := rw.ReadDone()
			return nemesisGrant{token: rw.ReadToken(), done: done, usable: connectedAndHeld(s, done), release: rw.RUnlock}, nil
		}
	}}
}

func semaphoreContender(leases int) contenderKind {
	return contenderKind{access: leased, acquire: func(s *Session, dir string) func(context.Context) (nemesisGrant, error) {
		sem := NewSemaphore(s, dir, leases)
		return func(ctx context.Context) (nemesisGrant, error) {
			l, err := sem.Acquire(ctx)
			if err != nil {
				return nemesisGrant{}, err
			}
			return nemesisGrant{token: l.Token(), done: l.Done(), usable: connectedAndHeld(s, l.Done()), release: l.Release}, nil
		}
	}}
}

func electionContender() contenderKind {
	return contenderKind{access: exclusive, acquire: func(s *Session, dir string) func(context.Context) (nemesisGrant, error) {
		e := NewElection(s, dir)
		return func(ctx context.Context) (nemesisGrant, error) {
			if err := e.Campaign(ctx); err != nil {
				return nemesisGrant{}, err
			}
			// IsLeader is false while the session is not Connected, as
			// Curator's LeaderLatch treats a suspended connection.
			return nemesisGrant{token: e.Token(), done: e.Done(), usable: e.IsLeader, release: e.Resign}, nil
		}
	}}
}

// stateSignal follows one session's state changes for its holder.
type stateSignal struct {
	mu sync.Mutex
	ch chan struct{} // closed at the next change
}

func newStateSignal() *stateSignal { return &stateSignal{ch: make(chan struct{})} }

// listener is the session's state listener: it must not block.
func (sig *stateSignal) listener(SessionState) {
	sig.mu.Lock()
	close(sig.ch)
	sig.ch = make(chan struct{})
	sig.mu.Unlock()
}

// changed returns a channel closed at the next change of state.
func (sig *stateSignal) changed() <-chan struct{} {
	sig.mu.Lock()
	defer sig.mu.Unlock()
	return sig.ch
}

// holdPlan is how long a holder uses the resource: ops uses, gap apart.
type holdPlan struct {
	ops int
	gap time.Duration
}

// nemesisRun is what the contenders of one run share.
type nemesisRun struct {
	sessionTimeout time.Duration
	connectTimeout time.Duration
	short, long    func() holdPlan // most holdings are short; a few are long
	longOdds       float64

	mu       sync.Mutex
	sessions map[int64]*nemesisContender // live sessions, for the nemesis
	problems []string
	lost     map[string]int // sessions lost, by reason

	dials, dialFailures atomic.Uint64
}

func (r *nemesisRun) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.problems) < maxProblems {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	}
}

// liveSessions returns the sessions contenders hold now.
func (r *nemesisRun) liveSessions() map[int64]*nemesisContender {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[int64]*nemesisContender, len(r.sessions))
	for id, c := range r.sessions {
		out[id] = c
	}
	return out
}

// lossReason sorts a lost session's error into the ways sessions end.
func lossReason(err error) string {
	msg := fmt.Sprint(err)
	switch {
	case strings.Contains(msg, "longer than its"):
		return "disconnected for a whole timeout"
	case strings.Contains(msg, "expired"):
		return "expired by the server"
	case strings.Contains(msg, "connection closed"):
		return "connection closed"
	}
	return msg
}

// nemesisContender is one goroutine contending for one recipe.
type nemesisContender struct {
	name    string
	run     *nemesisRun
	fence   *fence
	dir     string
	servers []string
	kind    contenderKind

	session atomic.Pointer[Session] // current one, for the nemesis
	// linger is set by the nemesis when it is about to cut off a session: a
	// holding of that session granted before goes on using the resource
	// until the session's state changes (for at most two session timeouts).
	linger atomic.Pointer[lingerOrder]

	acquireErrors atomic.Uint64
}

// loop contends until ctx ends.
func (c *nemesisContender) loop(ctx context.Context) {
	for ctx.Err() == nil {
		sig := newStateSignal()
		c.run.dials.Add(1)
		s, err := Dial(c.servers, WithSessionTimeout(c.run.sessionTimeout),
			WithConnectTimeout(c.run.connectTimeout), WithStateListener(sig.listener))
		if err != nil {
			// The servers it may use are down or paused: try again.
			c.run.dialFailures.Add(1)
			nap(ctx, 100*time.Millisecond)
			continue
		}
		c.session.Store(s)
		c.run.mu.Lock()
		c.run.sessions[s.ID()] = c
		c.run.mu.Unlock()
		acquire := c.kind.acquire(s, c.dir)
		for ctx.Err() == nil && s.Err() == nil {
			g, err := acquire(ctx)
			if err != nil {
				if ctx.Err() == nil && !errors.Is(err, ErrSessionLost) {
					c.acquireErrors.Add(1)
					c.run.problem("%s: acquire failed: %v", c.name, err)
					nap(ctx, 50*time.Millisecond)
				}
				continue
			}
			c.hold(ctx, g, sig)
		}
		c.run.mu.Lock()
		delete(c.run.sessions, s.ID())
		if err := s.Err(); err != nil {
			c.run.lost[lossReason(err)]++
		}
		c.run.mu.Unlock()
		s.Close()
	}
}

// nap waits d or until ctx ends: the pace of retries, not synchronisation.
func nap(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// suspendLimit bounds how long a holder waits for its session to come back
// or be declared lost: the session's own timer declares it lost a timeout
// after the connection went.
const suspendLimit = 60 * time.Second

// hold uses the resource under g, then releases it. It uses the resource
// only while g is usable and stops at once when the session's state
// changes; when the session comes back Connected with the holding intact it
// goes on.
func (c *nemesisContender) hold(ctx context.Context, g nemesisGrant, sig *stateSignal) {
	f := c.fence
	h := f.grant(c.name, c.kind.access, g.token)
	plan := c.run.short()
	if rand.Float64() < c.run.longOdds {
		plan = c.run.long()
	}
	left := plan.ops
	var lingerUntil time.Time
	first := true
hold:
	for left > 0 || c.lingering(h, &lingerUntil) {
		changed := sig.changed()
		if closed(g.done) {
			break
		}
		if !g.usable() {
			if first {
				f.suspended(h, true) // granted, but the connection went already
			}
			first = false
			select {
			case <-changed:
			case <-g.done:
			case <-time.After(suspendLimit):
				c.run.problem("%s: %v: session neither back nor lost after %v", c.name, h, suspendLimit)
				break hold
			}
			continue
		}
		first = false
		if !f.enter(h) {
			break // fenced out: the lock is not ours any more
		}
		stopped := false
		for left > 0 || c.lingering(h, &lingerUntil) {
			if ctx.Err() != nil {
				left, lingerUntil = 0, time.Time{}
				c.linger.Store(nil)
				break
			}
			gap := plan.gap
			if left <= 0 {
				gap = c.run.sessionTimeout / 20 // lingering: keep using it
			}
			t := time.NewTimer(gap)
			select {
			case <-changed:
			case <-g.done:
			case <-t.C:
			}
			t.Stop()
			if closed(changed) || closed(g.done) {
				stopped = true
				break
			}
			if !f.op(h) {
				f.exit(h)
				break hold // fenced out
			}
			left--
		}
		f.exit(h)
		if stopped {
			f.suspended(h, false)
			c.linger.Store(nil)
			lingerUntil = time.Time{}
		}
	}
	if rand.IntN(2) == 0 {
		// Half the holders release at once, even while suspended (the
		// release waits for the connection); the others first wait to
		// know whether the holding survived, so that a loss shows in Done.
		c.awaitOutcome(h, g, sig)
	}
	doneBefore := closed(g.done)
	f.releasing(h)
	rctx, cancel := context.WithTimeout(context.Background(), 2*c.run.sessionTimeout+30*time.Second)
	err := g.release(rctx)
	cancel()
	f.released(h, err, doneBefore)
}

// lingering reports whether the nemesis wants the holder of h to keep
// using the resource (until its session changes, for at most two session
// timeouts).
func (c *nemesisContender) lingering(h *holding, until *time.Time) bool {
	if o := c.linger.Load(); o == nil || o.session != h.token.Session || !h.granted.Before(o.at) {
		return false
	}
	if until.IsZero() {
		*until = time.Now().Add(2 * c.run.sessionTimeout)
	}
	if time.Now().After(*until) {
		c.linger.Store(nil)
		*until = time.Time{}
		return false
	}
	return true
}

// awaitOutcome waits until g is usable again or lost.
func (c *nemesisContender) awaitOutcome(h *holding, g nemesisGrant, sig *stateSignal) {
	for {
		changed := sig.changed()
		if closed(g.done) || g.usable() {
			return
		}
		select {
		case <-changed:
		case <-g.done:
		case <-time.After(suspendLimit):
			c.run.problem("%s: %v: session neither back nor lost after %v", c.name, h, suspendLimit)
			return
		}
	}
}

// lingerOrder asks the holder of a holding of session, granted before at,
// to go on holding.
type lingerOrder struct {
	session int64
	at      time.Time
}

// lingerSession gives a linger order for session.
func (c *nemesisContender) lingerSession(session int64) {
	c.linger.Store(&lingerOrder{session: session, at: time.Now()})
}
