package recipes

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/go-zookeeper/zk"
)

// doubleBarrierReady is the node the last participant in creates: its
// creation lets everyone waiting in Enter through.
const doubleBarrierReady = "ready"

// DoubleBarrier makes a group start and finish together: Enter blocks until
// count participants have entered, Leave until every participant has left.
// It keeps Curator's DistributedDoubleBarrier layout and protocol, so Curator
// processes and ours can share a barrier:
//
//   - each participant is an ephemeral child of dir named by a random UUID
//     ("0f8b…-…", Curator's UUID.randomUUID(); with WithFormat(Kazoo), 32 hex
//     digits, as Kazoo's DoubleBarrier names it);
//   - Enter watches dir/ready for its creation, creates its node, and counts
//     the children: the participant that finds count of them creates
//     dir/ready (persistent), which wakes the others;
//   - Leave follows ZooKeeper's double barrier recipe over the participants
//     sorted by name: the lowest waits for the highest to go, every other
//     deletes its node and waits for the lowest to go; when nobody is left,
//     dir/ready is deleted.
//
// count is a threshold, not a limit: more may enter. dir is created on
// demand as a container. The barrier can be used again once every Leave of
// a round has returned (a participant entering while ready still exists
// passes at once, in Curator too).
//
// One goroutine at a time may use a DoubleBarrier; use one per participant.
type DoubleBarrier struct {
	session *Session
	dir     string
	count   int
	opts    options

	mu    sync.Mutex
	state barrierState
	node  string // our participant node's name while inside
}

type barrierState int

const (
	barrierOutside barrierState = iota
	barrierEntering
	barrierInside
	barrierLeaving
)

// NewDoubleBarrier returns a DoubleBarrier for count participants in
// directory dir. Options: WithData (the data of our node and of the ready
// node), WithACL, WithFormat.
func NewDoubleBarrier(s *Session, dir string, count int, opts ...Option) *DoubleBarrier {
	return &DoubleBarrier{session: s, dir: dir, count: count, opts: buildOptions(opts)}
}

// Enter joins the barrier and blocks until count participants have joined.
// It returns nil once the ready node exists, ctx's error when ctx ends
// first, and ErrSessionLost when the session is lost; on failure it removes
// our node, so that we do not count towards the others.
func (b *DoubleBarrier) Enter(ctx context.Context) error {
	if err := b.begin(barrierOutside, barrierEntering, "enter"); err != nil {
		return err
	}
	if b.count <= 0 {
		b.end(barrierOutside, "")
		return fmt.Errorf("enter double barrier %s: count is %d, want at least 1", b.dir, b.count)
	}
	// A fresh name each time, so a cleanup still pending from an earlier
	// attempt cannot meet this one.
	name := newID(b.opts.format) // Curator names participants by a bare UUID
	err := b.enter(ctx, name)
	if err != nil {
		b.end(barrierOutside, "")
		return err
	}
	b.end(barrierInside, name)
	return nil
}

// Leave removes our node and blocks until every participant's node is gone.
// It returns ErrNotEntered when we are not inside the barrier, ctx's error
// when ctx ends first, and ErrSessionLost when the session is lost. After
// any return we are outside the barrier: a failed Leave still removes our
// node (or the session's loss did), so that the others are not held up.
//
// Curator's leave returns as soon as only the lowest participant is left;
// ours waits for that one too.
func (b *DoubleBarrier) Leave(ctx context.Context) error {
	if err := b.begin(barrierInside, barrierLeaving, "leave"); err != nil {
		return err
	}
	b.mu.Lock()
	name := b.node
	b.mu.Unlock()
	defer b.end(barrierOutside, "")
	return b.leave(ctx, name)
}

func (b *DoubleBarrier) begin(from, to barrierState, what string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != from {
		if from == barrierInside {
			return ErrNotEntered
		}
		return fmt.Errorf("%s double barrier %s: already entered or entering", what, b.dir)
	}
	b.state = to
	return nil
}

func (b *DoubleBarrier) end(st barrierState, node string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state, b.node = st, node
}

func (b *DoubleBarrier) enter(ctx context.Context, name string) error {
	// Watch for ready before our node exists: whoever creates it after
	// counting us does so after this watch is in place.
	ready, watch, err := b.watchReady(ctx)
	if err != nil {
		return err
	}
	// createProtected with a plain mode creates dir/name itself, and after
	// a lost answer finds it by name and owner.
	if _, err := b.session.createProtected(ctx, b.dir, name, b.opts.data, b.opts.acl, zk.FlagEphemeral, b.opts.stats); err != nil {
		return fmt.Errorf("enter double barrier %s: %w", b.dir, err)
	}
	if err := b.await(ctx, ready, watch); err != nil {
		if b.session.alive() == nil {
			b.session.abandon(joinPath(b.dir, name))
		}
		return err
	}
	return nil
}

// await waits, once our node exists, until ready does, creating it when we
// are the participant that completes the count.
func (b *DoubleBarrier) await(ctx context.Context, ready bool, watch <-chan zk.Event) error {
	for !ready {
		full, err := b.full(ctx)
		if err != nil {
			return err
		}
		if full {
			return b.setReady(ctx)
		}
		ev, err := awaitWatch(ctx, b.session, watch, b.opts.stats)
		if err != nil {
			return err
		}
		if ev.Type == zk.EventNodeCreated {
			return nil
		}
		// The watch ended without news: watch again, count again.
		if ready, watch, err = b.watchReady(ctx); err != nil {
			return err
		}
	}
	return nil
}

// watchReady reports whether the ready node exists and watches it.
func (b *DoubleBarrier) watchReady(ctx context.Context) (bool, <-chan zk.Event, error) {
	type answer struct {
		exists bool
		watch  <-chan zk.Event
	}
	b.opts.stats.CountRead()
	a, err := retry(ctx, b.session, func() (answer, error) {
		exists, _, ch, err := b.session.conn.ExistsW(joinPath(b.dir, doubleBarrierReady))
		return answer{exists, ch}, err
	})
	if err != nil {
		return false, nil, fmt.Errorf("enter double barrier %s: watch ready: %w", b.dir, err)
	}
	return a.exists, a.watch, nil
}

// full reports whether count participants are in, counting every child
// but ready, as Curator does; a listed ready node also means yes.
func (b *DoubleBarrier) full(ctx context.Context) (bool, error) {
	b.opts.stats.CountRead()
	children, err := retry(ctx, b.session, func() ([]string, error) {
		c, _, err := b.session.conn.Children(b.dir)
		return c, err
	})
	if err != nil {
		return false, fmt.Errorf("enter double barrier %s: %w", b.dir, err)
	}
	n := 0
	for _, c := range children {
		if c == doubleBarrierReady {
			return true, nil
		}
		n++
	}
	return n >= b.count, nil
}

// setReady creates the ready node; another participant may have been first.
func (b *DoubleBarrier) setReady(ctx context.Context) error {
	b.opts.stats.CountCreate()
	_, err := retry(ctx, b.session, func() (string, error) {
		return b.session.create(joinPath(b.dir, doubleBarrierReady), b.opts.data, zk.FlagPersistent, b.opts.acl)
	})
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("enter double barrier %s: create ready: %w", b.dir, err)
	}
	return nil
}

func (b *DoubleBarrier) leave(ctx context.Context, name string) (err error) {
	path := joinPath(b.dir, name)
	present := true // our node exists, as far as we know
	defer func() {
		if err != nil && present && b.session.alive() == nil {
			b.session.abandon(path)
		}
	}()
	for {
		ps, err := b.participants(ctx)
		if err != nil {
			return err
		}
		i := indexOfName(ps, name)
		if i < 0 {
			present = false // deleted by someone else: we are out anyway
		}
		if len(ps) == 0 || (len(ps) == 1 && i == 0) {
			if present {
				if err := b.deleteOurs(ctx, path); err != nil {
					return err
				}
				present = false
			}
			return b.clearReady(ctx)
		}
		// The lowest leaves last: it waits for the highest. Everyone else
		// goes now and waits for the lowest.
		watch := ps[0]
		if i == 0 {
			watch = ps[len(ps)-1]
		} else if present {
			if err := b.deleteOurs(ctx, path); err != nil {
				return err
			}
			present = false
		}
		if err := b.awaitGone(ctx, watch); err != nil {
			return err
		}
	}
}

// participants lists the participants' nodes, sorted by name as Curator
// sorts them (Java's String order, which is byte order for these names),
// so that all agree on the lowest and the highest.
func (b *DoubleBarrier) participants(ctx context.Context) ([]string, error) {
	b.opts.stats.CountRead()
	children, err := retry(ctx, b.session, func() ([]string, error) {
		c, _, err := b.session.conn.Children(b.dir)
		return c, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("leave double barrier %s: %w", b.dir, err)
	}
	ps := children[:0]
	for _, c := range children {
		if c != doubleBarrierReady {
			ps = append(ps, c)
		}
	}
	sort.Strings(ps)
	return ps, nil
}

func indexOfName(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// deleteOurs deletes our node; gone already is fine.
func (b *DoubleBarrier) deleteOurs(ctx context.Context, path string) error {
	err := b.session.deleteOwn(ctx, path, b.opts.stats)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("leave double barrier %s: %w", b.dir, err)
	}
	return nil
}

// awaitGone waits until a participant's node is deleted (or returns at
// once when it is gone, or the watch ends without news: the caller looks
// again either way).
func (b *DoubleBarrier) awaitGone(ctx context.Context, name string) error {
	b.opts.stats.CountRead()
	watch, err := retry(ctx, b.session, func() (<-chan zk.Event, error) {
		_, _, ch, err := b.session.conn.GetW(joinPath(b.dir, name))
		return ch, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("leave double barrier %s: %w", b.dir, err)
	}
	_, err = awaitWatch(ctx, b.session, watch, b.opts.stats)
	return err
}

// clearReady deletes the ready node once everyone has left, so the barrier
// can be used again; another leaver may have been first.
func (b *DoubleBarrier) clearReady(ctx context.Context) error {
	b.opts.stats.CountDelete()
	_, err := retry(ctx, b.session, func() (struct{}, error) {
		return struct{}{}, b.session.conn.Delete(joinPath(b.dir, doubleBarrierReady), -1)
	})
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("leave double barrier %s: delete ready: %w", b.dir, err)
	}
	return nil
}
