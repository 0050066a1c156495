package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkx-dev/zkx/internal/lockstats"
)

// LaneConfig is what a lane's contenders lock on, and how.
type LaneConfig struct {
	Servers []string // ZooKeeper lanes: the ensemble
	Dir     string   // ZooKeeper lanes: the lock directory
	Redis   string   // the Redis lane: the server's HOST:PORT
	Key     string   // the Redis lane: the lock's key

	Hold time.Duration // how long each holder holds
	Poll time.Duration // spin and Redis: the retry interval
	// Lease is the Redis lease, renewed by the watchdog every Lease/3.
	Lease time.Duration
	// SessionTimeout is the ZooKeeper contenders' session timeout.
	SessionTimeout time.Duration

	// CrashEvery N crashes every Nth holder right after it acquires (0:
	// never); a new contender takes its place.
	CrashEvery int
	// Stall freezes every StallEvery-th holder right after it acquires
	// (0: never), and the holder the z key picks.
	Stall      time.Duration
	StallEvery int
}

// Defaults of LaneConfig fields left zero.
const (
	DefaultSessionTimeout = 3 * time.Second // short, so a crashed holder's lock is freed while the audience watches
	DefaultLease          = 30 * time.Second
)

// DefaultStall is the pause the z key makes when no --stall was given:
// long enough for the lease and the session to run out.
func DefaultStall(lease, session time.Duration) time.Duration {
	return max(lease, session) + 2*time.Second
}

func (c LaneConfig) withDefaults() LaneConfig {
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if c.SessionTimeout <= 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	return c
}

// Lane is one lock's contenders, side by side with the other lanes'.
type Lane struct {
	Name        string
	Kind        Kind
	Explanation string

	cfg      LaneConfig
	stats    *lockstats.Stats
	checker  *Checker
	store    *FencedStore
	renewals atomic.Uint64
	recovery lockstats.Histogram
	inspect  *redisInspector // the Redis lane's view of its key

	mu           sync.Mutex
	contenders   []*contender
	nextID       int
	stopped      bool
	hold         time.Duration
	paused       bool
	resumed      chan struct{} // closed when not paused
	history      []float64     // acquisitions per second, oldest first
	lastAcq      uint64
	lastSample   time.Time
	acquisitions uint64    // since the start, for the crash and stall plans
	crashedAt    time.Time // the crash not yet recovered from
	crashes      uint64
	stalls       uint64
	stallNext    bool
}

// historyLength is how many seconds of rate a lane remembers.
const historyLength = 60

// NewLane prepares a lane; Start starts its contenders.
func NewLane(kind Kind, cfg LaneConfig) *Lane {
	cfg = cfg.withDefaults()
	l := &Lane{
		Name: string(kind), Kind: kind, Explanation: kind.Explanation(),
		cfg: cfg, hold: cfg.Hold,
		stats: lockstats.NewStats(), checker: NewChecker(), store: NewFencedStore(), resumed: make(chan struct{}),
	}
	close(l.resumed)
	if kind == Redis {
		l.inspect = startRedisInspector(cfg.Redis, cfg.Key)
	}
	return l
}

// Config returns the lane's configuration.
func (l *Lane) Config() LaneConfig { return l.cfg }

// Start adds n contenders.
func (l *Lane) Start(n int) error {
	for i := 0; i < n; i++ {
		if err := l.Add(); err != nil {
			return err
		}
	}
	return nil
}

// Add starts one more contender with its own session (or connection).
func (l *Lane) Add() error {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return errStopped
	}
	l.nextID++
	id := l.nextID
	l.mu.Unlock()
	c, err := startContender(l, id)
	if err != nil {
		return err
	}
	l.mu.Lock()
	stopped := l.stopped
	if !stopped {
		l.contenders = append(l.contenders, c)
	}
	l.mu.Unlock()
	if stopped {
		c.close()
		return errStopped
	}
	return nil
}

// replace starts a contender in place of one that crashed.
func (l *Lane) replace() {
	for {
		err := l.Add()
		if err == nil || errors.Is(err, errStopped) {
			return
		}
		// The server is busy or away: try again, unless the lane stops.
		t := time.NewTimer(time.Second)
		<-t.C
	}
}

// Remove closes the newest live contender cleanly.
func (l *Lane) Remove() bool {
	l.mu.Lock()
	var c *contender
	for i := len(l.contenders) - 1; i >= 0; i-- {
		if st := l.contenders[i].snapshot().State; st != Crashed && st != Closed {
			c = l.contenders[i]
			l.contenders = append(l.contenders[:i], l.contenders[i+1:]...)
			break
		}
	}
	l.mu.Unlock()
	if c == nil {
		return false
	}
	c.close()
	return true
}

// holder returns the contender holding the lock, if any.
func (l *Lane) holder() *contender {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.contenders {
		if c.snapshot().State == Holding {
			return c
		}
	}
	return nil
}

// CrashHolder kills the holder as a crashed process dies: the server frees
// its lock at session (or lease) expiry, seconds later.
func (l *Lane) CrashHolder() bool {
	c := l.holder()
	if c == nil {
		return false
	}
	l.noteCrash()
	c.crash()
	return true
}

// CloseHolder makes the holder leave cleanly: its session ends and its
// node goes at once (Redis: it releases the key).
func (l *Lane) CloseHolder() bool {
	c := l.holder()
	if c == nil {
		return false
	}
	c.close()
	return true
}

// StallNext makes the next holder freeze right after it acquires, for the
// lane's stall time; it returns that time.
func (l *Lane) StallNext() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stallNext = true
	return l.stallFor()
}

func (l *Lane) stallFor() time.Duration {
	if l.cfg.Stall > 0 {
		return l.cfg.Stall
	}
	return DefaultStall(l.cfg.Lease, l.cfg.SessionTimeout)
}

// plan is what the lane has in store for a holder that just acquired.
type plan struct {
	crash bool
	stall time.Duration
}

// acquired is told of every acquisition: it ends the recovery from a
// crash, grants the holder its write, and plans its fate.
func (l *Lane) acquired() (grant uint64, p plan) {
	now := time.Now()
	grant = l.store.Grant()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.crashedAt.IsZero() {
		l.recovery.Record(now.Sub(l.crashedAt))
		l.crashedAt = time.Time{}
	}
	l.acquisitions++
	n := l.acquisitions
	switch {
	case l.stallNext || (l.cfg.StallEvery > 0 && l.cfg.Stall > 0 && n%uint64(l.cfg.StallEvery) == 0):
		l.stallNext = false
		l.stalls++
		p.stall = l.stallFor()
	case l.cfg.CrashEvery > 0 && n%uint64(l.cfg.CrashEvery) == 0:
		p.crash = true
	}
	return grant, p
}

// noteCrash starts the recovery clock: the next acquisition stops it.
func (l *Lane) noteCrash() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.crashes++
	if l.crashedAt.IsZero() {
		l.crashedAt = time.Now()
	}
}

// SetHold sets how long each holder holds the lock.
func (l *Lane) SetHold(d time.Duration) {
	l.mu.Lock()
	l.hold = d
	l.mu.Unlock()
}

func (l *Lane) holdTime() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hold
}

// SetPaused stops or resumes new acquisitions (holders finish their hold).
func (l *Lane) SetPaused(p bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p == l.paused {
		return
	}
	l.paused = p
	if p {
		l.resumed = make(chan struct{})
	} else {
		close(l.resumed)
	}
}

func (l *Lane) waitUnpaused(ctx context.Context) bool {
	l.mu.Lock()
	ch := l.resumed
	l.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// Reset zeroes the counters.
func (l *Lane) Reset() {
	l.stats.Reset()
	l.checker.Reset()
	l.store.Reset()
	l.renewals.Store(0)
	l.recovery.Reset()
	l.mu.Lock()
	l.history, l.lastAcq, l.lastSample = nil, 0, time.Time{}
	l.crashes, l.stalls = 0, 0
	l.mu.Unlock()
}

// Sample records the acquisition rate since the last sample (call it about
// once a second) for the sparkline.
func (l *Lane) Sample(now time.Time) {
	acq := l.stats.Snapshot().Acquisitions
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.lastSample.IsZero() {
		rate := float64(acq-l.lastAcq) / now.Sub(l.lastSample).Seconds()
		l.history = append(l.history, rate)
		if len(l.history) > historyLength {
			l.history = l.history[len(l.history)-historyLength:]
		}
	}
	l.lastAcq, l.lastSample = acq, now
}

// Stop closes every contender cleanly.
func (l *Lane) Stop() {
	l.mu.Lock()
	cs := l.contenders
	l.contenders = nil
	l.stopped = true
	l.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
	if l.inspect != nil {
		l.inspect.stop()
	}
}

// LaneSnapshot is a lane's counters and contenders at one moment.
type LaneSnapshot struct {
	Name        string
	Kind        Kind
	Explanation string
	Dir         string // the lock directory, or the Redis key
	Hold        time.Duration
	Lease       time.Duration // Redis
	Session     time.Duration // ZooKeeper: the contenders' session timeout
	Stall       time.Duration // what z makes a holder pause for
	Paused      bool
	Contenders  []ContenderSnapshot
	Counters    Counters
	History     []float64 // acquisitions per second, oldest first
	// Key is the Redis lane's key as last read from the server.
	Key *RedisKey
}

// Counters are a lane's measured figures.
type Counters struct {
	Acquisitions            uint64  `json:"acquisitions"`
	NotificationsPerRelease float64 `json:"notifications_per_release"`
	ReadsPerAcquisition     float64 `json:"reads_per_acquisition"`
	// CreatesPerAcquisition counts create attempts; for Redis, SETs.
	CreatesPerAcquisition float64 `json:"creates_per_acquisition"`
	HandoffP50Ms          float64 `json:"handoff_p50_ms"`
	HandoffP99Ms          float64 `json:"handoff_p99_ms"`
	Violations            uint64  `json:"violations"`
	// Renewals are the Redis watchdog's lease renewals (0 elsewhere).
	Renewals uint64 `json:"renewals"`
	// Crashes are holders killed; recovery is from a crash to the next
	// acquisition.
	Crashes       uint64  `json:"crashes"`
	RecoveryP50Ms float64 `json:"recovery_p50_ms"`
	RecoveryP99Ms float64 `json:"recovery_p99_ms"`
	// Stalls are holders frozen; their writes, and everyone's, go to the
	// fenced store.
	Stalls        uint64 `json:"stalls"`
	Writes        uint64 `json:"writes"`
	UnsafeWrites  uint64 `json:"unsafe_writes"`
	StaleRejected uint64 `json:"stale_rejected"`
}

func (l *Lane) counters() Counters {
	st := l.stats.Snapshot()
	fc := l.store.Counts()
	c := Counters{
		Acquisitions: st.Acquisitions, Violations: l.checker.Violations(), Renewals: l.renewals.Load(),
		Writes: fc.Writes, UnsafeWrites: fc.UnsafeWrites, StaleRejected: fc.StaleRejected,
	}
	if st.Acquisitions > 0 {
		acq := float64(st.Acquisitions)
		// Every acquisition ends in a release, so they count alike.
		c.NotificationsPerRelease = float64(st.Notifications) / acq
		c.ReadsPerAcquisition = float64(st.Reads) / acq
		c.CreatesPerAcquisition = float64(st.Creates) / acq
	}
	c.HandoffP50Ms = ms(st.HandoffP50)
	c.HandoffP99Ms = ms(st.HandoffP99)
	c.RecoveryP50Ms = ms(l.recovery.Quantile(0.50))
	c.RecoveryP99Ms = ms(l.recovery.Quantile(0.99))
	l.mu.Lock()
	c.Crashes, c.Stalls = l.crashes, l.stalls
	l.mu.Unlock()
	return c
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Snapshot copies the lane's state for a view.
func (l *Lane) Snapshot() LaneSnapshot {
	l.mu.Lock()
	cs := append([]*contender(nil), l.contenders...)
	snap := LaneSnapshot{
		Name: l.Name, Kind: l.Kind, Explanation: l.Explanation, Dir: l.cfg.Dir,
		Hold: l.hold, Lease: l.cfg.Lease, Session: l.cfg.SessionTimeout, Stall: l.stallFor(),
		Paused: l.paused, History: append([]float64(nil), l.history...),
	}
	l.mu.Unlock()
	if l.Kind == Redis {
		snap.Dir = l.cfg.Key
	}
	for _, c := range cs {
		snap.Contenders = append(snap.Contenders, c.snapshot())
	}
	snap.Counters = l.counters()
	if l.inspect != nil {
		k := l.inspect.last()
		snap.Key = &k
	}
	return snap
}

// Errors.
var (
	errNoContenders = errors.New("demo: a lane needs at least one contender")
	errStopped      = errors.New("demo: the lane is stopped")
)

// StartLanes starts every lane's n contenders at once.
func StartLanes(lanes []*Lane, n int) error {
	errs := make([]error, len(lanes))
	var wg sync.WaitGroup
	for i, l := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Start(n); err != nil {
				errs[i] = fmt.Errorf("%s lane: %w", l.Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// StopLanes closes every lane's contenders at once.
func StopLanes(lanes []*Lane) {
	var wg sync.WaitGroup
	for _, l := range lanes {
		wg.Add(1)
		go func() { defer wg.Done(); l.Stop() }()
	}
	wg.Wait()
}
