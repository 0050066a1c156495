package recipes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"
)

// Barrier holds waiters back while its node exists, as Curator's
// DistributedBarrier: one party sets it, others wait, and removing it lets
// them all go. The node is a plain persistent node at the barrier's path,
// so a Curator DistributedBarrier on the same path is the same barrier.
type Barrier struct {
	session *Session
	path    string
	opts    options
}

// NewBarrier returns a Barrier on path. Options: WithData (the node's data),
// WithACL.
func NewBarrier(s *Session, path string, opts ...Option) *Barrier {
	return &Barrier{session: s, path: path, opts: buildOptions(opts)}
}

// Set puts the barrier up: it creates the node, and its missing parents as
// containers. Setting a barrier that is set is not an error. If ctx ends
// while the create is in flight, the barrier may be set nonetheless.
func (b *Barrier) Set(ctx context.Context) error {
	for {
		b.opts.stats.CountCreate()
		// Sending the create again after a lost answer is safe: NodeExists
		// then means it was applied.
		_, err := retry(ctx, b.session, func() (string, error) {
			return b.session.create(b.path, b.opts.data, zk.FlagPersistent, b.opts.acl)
		})
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if err := b.session.ensureDir(ctx, parentOfPath(b.path), b.opts.acl); err != nil {
				return fmt.Errorf("set barrier %s: %w", b.path, err)
			}
		default:
			return fmt.Errorf("set barrier %s: %w", b.path, err)
		}
	}
}

// Remove takes the barrier down, releasing every waiter. Removing a barrier
// that is not set is not an error.
func (b *Barrier) Remove(ctx context.Context) error {
	b.opts.stats.CountDelete()
	_, err := retry(ctx, b.session, func() (struct{}, error) {
		return struct{}{}, b.session.conn.Delete(b.path, -1)
	})
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("remove barrier %s: %w", b.path, err)
	}
	return nil
}

// Wait blocks while the barrier is set, and returns at once when it is
// not. It returns nil once the barrier's node is deleted (even if it is set
// again right after), ctx's error when ctx ends first, and ErrSessionLost
// when the session is lost. It waits on a watch, never by polling.
func (b *Barrier) Wait(ctx context.Context) error {
	for {
		set, watch, err := b.watch(ctx)
		if err != nil || !set {
			return err
		}
		ev, err := awaitWatch(ctx, b.session, watch, b.opts.stats)
		if err != nil || ev.Type == zk.EventNodeDeleted {
			return err
		}
		// Written to, or the watch was dropped: look again.
	}
}

// watch reports whether the barrier is set and, if so, watches it. It uses
// getData, which sets no watch on a missing node, and falls back to exists
// when we may not read the node.
func (b *Barrier) watch(ctx context.Context) (bool, <-chan zk.Event, error) {
	type answer struct {
		set   bool
		watch <-chan zk.Event
	}
	b.opts.stats.CountRead()
	a, err := retry(ctx, b.session, func() (answer, error) {
		_, _, ch, err := b.session.conn.GetW(b.path)
		if errors.Is(err, zk.ErrNoAuth) {
			set, _, ch, err := b.session.conn.ExistsW(b.path)
			return answer{set, ch}, err
		}
		if errors.Is(err, zk.ErrNoNode) {
			return answer{}, nil
		}
		return answer{err == nil, ch}, err
	})
	if err != nil {
		return false, nil, fmt.Errorf("watch barrier %s: %w", b.path, err)
	}
	return a.set, a.watch, nil
}

// parentOfPath returns the directory that holds path.
func parentOfPath(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "/"
	}
	return path[:i]
}
