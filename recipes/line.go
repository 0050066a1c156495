package recipes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/seqnode"
)

// waitingLine is the line of contenders shared by the lock-like recipes
// (Mutex, the two sides of RWMutex, Election): each contender creates an
// ephemeral sequential node and a rule decides, from the nodes below it,
// whether it holds or which node it must see go first.
type waitingLine struct {
	session *Session
	dir     string
	opts    options
	markers []string // the node names that take part, by marker
	rule    func(below []contender) position
	assured bool // the directory was made persistent (Kazoo format)
}

// position is what a rule decides for our node, given the contenders below
// it, lowest first.
type position struct {
	holds bool
	// watch is the node whose deletion we wait for.
	watch string
	// ahead is a node to watch as well (lookahead): it goes before watch
	// can hold, and learning of it early lets us act on watch's deletion
	// without another read.
	ahead string
}

// chainRule: hold when nothing is below; wait for the immediate
// predecessor, and with lookahead for the one before it too.
func chainRule(lookahead bool) func([]contender) position {
	return func(below []contender) position {
		n := len(below)
		if n == 0 {
			return position{holds: true}
		}
		p := position{watch: below[n-1].name}
		if lookahead && n >= 2 {
			p.ahead = below[n-2].name
		}
		return p
	}
}

// herdRule: hold when nothing is below; everyone watches the lowest node.
func herdRule(below []contender) position {
	if len(below) == 0 {
		return position{holds: true}
	}
	return position{watch: below[0].name}
}

// grant is what an acquisition yields: the token, and the watch on our own
// node that tells of its loss.
type grant struct {
	token Token
	own   <-chan zk.Event
}

// ownNode is our node's stat and a watch on it, fetched once after the
// create; the stat gives the fencing zxid, the watch tells of a deletion.
type ownNode struct {
	stat  *zk.Stat
	watch <-chan zk.Event
	err   error
}

// acquire creates our node with marker and waits in line. With wait false
// it gives up with ErrLocked rather than wait. On failure nothing of the
// attempt is left on the server.
func (q *waitingLine) acquire(ctx context.Context, marker string, wait bool) (grant, error) {
	if q.opts.format == Kazoo && !q.assured {
		if err := q.session.ensurePath(ctx, q.dir, q.opts.acl); err != nil {
			return grant{}, err
		}
		q.assured = true
	}
	for {
		name, err := q.session.createProtected(ctx, q.dir, newPrefix(q.opts.format, marker), q.opts.data, q.opts.acl, zk.FlagEphemeralSequential, q.opts.stats)
		if err != nil {
			return grant{}, err
		}
		q.opts.tell(lockstats.Event{Kind: lockstats.Queued, Node: name})
		path := joinPath(q.dir, name)
		g, restart, err := q.wait(ctx, name, marker, wait)
		if err == nil && !restart {
			return g, nil
		}
		// A failed or cancelled wait deletes its node on a fresh context; a
		// session that is gone took it already.
		if q.session.alive() == nil {
			q.session.abandon(path)
		}
		if !restart {
			return grant{}, err
		}
	}
}

// wait stands in line with our node. restart asks for a new node: ours
// vanished (deleted by someone else) while we waited.
//
// A listing can only be stale in one way: nodes below ours may since have
// gone (none can appear: sequence numbers only grow). So when a node we
// watch goes, we drop it from our view and, when that settles the matter,
// decide again without reading; that is the handoff fast path. Otherwise we
// list again.
func (q *waitingLine) wait(ctx context.Context, name, marker string, wait bool) (g grant, restart bool, err error) {
	st := q.opts.stats
	path := joinPath(q.dir, name)
	ownCh := make(chan ownNode, 1)
	go func() {
		st.CountRead()
		_, stat, w, err := q.session.conn.GetW(path)
		ownCh <- ownNode{stat, w, err}
	}()
	w := waitState{ownCh: ownCh}
	var below []contender // our view: the nodes below ours
	fresh := false        // below needs no new listing
	for {
		if !fresh {
			st.CountRead()
			children, err := retry(ctx, q.session, func() ([]string, error) {
				c, _, err := q.session.conn.Children(q.dir)
				return c, err
			})
			if errors.Is(err, zk.ErrNoNode) {
				return grant{}, true, nil // the directory went, and our node with it
			}
			if err != nil {
				return grant{}, false, err
			}
			cs := contenders(children, q.markers...)
			i := indexOf(cs, name)
			if i < 0 {
				return grant{}, true, nil
			}
			below = cs[:i]
		}
		fresh = false
		pos := q.rule(below)
		if pos.holds {
			return q.granted(ctx, path, marker, &w)
		}
		if !wait {
			return grant{}, false, ErrLocked
		}
		if w.since.IsZero() {
			w.since = time.Now()
		}
		gone, certain, err := w.watchOnly(ctx, q, pos.watch, pos.ahead)
		if err != nil {
			return grant{}, false, err
		}
		if !certain {
			continue // a watch request failed with the connection: list again
		}
		if gone == "" {
			q.opts.tell(lockstats.Event{Kind: lockstats.Waiting, Watching: nonEmpty(pos.watch, pos.ahead)})
			var ev zk.Event
			gone, ev, err = w.next(ctx, q, pos.watch, pos.ahead)
			if err != nil || gone == "" {
				return grant{}, err == nil && gone == "", err // "" with no error: our node went
			}
			if ev.Type != zk.EventNodeDeleted {
				continue // changed, or the watch went with a connection: look again
			}
		}
		// Without the gone node, our view is still a superset of what is
		// below us. If the rule says we hold even on it, we do (every rule
		// only ever needs fewer nodes below); if the gone node was the
		// lowest, the view is as good as a listing; else list again.
		i := indexOf(below, gone)
		if i < 0 {
			continue
		}
		lowest := i == 0
		below = append(below[:i:i], below[i+1:]...)
		fresh = lowest || q.rule(below).holds
	}
}

// waitState is what wait keeps between rounds: our own node's stat and
// watch, the watches we hold, and when we started to wait.
type waitState struct {
	ownCh    chan ownNode
	own      *ownNode
	watching map[string]<-chan zk.Event // unfired watches, by node name
	since    time.Time
}

// watchOnly keeps watches on exactly the named nodes, setting those it does
// not hold yet. It returns the name of a node found already gone; certain is
// false when a request failed with the connection and we know nothing.
func (w *waitState) watchOnly(ctx context.Context, q *waitingLine, names ...string) (gone string, certain bool, err error) {
	if w.watching == nil {
		w.watching = map[string]<-chan zk.Event{}
	}
	for n := range w.watching {
		if n != names[0] && n != names[1] {
			delete(w.watching, n) // its event, if any, no longer matters
		}
	}
	for _, n := range names {
		if n == "" || w.watching[n] != nil {
			continue
		}
		q.opts.stats.CountRead()
		ch, err := call(ctx, q.session, func() (<-chan zk.Event, error) {
			_, _, ch, err := q.session.conn.GetW(joinPath(q.dir, n))
			return ch, err
		})
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return n, true, nil
		case retryable(err):
			return "", false, q.session.waitConnected(ctx)
		case err != nil:
			return "", true, err
		}
		w.watching[n] = ch
	}
	return "", true, nil
}

// next waits for a watched node to change and returns its name and event.
// "" with a nil error means our own node was deleted.
func (w *waitState) next(ctx context.Context, q *waitingLine, watch, ahead string) (string, zk.Event, error) {
	s := q.session
	for {
		var ev zk.Event
		var fired string
		var ownEvents <-chan zk.Event
		if w.own != nil {
			ownEvents = w.own.watch
		}
		select {
		case ev = <-w.watching[watch]:
			fired = watch
		case ev = <-w.watching[ahead]:
			fired = ahead
		case o := <-w.ownCh:
			w.own = &o
			if o.err != nil && !retryable(o.err) {
				if errors.Is(o.err, zk.ErrNoNode) {
					return "", zk.Event{}, nil
				}
				return "", zk.Event{}, o.err
			}
			continue
		case ev := <-ownEvents:
			if ev.Type == zk.EventNodeDeleted {
				return "", zk.Event{}, nil // someone removed our node: queue again
			}
			w.own.watch = nil // data changed or watch dropped: listings will tell
			continue
		case <-ctx.Done():
			return "", zk.Event{}, ctx.Err()
		case <-s.done:
			return "", zk.Event{}, s.Err()
		}
		delete(w.watching, fired)
		if ev.Type == zk.EventNotWatching {
			if err := s.alive(); err != nil {
				return "", zk.Event{}, err
			}
		} else {
			q.opts.stats.CountNotification()
			q.opts.tell(lockstats.Event{Kind: lockstats.Notified, Node: fired})
		}
		return fired, ev, nil
	}
}

// granted completes an acquisition: it needs our node's stat for the token
// and checks the node belongs to our session before saying yes.
func (q *waitingLine) granted(ctx context.Context, path, marker string, w *waitState) (grant, bool, error) {
	own := w.own
	if own == nil {
		select {
		case o := <-w.ownCh:
			own = &o
		case <-ctx.Done():
			return grant{}, false, ctx.Err()
		case <-q.session.done:
			return grant{}, false, q.session.Err()
		}
	}
	if own.err != nil {
		if errors.Is(own.err, zk.ErrNoNode) {
			return grant{}, true, nil
		}
		// The watch request failed with the connection: fetch it again.
		q.opts.stats.CountRead()
		o, err := retry(ctx, q.session, func() (ownNode, error) {
			_, stat, ch, err := q.session.conn.GetW(path)
			return ownNode{stat: stat, watch: ch}, err
		})
		if errors.Is(err, zk.ErrNoNode) {
			return grant{}, true, nil
		}
		if err != nil {
			return grant{}, false, err
		}
		own = &o
	}
	if own.stat.EphemeralOwner != q.session.id {
		return grant{}, false, fmt.Errorf("%w: node %s belongs to session 0x%x", ErrSessionLost, path, own.stat.EphemeralOwner)
	}
	if err := q.session.alive(); err != nil {
		return grant{}, false, err
	}
	seq, _ := seqnode.After(path, marker)
	q.opts.stats.MarkAcquired(w.since)
	token := Token{Zxid: own.stat.Czxid, Seq: seq, Session: q.session.id, Path: path}
	q.opts.tell(lockstats.Event{Kind: lockstats.Acquired, Path: token.Path})
	return grant{token: token, own: own.watch}, false, nil
}

func nonEmpty(names ...string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}
