package demo

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/lockstats"
)

// ContenderState is what a contender is doing.
type ContenderState int

const (
	Starting  ContenderState = iota
	Queued                   // its node is in line
	WaitingOn                // it watches Watching
	Polling                  // (spin, redis) it tries again and again
	Holding                  // it holds the lock
	Stalled                  // it holds (it believes) but is frozen in a pause
	Crashed                  // its process "died": its lock goes at session or lease expiry
	Closed                   // it left cleanly
)

func (s ContenderState) String() string {
	return [...]string{"starting", "queued", "waiting", "polling", "holding", "stalled", "crashed", "closed"}[s]
}

// ContenderSnapshot is one contender as a view draws it.
type ContenderSnapshot struct {
	ID           int
	State        ContenderState
	Node         string   // its lock node (the key, for Redis), if any
	Watching     []string // the nodes it watches (waiting)
	NotifiedAt   time.Time
	Acquisitions uint64
	Session      int64
	// StalledAt is when its current or last pause began; LastWrite what
	// became of the write it made after it ("accepted", "UNSAFE", "refused").
	StalledAt time.Time
	LastWrite string
}

// contender is one client, looping on a lock: ZooKeeper sessions or Redis
// connections of its own.
type contender struct {
	id     int
	lane   *Lane
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	lk   locker
	snap ContenderSnapshot
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

func startContender(l *Lane, id int) (*contender, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &contender{id: id, lane: l, cancel: cancel, done: make(chan struct{})}
	c.snap = ContenderSnapshot{ID: id}
	lk, err := c.dial(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	c.lk = lk
	c.snap.Session = lk.session()
	go c.run(ctx)
	return c, nil
}

// dial opens the contender's client.
func (c *contender) dial(ctx context.Context) (locker, error) {
	if c.lane.Kind == Redis {
		return dialRedis(ctx, c.lane, c.id, c.observe)
	}
	return dialZK(c.lane, c.id, c.observe)
}

// observe turns the lock's events into the contender's state.
func (c *contender) observe(ev lockstats.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Kind {
	case lockstats.Queued:
		c.snap.State, c.snap.Node, c.snap.Watching = Queued, ev.Node, nil
	case lockstats.Waiting:
		c.snap.State, c.snap.Watching = WaitingOn, ev.Watching
	case lockstats.Notified:
		c.snap.NotifiedAt = time.Now()
	case lockstats.Polling:
		c.snap.State, c.snap.Watching = Polling, nil
	case lockstats.Acquired:
		c.snap.State, c.snap.Watching = Holding, nil
		c.snap.Node = strings.TrimPrefix(ev.Path, c.lane.cfg.Dir+"/")
		c.snap.Acquisitions++
	case lockstats.Released:
		c.snap.State, c.snap.Node = Starting, ""
	}
}

func (c *contender) setState(s ContenderState) {
	c.mu.Lock()
	c.snap.State = s
	c.mu.Unlock()
}

func (c *contender) locker() locker {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lk
}

func (c *contender) snapshot() ContenderSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.snap
	s.Watching = append([]string(nil), c.snap.Watching...)
	return s
}

// run loops: wait for the lock; write to the lane's fenced store and hold
// it for the lane's hold time inside the checker; release. The lane's
// plan may instead crash it right after the write, or freeze it first.
func (c *contender) run(ctx context.Context) {
	defer close(c.done)
	for {
		if !c.lane.waitUnpaused(ctx) {
			return
		}
		if c.locker().broken() && !c.reconnect(ctx) {
			return
		}
		lk := c.locker()
		token, err := lk.lock(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !sleep(ctx, 100*time.Millisecond) { // e.g. connection trouble: try again
				return
			}
			continue
		}
		grant, plan := c.lane.acquired()
		c.lane.checker.Enter(c.id, token)
		held := true
		switch {
		case plan.stall > 0:
			held = c.stall(ctx, lk, plan.stall, grant, token)
		case plan.crash:
			c.lane.store.Write(grant, token)
			c.lane.checker.Exit(c.id)
			c.crashSelf()
			return
		default:
			c.lane.store.Write(grant, token)
			held = sleep(ctx, c.lane.holdTime())
		}
		c.lane.checker.Exit(c.id)
		if !held {
			return // crashed or closed while holding: no release from here
		}
		unlock, cancel := context.WithTimeout(context.Background(), c.lane.cfg.SessionTimeout)
		err = lk.unlock(unlock)
		cancel()
		if err != nil && isLost(err) {
			c.mu.Lock() // it had lost the lock: there was nothing to release
			c.snap.State, c.snap.Node = Starting, ""
			c.mu.Unlock()
		}
		// Work outside the lock before wanting it again, as a real worker
		// does; without it a spinning releaser would simply take the lock
		// back before anyone else polls.
		if !sleep(ctx, c.lane.holdTime()/4) {
			return
		}
	}
}

// stall is a stop-the-world pause right after acquiring: nothing goes in
// or out for d (no ZooKeeper pings, no lease renewals, so the session or
// lease may run out), then the holder writes as if it still held.
func (c *contender) stall(ctx context.Context, lk locker, d time.Duration, grant uint64, token int64) bool {
	c.mu.Lock()
	c.snap.State, c.snap.StalledAt, c.snap.LastWrite = Stalled, time.Now(), ""
	c.mu.Unlock()
	lk.freeze()
	ok := sleep(ctx, d)
	lk.thaw()
	if !ok {
		return false
	}
	outcome := c.lane.store.Write(grant, token)
	c.mu.Lock()
	c.snap.State, c.snap.LastWrite = Holding, outcome.String()
	c.mu.Unlock()
	return true
}

// reconnect replaces a client whose session expired (after a pause), as
// a real process would.
func (c *contender) reconnect(ctx context.Context) bool {
	old := c.locker()
	old.close()
	for {
		lk, err := c.dial(ctx)
		if err == nil {
			c.mu.Lock()
			c.lk, c.snap.Session, c.snap.State, c.snap.Node = lk, lk.session(), Starting, ""
			c.mu.Unlock()
			return true
		}
		if !sleep(ctx, time.Second) {
			return false
		}
	}
}

// sleep waits d (the work done while holding), or less if ctx ends.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// crash stops the contender as a killed process stops: no release, no
// goodbye; the lock goes at session or lease expiry.
func (c *contender) crash() {
	c.setState(Crashed)
	c.locker().crash()
	c.cancel()
}

// crashSelf is a crash the lane planned, from the contender's own loop:
// the lane notes it (for the recovery time) and starts a replacement, as
// a supervisor restarts a dead process.
func (c *contender) crashSelf() {
	c.lane.noteCrash()
	c.crash()
	go c.lane.replace()
}

// close stops the contender cleanly: its lock, if held, goes at once.
func (c *contender) close() {
	c.cancel()
	<-c.done
	crashed := c.snapshot().State == Crashed
	c.setState(Closed)
	if !crashed {
		c.locker().close()
	}
}
