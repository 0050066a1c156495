package recipes

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// ErrNotCount is wrapped when a SharedCount's node holds anything but the
// 4 bytes of a count.
var ErrNotCount = errors.New("recipes: not a shared count")

// SharedCount is an int32 shared through one persistent node, in the
// layout of Apache Curator's SharedCount (Curator 5.4): the node's data is
// the count as 4 big-endian bytes, and the node's data version versions it.
// Kazoo's Counter with support_curator=True writes the same. Curator's
// SharedCount and Kazoo's Counter on the same path read what a SharedCount
// writes, and the other way round.
//
// Changes are compare-and-set on the version, as Curator's trySetCount:
// TrySet writes only if nobody wrote since the count given was read, so
// increments by any mix of the three libraries are never lost.
type SharedCount struct {
	session *Session
	path    string
	seed    int32
	opts    options
}

// VersionedCount is a count and the version of the node it was read from.
type VersionedCount struct {
	Value   int32
	Version int32
}

// NewSharedCount returns the SharedCount at path. The node is created with
// seed when first read or written if it does not exist, with its missing
// parents as container nodes, as Curator's SharedCount.start does; an
// empty node (as Kazoo's Counter leaves it before its first change) also
// counts seed. Options: WithACL, of the node and its parents.
func NewSharedCount(s *Session, path string, seed int32, opts ...Option) *SharedCount {
	return &SharedCount{session: s, path: path, seed: seed, opts: buildOptions(opts)}
}

// Get reads the count.
func (c *SharedCount) Get(ctx context.Context) (VersionedCount, error) {
	for {
		type answer struct {
			data []byte
			stat *zk.Stat
		}
		a, err := retry(ctx, c.session, func() (answer, error) {
			data, st, err := c.session.conn.Get(c.path)
			return answer{data, st}, err
		})
		switch {
		case err == nil:
			return c.versioned(a.data, a.stat)
		case errors.Is(err, zk.ErrNoNode):
			if err := c.seedNode(ctx); err != nil {
				return VersionedCount{}, err
			}
		default:
			return VersionedCount{}, fmt.Errorf("read count %s: %w", c.path, err)
		}
	}
}

// Set writes the count whatever it was, as Curator's setCount.
func (c *SharedCount) Set(ctx context.Context, value int32) (VersionedCount, error) {
	return c.write(ctx, value, -1)
}

// TrySet writes value only if the count has not changed since prev was
// read (its version is still prev's), as Curator's trySetCount(previous,
// newCount), and reports whether it wrote. Either way it returns the count
// now: the one written, or the newer one that made it fail, to try again
// from.
//
// If the connection goes while the write is in flight, TrySet cannot tell
// whether the server applied it: it returns an error wrapping ErrUncertain
// (and the count it then reads, when it could), never a false "not
// written".
func (c *SharedCount) TrySet(ctx context.Context, prev VersionedCount, value int32) (VersionedCount, bool, error) {
	now, err := c.write(ctx, value, prev.Version)
	switch {
	case err == nil:
		return now, true, nil
	case errors.Is(err, zk.ErrBadVersion):
		now, err := c.Get(ctx)
		return now, false, err
	}
	return now, false, err
}

// Add adds delta to the count with TrySet, reading again and retrying
// when another writer came first, and returns the count it wrote. The sum
// wraps as int32 arithmetic does in Java.
func (c *SharedCount) Add(ctx context.Context, delta int32) (VersionedCount, error) {
	cur, err := c.Get(ctx)
	for err == nil {
		var written bool
		cur, written, err = c.TrySet(ctx, cur, cur.Value+delta)
		if written {
			return cur, nil
		}
	}
	return VersionedCount{}, err
}

// WaitChange waits until the count's version differs from since's and
// returns the count then, watching the node (no polling). It returns at
// once when it differs already.
func (c *SharedCount) WaitChange(ctx context.Context, since VersionedCount) (VersionedCount, error) {
	for {
		type answer struct {
			data  []byte
			stat  *zk.Stat
			watch <-chan zk.Event
		}
		a, err := retry(ctx, c.session, func() (answer, error) {
			data, st, w, err := c.session.conn.GetW(c.path)
			return answer{data, st, w}, err
		})
		switch {
		case errors.Is(err, zk.ErrNoNode):
			if err := c.seedNode(ctx); err != nil {
				return VersionedCount{}, err
			}
			continue
		case err != nil:
			return VersionedCount{}, fmt.Errorf("watch count %s: %w", c.path, err)
		}
		if a.stat.Version != since.Version {
			return c.versioned(a.data, a.stat)
		}
		if _, err := awaitWatch(ctx, c.session, a.watch, c.opts.stats); err != nil {
			return VersionedCount{}, err
		}
	}
}

// write sets the count at version (-1: any), creating the node first when
// it does not exist.
func (c *SharedCount) write(ctx context.Context, value int32, version int32) (VersionedCount, error) {
	data := binary.BigEndian.AppendUint32(nil, uint32(value))
	for {
		st, err := call(ctx, c.session, func() (*zk.Stat, error) {
			return c.session.conn.Set(c.path, data, version)
		})
		switch {
		case err == nil:
			return VersionedCount{Value: value, Version: st.Version}, nil
		case errors.Is(err, zk.ErrNoNode):
			if err := c.seedNode(ctx); err != nil {
				return VersionedCount{}, err
			}
		case errors.Is(err, zk.ErrNoServer): // never sent
			if err := c.session.waitConnected(ctx); err != nil {
				return VersionedCount{}, err
			}
		case version == -1 && ambiguous(err):
			// Writing the same value again is harmless.
			if err := c.session.waitConnected(ctx); err != nil {
				return VersionedCount{}, err
			}
		case lostInFlight(err):
			uncertain := fmt.Errorf("%w: set count %s to %d: %w", ErrUncertain, c.path, value, err)
			if c.session.alive() != nil || ctx.Err() != nil {
				return VersionedCount{}, uncertain
			}
			if err := c.session.waitConnected(ctx); err != nil {
				return VersionedCount{}, uncertain
			}
			now, err := c.Get(ctx)
			return now, errors.Join(uncertain, err)
		case errors.Is(err, zk.ErrBadVersion):
			return VersionedCount{}, err
		default:
			return VersionedCount{}, fmt.Errorf("set count %s: %w", c.path, err)
		}
	}
}

// seedNode creates the node with the seed, and its parents as containers;
// one that exists already is left as it is.
func (c *SharedCount) seedNode(ctx context.Context) error {
	seed := binary.BigEndian.AppendUint32(nil, uint32(c.seed))
	for {
		_, err := retry(ctx, c.session, func() (string, error) {
			return c.session.create(c.path, seed, 0, c.opts.acl)
		})
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if err := c.session.ensureDir(ctx, parentOfPath(c.path), c.opts.acl); err != nil {
				return fmt.Errorf("create count %s: %w", c.path, err)
			}
		default:
			return fmt.Errorf("create count %s: %w", c.path, err)
		}
	}
}

// versioned reads a count out of a node's data. Empty data is the seed:
// Kazoo's Counter makes its node empty (ensure_path) and reads it as its
// default until the first change.
func (c *SharedCount) versioned(data []byte, st *zk.Stat) (VersionedCount, error) {
	if len(data) == 0 {
		return VersionedCount{Value: c.seed, Version: st.Version}, nil
	}
	if len(data) != 4 {
		return VersionedCount{}, fmt.Errorf("%w: %s holds %d bytes, not the 4 of a count (a big-endian int32, as Curator's SharedCount writes)", ErrNotCount, c.path, len(data))
	}
	return VersionedCount{Value: int32(binary.BigEndian.Uint32(data)), Version: st.Version}, nil
}
