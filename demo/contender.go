package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/recipes"
)

// ContenderState is what a contender is doing.
type ContenderState int

const (
	Starting  ContenderState = iota
	Queued                   // its node is in line
	WaitingOn                // it watches Watching
	Polling                  // (spin) it tries again and again
	Holding                  // it holds the lock
	Crashed                  // its process "died": its node goes at session expiry
	Closed                   // it left cleanly
)

func (s ContenderState) String() string {
	return [...]string{"starting", "queued", "waiting", "polling", "holding", "crashed", "closed"}[s]
}

// ContenderSnapshot is one contender as a view draws it.
type ContenderSnapshot struct {
	ID           int
	State        ContenderState
	Node         string   // its lock node, if any
	Watching     []string // the nodes it watches (waiting)
	NotifiedAt   time.Time
	Acquisitions uint64
	Session      int64
}

// contender is one client with its own session, looping on a lock.
type contender struct {
	id     int
	lane   *Lane
	conn   *zk.Conn
	sess   *recipes.Session
	dialer *severableDialer
	mutex  *recipes.Mutex
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	snap ContenderSnapshot
}

// severableDialer lets a contender "crash": its connections are cut and no
// new one may be made, so its session expires on the server as a dead
// process's would.
type severableDialer struct {
	mu      sync.Mutex
	severed bool
	conns   []net.Conn
}

func (d *severableDialer) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.severed {
		return nil, errors.New("demo: this contender crashed")
	}
	c, err := net.DialTimeout(network, address, timeout)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *severableDialer) sever() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.severed = true
	for _, c := range d.conns {
		c.Close()
	}
}

// contenderSessionTimeout is short, so a crashed holder's lock is freed in
// seconds, while the audience watches.
const contenderSessionTimeout = 3 * time.Second

func startContender(l *Lane, id int) (*contender, error) {
	d := &severableDialer{}
	conn, events, err := zk.Connect(l.servers, contenderSessionTimeout, zk.WithDialer(d.dial), zk.WithLogInfo(false), zk.WithLogger(quietLogger{}))
	if err != nil {
		return nil, err
	}
	sess, err := recipes.NewSession(conn, events, recipes.WithConnectTimeout(15*time.Second), recipes.WithSessionTimeout(contenderSessionTimeout))
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("contender %d: %w", id, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &contender{id: id, lane: l, conn: conn, sess: sess, dialer: d, cancel: cancel, done: make(chan struct{})}
	c.snap = ContenderSnapshot{ID: id, Session: sess.ID()}
	c.mutex = recipes.NewMutex(sess, l.dir, append(l.strategyOptions(),
		recipes.WithStats(l.stats), recipes.WithObserver(c.observe),
		recipes.WithData([]byte(fmt.Sprintf("demo %s contender %d", l.Name, id))))...)
	go c.run(ctx)
	return c, nil
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// observe turns the recipe's events into the contender's state.
func (c *contender) observe(ev recipes.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Kind {
	case recipes.Queued:
		c.snap.State, c.snap.Node, c.snap.Watching = Queued, ev.Node, nil
	case recipes.Waiting:
		c.snap.State, c.snap.Watching = WaitingOn, ev.Watching
	case recipes.Notified:
		c.snap.NotifiedAt = time.Now()
	case recipes.Polling:
		c.snap.State, c.snap.Watching = Polling, nil
	case recipes.Acquired:
		c.snap.State, c.snap.Watching = Holding, nil
		c.snap.Node = ev.Token.Path[len(c.lane.dir)+1:]
		c.snap.Acquisitions++
	case recipes.Released:
		c.snap.State, c.snap.Node = Starting, ""
	}
}

func (c *contender) setState(s ContenderState) {
	c.mu.Lock()
	c.snap.State = s
	c.mu.Unlock()
}

func (c *contender) snapshot() ContenderSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.snap
	s.Watching = append([]string(nil), c.snap.Watching...)
	return s
}

// run loops: wait for the lock, hold it for the lane's hold time inside the
// checker, release.
func (c *contender) run(ctx context.Context) {
	defer close(c.done)
	for {
		if !c.lane.waitUnpaused(ctx) {
			return
		}
		if err := c.mutex.Lock(ctx); err != nil {
			if ctx.Err() != nil || errors.Is(err, recipes.ErrSessionLost) {
				return
			}
			if !sleep(ctx, 100*time.Millisecond) { // e.g. connection trouble: try again
				return
			}
			continue
		}
		token := c.mutex.Token()
		c.lane.checker.Enter(c.id, token)
		held := sleep(ctx, c.lane.holdTime())
		c.lane.checker.Exit(c.id)
		if !held {
			return // crashed or closed while holding: no release from here
		}
		unlock, cancel := context.WithTimeout(context.Background(), contenderSessionTimeout)
		c.mutex.Unlock(unlock)
		cancel()
		// Work outside the lock before wanting it again, as a real worker
		// does; without it a spinning releaser would simply take the lock
		// back before anyone else polls.
		if !sleep(ctx, c.lane.holdTime()/4) {
			return
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
// goodbye; the server notices at session expiry.
func (c *contender) crash() {
	c.setState(Crashed)
	c.dialer.sever()
	c.cancel()
	go c.conn.Close() // tries to say goodbye on a severed line: gives up quickly
}

// close stops the contender cleanly: its session ends at once, and its
// node with it.
func (c *contender) close() {
	c.cancel()
	<-c.done
	c.setState(Closed)
	c.sess.Close()
	c.conn.Close()
}
