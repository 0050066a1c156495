package demo

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/recipes"
)

// Lane is one strategy's contenders on their own lock directory.
type Lane struct {
	Name        string
	Strategy    recipes.Strategy
	Explanation string

	servers []string
	dir     string
	poll    time.Duration
	stats   *recipes.Stats
	checker *Checker

	mu         sync.Mutex
	contenders []*contender
	nextID     int
	hold       time.Duration
	paused     bool
	resumed    chan struct{} // closed when not paused
	history    []float64     // acquisitions per second, oldest first
	lastAcq    uint64
	lastSample time.Time
}

// Explanations say in one line what each lane shows.
var explanations = map[recipes.Strategy]string{
	recipes.Chain: "each waiter watches the node just ahead of it: a release wakes one waiter",
	recipes.Herd:  "every waiter watches the holder: a release wakes them all, and they all list the children again",
	recipes.Spin:  "no watches, no queue: try to create one lock node, sleep, try again, as a Redis SET NX lock does",
}

// historyLength is how many seconds of rate a lane remembers.
const historyLength = 60

// NewLane prepares a lane on dir; Start starts its contenders.
func NewLane(strategy recipes.Strategy, servers []string, dir string, hold, poll time.Duration) *Lane {
	l := &Lane{
		Name: strategy.String(), Strategy: strategy, Explanation: explanations[strategy],
		servers: servers, dir: dir, poll: poll, hold: hold,
		stats: recipes.NewStats(), checker: NewChecker(), resumed: make(chan struct{}),
	}
	close(l.resumed)
	return l
}

// strategyOptions are the recipe options of the lane's strategy: the chain
// is the textbook one, one notification per release.
func (l *Lane) strategyOptions() []recipes.Option {
	return []recipes.Option{recipes.WithStrategy(l.Strategy), recipes.WithLookahead(false), recipes.WithPollInterval(l.poll)}
}

// Start adds n contenders.
func (l *Lane) Start(n int) error {
	for i := 0; i < n; i++ {
		if err := l.Add(); err != nil {
			return err
		}
	}
	return nil
}

// Add starts one more contender with its own session.
func (l *Lane) Add() error {
	l.mu.Lock()
	l.nextID++
	id := l.nextID
	l.mu.Unlock()
	c, err := startContender(l, id)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.contenders = append(l.contenders, c)
	l.mu.Unlock()
	return nil
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
// its lock at session expiry, seconds later.
func (l *Lane) CrashHolder() bool {
	c := l.holder()
	if c == nil {
		return false
	}
	c.crash()
	return true
}

// CloseHolder makes the holder leave cleanly: its session ends and its
// node goes at once.
func (l *Lane) CloseHolder() bool {
	c := l.holder()
	if c == nil {
		return false
	}
	c.close()
	return true
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
	l.mu.Lock()
	l.history, l.lastAcq, l.lastSample = nil, 0, time.Time{}
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
	l.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
}

// LaneSnapshot is a lane's counters and contenders at one moment.
type LaneSnapshot struct {
	Name        string
	Strategy    recipes.Strategy
	Explanation string
	Dir         string
	Hold        time.Duration
	Paused      bool
	Contenders  []ContenderSnapshot
	Counters    Counters
	History     []float64 // acquisitions per second, oldest first
}

// Counters are a lane's measured figures.
type Counters struct {
	Acquisitions            uint64  `json:"acquisitions"`
	NotificationsPerRelease float64 `json:"notifications_per_release"`
	ReadsPerAcquisition     float64 `json:"reads_per_acquisition"`
	CreatesPerAcquisition   float64 `json:"creates_per_acquisition"`
	HandoffP50Ms            float64 `json:"handoff_p50_ms"`
	HandoffP99Ms            float64 `json:"handoff_p99_ms"`
	Violations              uint64  `json:"violations"`
}

func (l *Lane) counters() Counters {
	st := l.stats.Snapshot()
	c := Counters{Acquisitions: st.Acquisitions, Violations: l.checker.Violations()}
	if st.Acquisitions > 0 {
		acq := float64(st.Acquisitions)
		// Every acquisition ends in a release, so they count alike.
		c.NotificationsPerRelease = float64(st.Notifications) / acq
		c.ReadsPerAcquisition = float64(st.Reads) / acq
		c.CreatesPerAcquisition = float64(st.Creates) / acq
	}
	c.HandoffP50Ms = float64(st.HandoffP50.Microseconds()) / 1000
	c.HandoffP99Ms = float64(st.HandoffP99.Microseconds()) / 1000
	return c
}

// Snapshot copies the lane's state for a view.
func (l *Lane) Snapshot() LaneSnapshot {
	l.mu.Lock()
	cs := append([]*contender(nil), l.contenders...)
	snap := LaneSnapshot{
		Name: l.Name, Strategy: l.Strategy, Explanation: l.Explanation, Dir: l.dir,
		Hold: l.hold, Paused: l.paused, History: append([]float64(nil), l.history...),
	}
	l.mu.Unlock()
	for _, c := range cs {
		snap.Contenders = append(snap.Contenders, c.snapshot())
	}
	snap.Counters = l.counters()
	return snap
}

// errNoContenders is returned when a lane is asked to run with none.
var errNoContenders = errors.New("demo: a lane needs at least one contender")
