package recipes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/seqnode"
)

// Semaphore hands out at most maxLeases leases at once, across processes,
// laid out as Curator's InterProcessSemaphoreV2 so it shares the leases
// with Curator clients on the same path:
//
//	<dir>/locks/_c_<uuid>-lock-SEQ    an internal Mutex, held while acquiring
//	<dir>/leases/_c_<uuid>-lease-SEQ  one ephemeral node per lease
//
// An acquirer takes the internal lock, creates its lease node, and while
// the leases directory holds more than maxLeases children it waits for
// that directory to change; then it releases the internal lock. The lock
// keeps acquirers from waiting on each other's pending nodes and queues
// them fairly; the bound itself comes from the count, which includes every
// pending node. Like Curator, the count is of every child of leases/, of
// whatever name, so that both libraries agree on it.
//
// Only the Curator layout is written. Kazoo's semaphore is a different
// protocol (leases named by identifier beside a lock directory), so a
// Semaphore made with WithFormat(Kazoo) refuses to acquire rather than
// silently not excluding Kazoo clients. A Semaphore may be used by many
// goroutines at once; each Acquire returns its own Lease.
type Semaphore struct {
	session   *Session
	dir       string
	leasesDir string
	max       int
	opts      options
	lockOpts  []Option
	err       error // a configuration we refuse, reported by every acquire
}

// NewSemaphore returns a Semaphore of maxLeases leases on directory dir
// (created on demand, as containers). Options: WithData, WithACL,
// WithLookahead (for the internal lock). WithFormat(Kazoo) makes Acquire
// and TryAcquire fail (see Semaphore).
func NewSemaphore(s *Session, dir string, maxLeases int, opts ...Option) *Semaphore {
	o := buildOptions(opts)
	// The internal lock counts apart: a Semaphore's counters are of the
	// lease work (acquisitions are leases granted, and a handoff runs from
	// a Release to the grant it let in).
	sem := &Semaphore{session: s, dir: dir, leasesDir: joinPath(dir, "leases"), max: maxLeases, opts: o,
		lockOpts: []Option{WithData(o.data), WithACL(o.acl), WithLookahead(o.lookahead)}}
	switch {
	case o.format != Curator:
		sem.err = fmt.Errorf("recipes: semaphore %s: the %v format is not supported (only Curator's semaphore layout is written)", dir, o.format)
	case maxLeases < 1:
		sem.err = fmt.Errorf("recipes: semaphore %s: %d leases, want at least 1", dir, maxLeases)
	}
	return sem
}

// errFull is the cause TryAcquire gives when it stops waiting for the
// internal lock because every lease is taken.
var errFull = errors.New("all leases taken")

// Acquire blocks until a lease is granted, ctx ends, or the session is
// lost. On failure nothing of the attempt (lease or lock node) is left on
// the server.
func (sem *Semaphore) Acquire(ctx context.Context) (*Lease, error) { return sem.acquire(ctx, true) }

// TryAcquire takes a lease if one is free, else returns ErrLocked. It does
// not wait for a lease to be released: it returns ErrLocked as soon as it
// sees every lease taken, which includes the case of another acquirer
// waiting for one. It may wait briefly for the internal lock while another
// acquirer takes a free lease.
func (sem *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) {
	return sem.acquire(ctx, false)
}

func (sem *Semaphore) acquire(ctx context.Context, wait bool) (*Lease, error) {
	if sem.err != nil {
		return nil, sem.err
	}
	if err := sem.session.alive(); err != nil {
		return nil, err
	}
	lock := NewMutex(sem.session, joinPath(sem.dir, "locks"), sem.lockOpts...)
	var err error
	if wait {
		err = lock.Lock(ctx)
	} else {
		err = sem.lockUnlessFull(ctx, lock)
	}
	if err != nil {
		return nil, err
	}
	lease, err := sem.takeLease(ctx, wait)
	if uerr := sem.unlock(ctx, lock); uerr != nil && err == nil {
		return nil, uerr // the session went, and the lease with it
	}
	return lease, err
}

// unlock releases the internal lock on a context that outlives the
// caller's: a lock node left behind would stop every other acquirer.
// Without a deadline it still ends: a session disconnected for its
// timeout is lost. Only the loss of the session matters to the caller.
func (sem *Semaphore) unlock(ctx context.Context, lock *Mutex) error {
	err := lock.Unlock(context.WithoutCancel(ctx))
	switch {
	case err == nil, errors.Is(err, ErrNotLocked):
		return nil // released, or deleted by someone else: not ours either way
	case errors.Is(err, ErrSessionLost):
		return err
	}
	sem.session.logger.Warn("could not release a semaphore's internal lock", "dir", sem.dir, "err", err)
	return nil
}

// lockUnlessFull takes the internal lock for TryAcquire, giving up with
// ErrLocked (and no node left) once the leases directory shows every lease
// taken. Waiting for the lock while leases are free is brief: its holder is
// taking one of them.
func (sem *Semaphore) lockUnlessFull(ctx context.Context, lock *Mutex) error {
	full, events, err := sem.leasesFull(ctx)
	if err != nil {
		return err
	}
	if full {
		return ErrLocked
	}
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go sem.cancelWhenFull(lctx, cancel, events)
	err = lock.Lock(lctx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(lctx), errFull) {
		return ErrLocked
	}
	return err
}

// cancelWhenFull follows the leases directory, from the watch events of a
// first listing, and cancels with errFull once every lease is taken.
func (sem *Semaphore) cancelWhenFull(ctx context.Context, cancel context.CancelCauseFunc, events <-chan zk.Event) {
	for {
		select {
		case <-events:
		case <-ctx.Done():
			return
		}
		full, next, err := sem.leasesFull(ctx)
		if err != nil {
			return // ctx ended or the session went: the Lock sees it too
		}
		if full {
			cancel(errFull)
			return
		}
		events = next
	}
}

// leasesFull lists the leases directory with a watch (on its creation when
// it is missing) and reports whether every lease is taken.
func (sem *Semaphore) leasesFull(ctx context.Context) (bool, <-chan zk.Event, error) {
	for {
		l, err := sem.listLeases(ctx)
		if !errors.Is(err, zk.ErrNoNode) {
			return len(l.children) >= sem.max, l.events, err
		}
		// No directory, no leases.
		sem.opts.stats.CountRead()
		l, err = retry(ctx, sem.session, func() (leaseListing, error) {
			ok, _, ch, err := sem.session.conn.ExistsW(sem.leasesDir)
			return leaseListing{events: ch, exists: ok}, err
		})
		if err != nil || !l.exists {
			return false, l.events, err
		}
		// Created meanwhile: list it.
	}
}

// leaseListing is one listing of the leases directory and its watch.
type leaseListing struct {
	children []string
	events   <-chan zk.Event
	exists   bool
}

func (sem *Semaphore) listLeases(ctx context.Context) (leaseListing, error) {
	sem.opts.stats.CountRead()
	return retry(ctx, sem.session, func() (leaseListing, error) {
		c, _, ch, err := sem.session.conn.ChildrenW(sem.leasesDir)
		return leaseListing{children: c, events: ch, exists: err == nil}, err
	})
}

// takeLease creates our lease node, holding the internal lock, and waits
// until it is within the bound; with wait false it gives up with ErrLocked
// instead. On failure it removes the node. A node that vanishes meanwhile
// (deleted by someone else) is made again.
func (sem *Semaphore) takeLease(ctx context.Context, wait bool) (*Lease, error) {
	var since time.Time // when we started waiting for a lease
	for {
		name, err := sem.session.createProtected(ctx, sem.leasesDir, newPrefix(Curator, curatorLease), sem.opts.data, sem.opts.acl, zk.FlagEphemeralSequential, sem.opts.stats)
		if err != nil {
			return nil, err
		}
		path := joinPath(sem.leasesDir, name)
		var lease *Lease
		present, err := sem.waitForSlot(ctx, name, wait, &since)
		if err == nil && present {
			lease, present, err = sem.grant(ctx, path, since)
		}
		if err == nil && present {
			return lease, nil
		}
		if sem.session.alive() == nil {
			sem.session.abandon(path)
		}
		if err != nil {
			return nil, err
		}
	}
}

// waitForSlot waits until the leases directory, our node included, holds
// no more than maxLeases children. present is false when our node is gone.
func (sem *Semaphore) waitForSlot(ctx context.Context, name string, wait bool, since *time.Time) (present bool, err error) {
	for {
		l, err := sem.listLeases(ctx)
		if errors.Is(err, zk.ErrNoNode) {
			return false, nil // the directory went, and our node with it
		}
		if err != nil {
			return false, err
		}
		if !slices.Contains(l.children, name) {
			return false, nil
		}
		if len(l.children) <= sem.max {
			return true, nil
		}
		if !wait {
			return true, ErrLocked
		}
		if since.IsZero() {
			*since = time.Now()
		}
		if err := sem.awaitChange(ctx, l.events); err != nil {
			return true, err
		}
	}
}

// awaitChange waits for a watch event on the leases directory.
func (sem *Semaphore) awaitChange(ctx context.Context, events <-chan zk.Event) error {
	select {
	case ev := <-events:
		if ev.Type == zk.EventNotWatching {
			return sem.session.alive() // the watch went with the connection: list again
		}
		sem.opts.stats.CountNotification()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-sem.session.done:
		return sem.session.Err()
	}
}

// grant reads our lease node for the token and a watch that tells of its
// loss, and checks it belongs to our session before saying yes. present is
// false when the node is gone.
func (sem *Semaphore) grant(ctx context.Context, path string, since time.Time) (l *Lease, present bool, err error) {
	s := sem.session
	sem.opts.stats.CountRead()
	own, err := retry(ctx, s, func() (ownNode, error) {
		_, stat, ch, err := s.conn.GetW(path)
		return ownNode{stat: stat, watch: ch}, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if own.stat.EphemeralOwner != s.id {
		return nil, true, fmt.Errorf("%w: node %s belongs to session 0x%x", ErrSessionLost, path, own.stat.EphemeralOwner)
	}
	if err := s.alive(); err != nil {
		return nil, true, err
	}
	seq, _ := seqnode.After(path, curatorLease)
	sem.opts.stats.MarkAcquired(since)
	l = &Lease{session: s, stats: sem.opts.stats, lost: make(chan struct{}), release: make(chan struct{}),
		token: Token{Zxid: own.stat.Czxid, Seq: seq, Session: s.id, Path: path}}
	go s.monitorHolding(path, own.watch, l.lost, l.release)
	return l, true, nil
}

// Lease is one lease of a Semaphore, held until Release or until it is
// lost with the session. Its methods may be called from any goroutine.
type Lease struct {
	session *Session
	stats   *lockstats.Stats
	token   Token
	lost    chan struct{} // closed when the lease is lost
	release chan struct{} // closed by Release, so the monitor stops

	mu       sync.Mutex
	released bool
}

// Release gives the lease back. It returns ErrSessionLost when the session
// (and with it the lease) is already gone, and ErrNotLocked when the lease
// was released before or its node was deleted by someone else. If ctx ends
// before the server confirms, the node is still removed in the background,
// so a slot is never kept by a lease its holder gave up.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		return ErrNotLocked
	}
	l.released = true
	close(l.release)
	l.mu.Unlock()
	if err := l.session.alive(); err != nil {
		return err
	}
	l.stats.MarkReleased()
	err := l.session.deleteOwn(ctx, l.token.Path, l.stats)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("%w: lease node %s was deleted by someone else", ErrNotLocked, l.token.Path)
	case err != nil && ctx.Err() != nil:
		go l.session.abandon(l.token.Path)
	}
	return err
}

// Done is closed when the lease is lost: the session ended, or the lease
// node was deleted by someone else. It is not closed by Release.
func (l *Lease) Done() <-chan struct{} { return l.lost }

// Token returns the lease's fencing token: the zxid that created its node,
// with the node's sequence number, the session and the node's path.
func (l *Lease) Token() Token { return l.token }

// IsOwner returns a check for conn.Multi that succeeds only while the lease
// node exists, so a transaction commits only while the lease is held.
func (l *Lease) IsOwner() zk.CheckVersionRequest {
	return zk.CheckVersionRequest{Path: l.token.Path, Version: 0}
}
