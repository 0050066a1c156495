package recipes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Election is a leader election in one directory, laid out as Curator's
// LeaderLatch lays it out: each candidate creates an ephemeral sequential
// node "_c_<uuid>-latch-SEQ" holding its participant id (the node data),
// the lowest node leads, and every other candidate watches its predecessor
// with getData. With WithFormat(Kazoo) it is Kazoo's Election, which is a
// Kazoo Lock: nodes "<hex32>__lock__SEQ".
//
// One goroutine at a time may Campaign with an Election; use an Election
// per candidate. Resign, Leader, Observe, IsLeader, Token and Done may be
// called from any goroutine, and Leader and Observe work on an Election
// that does not campaign.
type Election struct {
	session *Session
	dir     string
	opts    options
	marker  string
	line    *waitingLine

	mu           sync.Mutex
	state        electionState
	withdrawn    bool               // Resign asked the running campaign to stop
	stop         context.CancelFunc // cancels the running campaign
	campaignDone chan struct{}      // closed once the running campaign has returned
	token        Token
	lost         chan struct{} // closed when the current leadership is lost
	release      chan struct{} // closed by Resign, so the monitor stops
}

type electionState int

const (
	electionIdle electionState = iota
	electionCampaigning
	electionLeading
)

// LeaderInfo describes an election's leader. Observe sends the zero
// LeaderInfo (empty Path) when nobody leads.
type LeaderInfo struct {
	Path    string // the leader's node
	Seq     int32  // its sequence number
	Session int64  // its ephemeralOwner: the leader's session
	Data    []byte // its data: the participant id (by default "host pid")
	Zxid    int64  // the zxid that created it: the leader's fencing token
}

// NewElection returns an Election on directory dir (created on demand, as
// containers). Options: WithData (the participant id; default "host pid"),
// WithACL, WithFormat. A candidate always watches only its predecessor,
// as LeaderLatch does, whatever WithLookahead says: leadership changes are
// rare and candidates may wait for hours, so a second watch per candidate
// buys nothing worth its cost, and a watch pattern of our own would make
// the election look foreign to tools that infer who watches whom from the
// format.
func NewElection(s *Session, dir string, opts ...Option) *Election {
	e := &Election{session: s, dir: dir, opts: buildOptions(opts), marker: curatorLatch}
	if e.opts.format == Kazoo {
		e.marker = kazooLock
	}
	e.line = &waitingLine{session: s, dir: dir, opts: e.opts, markers: []string{e.marker}, rule: chainRule(false)}
	return e
}

// Campaign enters the election and blocks until we lead, ctx ends, the
// session is lost, or Resign withdraws the candidacy (then the error wraps
// context.Canceled). On failure nothing of the candidacy is left on the
// server. Campaign while campaigning or leading returns ErrDeadlock; once a
// leadership is lost (Done closed), Campaign may be called again.
func (e *Election) Campaign(ctx context.Context) error {
	e.mu.Lock()
	switch e.state {
	case electionCampaigning:
		e.mu.Unlock()
		return ErrDeadlock
	case electionLeading:
		select {
		case <-e.lost:
			// The monitor has returned and the node is gone with the
			// leadership: start afresh.
			close(e.release)
			e.state = electionIdle
		default:
			e.mu.Unlock()
			return ErrDeadlock
		}
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan struct{})
	e.state, e.withdrawn, e.stop, e.campaignDone = electionCampaigning, false, stop, done
	e.mu.Unlock()

	g, err := e.line.acquire(cctx, e.marker, true)

	e.mu.Lock()
	defer func() {
		e.stop, e.campaignDone = nil, nil
		close(done)
		e.mu.Unlock()
	}()
	if e.withdrawn {
		if err == nil {
			// Resign came as we won: step down before anyone relies on
			// it. Resign waits for done, so it returns with the node gone.
			e.mu.Unlock()
			e.session.abandon(g.token.Path)
			e.mu.Lock()
			err = context.Canceled
		}
		if errors.Is(err, context.Canceled) && ctx.Err() == nil {
			err = fmt.Errorf("recipes: campaign in %s withdrawn by Resign: %w", e.dir, context.Canceled)
		}
	}
	if err != nil {
		e.state = electionIdle
		return err
	}
	e.state, e.token = electionLeading, g.token
	e.lost, e.release = make(chan struct{}), make(chan struct{})
	go e.session.monitorHolding(g.token.Path, g.own, e.lost, e.release)
	return nil
}

// Resign gives up the leadership, or withdraws a candidacy that is still
// campaigning and waits until its node is gone (unless the node's create
// was still in flight: then the node goes in the background once the
// create completes); with neither it does nothing. It returns
// ErrSessionLost when the session (and with it the leadership) is already
// gone, and ErrNotLocked when our node was deleted by someone else. If ctx
// ends before the server has removed our node, the removal goes on in the
// background.
func (e *Election) Resign(ctx context.Context) error {
	e.mu.Lock()
	switch e.state {
	case electionIdle:
		e.mu.Unlock()
		return nil
	case electionCampaigning:
		e.withdrawn = true
		e.stop()
		done := e.campaignDone
		e.mu.Unlock()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	path := e.token.Path
	close(e.release)
	// Not leader from here on, whatever the delete does.
	e.state = electionIdle
	e.mu.Unlock()

	if err := e.session.alive(); err != nil {
		return err
	}
	e.opts.stats.MarkReleased()
	err := e.session.deleteOwn(ctx, path, e.opts.stats)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("%w: election node %s was deleted by someone else", ErrNotLocked, path)
	case errors.Is(err, ErrSessionLost):
		return err
	default:
		// Our node must not stay at the head of the election, where it
		// would keep everyone else from leading.
		go e.session.abandon(path)
		return fmt.Errorf("resign from %s: %w", e.dir, err)
	}
}

// IsLeader reports whether we lead: Campaign succeeded, and neither Resign
// nor a loss (see Done) has ended it since. It is false while the
// connection is down, when the leadership is uncertain (as Curator's
// LeaderLatch treats a suspended connection), and true again once the
// connection is back in time.
func (e *Election) IsLeader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state != electionLeading {
		return false
	}
	select {
	case <-e.lost:
		return false
	default:
	}
	return e.session.State() == Connected
}

// Token returns the fencing token of the current leadership (zero when not
// leading): the zxid that created our node grows with every leader.
func (e *Election) Token() Token {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state != electionLeading {
		return Token{}
	}
	return e.token
}

// Done is closed when the current leadership is lost: the session ended,
// or our node was deleted by someone else. It is not closed by Resign and
// is nil when not leading; select on it only while leading.
func (e *Election) Done() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state != electionLeading {
		return nil
	}
	return e.lost
}

// Leader returns the current leader: the lowest participant node, as
// Curator's LeaderLatch.getLeader reads it. It returns ErrNoLeader when
// nobody campaigns.
func (e *Election) Leader(ctx context.Context) (LeaderInfo, error) {
	for {
		cs, _, err := e.participants(ctx, false)
		if err != nil {
			return LeaderInfo{}, err
		}
		if len(cs) == 0 {
			return LeaderInfo{}, fmt.Errorf("%w in %s", ErrNoLeader, e.dir)
		}
		for _, c := range cs {
			path := joinPath(e.dir, c.name)
			e.opts.stats.CountRead()
			r, err := retry(ctx, e.session, func() (nodeRead, error) {
				data, stat, err := e.session.conn.Get(path)
				return nodeRead{data: data, stat: stat}, err
			})
			if errors.Is(err, zk.ErrNoNode) {
				continue // it left after the listing: the next one leads
			}
			if err != nil {
				return LeaderInfo{}, fmt.Errorf("read %s: %w", path, err)
			}
			return leaderInfo(path, c, r), nil
		}
		// Everyone listed has left; newcomers may have come: list again.
	}
}

// Observe streams the election's leader: first the current one, then each
// change, driven by watches (an observer holds one watch: on the leader's
// node, or on the directory while nobody leads). A zero LeaderInfo (empty
// Path) says nobody leads. A reader that falls behind gets the latest
// leader, not every one that came and went meanwhile. The channel closes
// when ctx ends or the session is lost.
func (e *Election) Observe(ctx context.Context) <-chan LeaderInfo {
	out := make(chan LeaderInfo)
	go e.observe(ctx, out)
	return out
}

func (e *Election) observe(ctx context.Context, out chan<- LeaderInfo) {
	defer close(out)
	var listed []contender // from the last listing: those that may still lead, lowest first
	var last LeaderInfo
	sent := false
	for {
		info, rest, watch, err := e.findLeader(ctx, listed)
		if err != nil {
			if ctx.Err() == nil && e.session.alive() == nil {
				e.session.logger.Warn("election observer stopped", "dir", e.dir, "err", err)
			}
			return
		}
		listed = rest
		if !sent || info.Path != last.Path || !bytes.Equal(info.Data, last.Data) {
			select {
			case out <- info:
				last, sent = info, true
			case <-ctx.Done():
				return
			case <-e.session.done:
				return
			}
		}
		select {
		case ev := <-watch:
			// Sequence numbers only grow, so nobody can come in below the
			// leader: when it goes, the next of our listing leads if it is
			// still there. Any other event (data changed, the directory
			// changed, the watch dropped) is looked at again as it is.
			if ev.Type == zk.EventNodeDeleted && info.Path != "" {
				listed = listed[1:]
			}
		case <-ctx.Done():
			return
		case <-e.session.done:
			return
		}
	}
}

// findLeader reads the lowest of listed that still exists (listing again
// when none is left) and returns it with the rest of the listing and a
// watch on it; with nobody in the election, it returns the zero LeaderInfo
// and a watch that fires when someone may have joined.
func (e *Election) findLeader(ctx context.Context, listed []contender) (LeaderInfo, []contender, <-chan zk.Event, error) {
	for {
		if len(listed) == 0 {
			cs, _, err := e.participants(ctx, false)
			if err != nil {
				return LeaderInfo{}, nil, nil, err
			}
			if len(cs) == 0 {
				// Only now a children watch: while someone leads, joiners
				// are no news, and the leader's node is all we watch.
				var w <-chan zk.Event
				if cs, w, err = e.participants(ctx, true); err != nil {
					return LeaderInfo{}, nil, nil, err
				}
				if len(cs) == 0 {
					return LeaderInfo{}, nil, w, nil
				}
			}
			listed = cs
		}
		path := joinPath(e.dir, listed[0].name)
		e.opts.stats.CountRead()
		r, err := retry(ctx, e.session, func() (nodeRead, error) {
			data, stat, w, err := e.session.conn.GetW(path)
			return nodeRead{data, stat, w}, err
		})
		if errors.Is(err, zk.ErrNoNode) {
			listed = listed[1:]
			continue
		}
		if err != nil {
			return LeaderInfo{}, nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
		return leaderInfo(path, listed[0], r), listed, r.watch, nil
	}
}

// participants lists the election's nodes, lowest first; a missing
// directory has none. With watch, it also returns a watch that fires when
// the directory's children change, or when the directory is created if it
// is missing.
func (e *Election) participants(ctx context.Context, watch bool) ([]contender, <-chan zk.Event, error) {
	for {
		e.opts.stats.CountRead()
		r, err := retry(ctx, e.session, func() (childrenRead, error) {
			if watch {
				c, _, w, err := e.session.conn.ChildrenW(e.dir)
				return childrenRead{c, w}, err
			}
			c, _, err := e.session.conn.Children(e.dir)
			return childrenRead{names: c}, err
		})
		if err == nil {
			return contenders(r.names, e.marker), r.watch, nil
		}
		if !errors.Is(err, zk.ErrNoNode) {
			return nil, nil, fmt.Errorf("list %s: %w", e.dir, err)
		}
		if !watch {
			return nil, nil, nil
		}
		e.opts.stats.CountRead()
		ex, err := retry(ctx, e.session, func() (existsRead, error) {
			ok, _, w, err := e.session.conn.ExistsW(e.dir)
			return existsRead{ok, w}, err
		})
		if err != nil {
			return nil, nil, fmt.Errorf("watch %s: %w", e.dir, err)
		}
		if !ex.exists {
			return nil, ex.watch, nil
		}
		// Created since: list it (its creation event will also fire once,
		// harmlessly, on the exists watch left behind).
	}
}

// nodeRead, childrenRead and existsRead carry the results of one read
// through retry.
type nodeRead struct {
	data  []byte
	stat  *zk.Stat
	watch <-chan zk.Event
}

type childrenRead struct {
	names []string
	watch <-chan zk.Event
}

type existsRead struct {
	exists bool
	watch  <-chan zk.Event
}

func leaderInfo(path string, c contender, r nodeRead) LeaderInfo {
	return LeaderInfo{Path: path, Seq: c.seq, Session: r.stat.EphemeralOwner, Data: r.data, Zxid: r.stat.Czxid}
}
