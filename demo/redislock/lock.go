package redislock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zkx-dev/zkx/internal/lockstats"
)

// Defaults, as Redisson's: a 30 s lease renewed every 10 s, and the
// 100 ms retry of a typical client.
const (
	DefaultLease = 30 * time.Second
	DefaultRetry = 100 * time.Millisecond
)

// Errors.
var (
	// ErrNotHeld: Unlock found the key gone or holding another token (the
	// lease ran out, and perhaps someone else took the lock).
	ErrNotHeld = errors.New("redislock: the lock is no longer ours")
	// ErrLocked: TryLock found the lock held.
	ErrLocked = errors.New("redislock: held by someone else")
	// errBusy: Lock or TryLock on a Lock already held or being taken.
	errBusy = errors.New("redislock: this Lock is already held or being taken")
)

// The scripts run atomically on the server: check that the key still holds
// our token, then act. Without the check a holder whose lease ran out
// would delete (or extend) the next holder's lock.
const (
	releaseScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`
	renewScript   = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`
)

// Option configures a Lock.
type Option func(*options)

type options struct {
	lease    time.Duration
	retry    time.Duration
	stats    *lockstats.Stats
	observer lockstats.Observer
	renewals *atomic.Uint64
	owner    string
}

// WithLease sets the lease (default 30 s); the watchdog renews every
// lease/3.
func WithLease(d time.Duration) Option { return func(o *options) { o.lease = d } }

// WithRetry sets how long Lock sleeps after a SET NX that failed (default
// 100 ms).
func WithRetry(d time.Duration) Option { return func(o *options) { o.retry = d } }

// WithStats counts SETs (as creates), acquisitions, releases and handoff
// latency into st, shared with other locks.
func WithStats(st *lockstats.Stats) Option { return func(o *options) { o.stats = st } }

// WithObserver reports Polling, Acquired (Path is the key) and Released
// to obs.
func WithObserver(obs lockstats.Observer) Option { return func(o *options) { o.observer = obs } }

// WithRenewals counts the watchdog's successful renewals into n.
func WithRenewals(n *atomic.Uint64) Option { return func(o *options) { o.renewals = n } }

// WithOwner starts every token with name (then ":" and random hex), so a
// reader of the key can tell who holds it.
func WithOwner(name string) Option { return func(o *options) { o.owner = name } }

// Lock is one client's lock on one key. One goroutine at a time may use a
// Lock.
type Lock struct {
	client *redis.Client
	key    string
	opts   options

	mu       sync.Mutex
	state    int // idle, taking or held
	token    string
	stop     chan struct{} // closed to stop the watchdog
	stopped  chan struct{} // closed when the watchdog has stopped
	lost     chan struct{} // closed when the watchdog finds the lock gone
	lostOnce sync.Once
}

const (
	idle = iota
	taking
	held
)

// New returns a Lock on key through client.
func New(client *redis.Client, key string, opts ...Option) *Lock {
	o := options{lease: DefaultLease, retry: DefaultRetry}
	for _, opt := range opts {
		opt(&o)
	}
	if o.stats == nil {
		o.stats = lockstats.NewStats()
	}
	return &Lock{client: client, key: key, opts: o}
}

// Key is the key the lock lives in.
func (l *Lock) Key() string { return l.key }

// Lease is the lock's lease.
func (l *Lock) Lease() time.Duration { return l.opts.lease }

// Lock takes the lock, trying SET NX PX again every retry interval until
// it succeeds or ctx ends.
func (l *Lock) Lock(ctx context.Context) error { return l.take(ctx, true) }

// TryLock tries once: ErrLocked when someone else holds the lock.
func (l *Lock) TryLock(ctx context.Context) error { return l.take(ctx, false) }

func (l *Lock) take(ctx context.Context, wait bool) error {
	l.mu.Lock()
	if l.state != idle {
		l.mu.Unlock()
		return errBusy
	}
	l.state = taking
	l.mu.Unlock()
	token, err := l.acquire(ctx, wait)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.state = idle
		return err
	}
	l.state, l.token = held, token
	l.stop, l.stopped, l.lost = make(chan struct{}), make(chan struct{}), make(chan struct{})
	l.lostOnce = sync.Once{}
	go l.watchdog(token, l.stop, l.stopped, l.lost)
	return nil
}

// acquire sends SET key token NX PX lease, literally (go-redis's SetNX
// would send EX for a whole number of seconds), until it succeeds.
func (l *Lock) acquire(ctx context.Context, wait bool) (string, error) {
	token, err := newToken(l.opts.owner)
	if err != nil {
		return "", err
	}
	var waitedSince time.Time
	for {
		l.opts.stats.CountCreate()
		err := l.client.Do(ctx, "SET", l.key, token, "NX", "PX", l.opts.lease.Milliseconds()).Err()
		switch {
		case err == nil:
			l.opts.stats.MarkAcquired(waitedSince)
			l.tell(lockstats.Event{Kind: lockstats.Acquired, Path: l.key})
			return token, nil
		case errors.Is(err, redis.Nil): // NX: the key exists
			if !wait {
				return "", ErrLocked
			}
		case ctx.Err() != nil:
			return "", ctx.Err()
		default:
			// Connection trouble: as the typical client, try again later.
			if !wait {
				return "", fmt.Errorf("SET %s NX PX: %w", l.key, err)
			}
		}
		l.tell(lockstats.Event{Kind: lockstats.Polling})
		if waitedSince.IsZero() {
			waitedSince = time.Now()
		}
		t := time.NewTimer(l.opts.retry)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return "", ctx.Err()
		}
	}
}

// watchdog renews the lease every lease/3 while the lock is held; it stops
// when told to, or when a renewal finds the key no longer ours (then the
// lock is lost). A renewal that fails for the connection is tried again
// at the next tick, as Redisson does.
func (l *Lock) watchdog(token string, stop, stopped, lost chan struct{}) {
	defer close(stopped)
	every := max(l.opts.lease/3, time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every)
		n, err := l.client.Eval(ctx, renewScript, []string{l.key}, token, l.opts.lease.Milliseconds()).Int64()
		cancel()
		switch {
		case err != nil:
			continue
		case n == 0:
			l.lostOnce.Do(func() { close(lost) })
			return
		}
		if l.opts.renewals != nil {
			l.opts.renewals.Add(1)
		}
	}
}

// stopWatchdog stops the current holding's watchdog and waits for it, so
// no renewal goes out after it returns.
func (l *Lock) stopWatchdog() (token string, ok bool) {
	l.mu.Lock()
	if l.state != held {
		l.mu.Unlock()
		return "", false
	}
	token, stop, stopped := l.token, l.stop, l.stopped
	l.state, l.token = idle, ""
	l.mu.Unlock()
	close(stop)
	<-stopped
	return token, true
}

// Unlock releases the lock with a compare-and-delete: ErrNotHeld when the
// key no longer holds our token (the lease ran out).
func (l *Lock) Unlock(ctx context.Context) error {
	token, ok := l.stopWatchdog()
	if !ok {
		return ErrNotHeld
	}
	l.opts.stats.MarkReleased()
	l.tell(lockstats.Event{Kind: lockstats.Released, Node: l.key})
	n, err := l.client.Eval(ctx, releaseScript, []string{l.key}, token).Int64()
	if err != nil {
		return fmt.Errorf("release %s: %w", l.key, err)
	}
	if n == 0 {
		return fmt.Errorf("release %s: %w", l.key, ErrNotHeld)
	}
	return nil
}

// Abandon forgets the lock as a crashed process does: the watchdog stops
// and nothing is released; the key stays until its lease runs out.
func (l *Lock) Abandon() { l.stopWatchdog() }

// Token is the value the lock was taken with ("" when not held).
func (l *Lock) Token() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.token
}

// Done is closed when the watchdog found the held lock lost (its lease ran
// out before a renewal); nil when not held.
func (l *Lock) Done() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != held {
		return nil
	}
	return l.lost
}

func (l *Lock) tell(ev lockstats.Event) { l.opts.observer.Tell(ev) }

// newToken is owner:random, unguessable so no other client can release
// or renew our lock by accident.
func newToken(owner string) (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("redislock: token: %w", err)
	}
	if owner == "" {
		return hex.EncodeToString(b[:]), nil
	}
	return owner + ":" + hex.EncodeToString(b[:]), nil
}
