package zkview

import (
	"bytes"
	"context"
	"sort"
	"time"

	"github.com/go-zookeeper/zk"
)

// Snapshot is what is known of a node at one moment: whether it exists,
// its data and stat, and (when followed) its children.
type Snapshot struct {
	Exists      bool
	Data        []byte
	HasData     bool // Data was read (a children watch reads none)
	Stat        *zk.Stat
	Children    []string
	HasChildren bool // Children was read
}

// ChangeKind names what changed.
type ChangeKind string

const (
	ChangeCreated  ChangeKind = "created"
	ChangeDeleted  ChangeKind = "deleted"
	ChangeData     ChangeKind = "data"
	ChangeChildren ChangeKind = "children"
)

// Change is one change of a node seen between two snapshots: the zxid and
// time the server gives for it, the data before and after, the children
// added and removed. ZooKeeper does not say who made a change; Owner is
// the session of an ephemeral node that was created or deleted (the
// node's owner, which is not necessarily who deleted it).
type Change struct {
	Path    string
	Kind    ChangeKind
	Zxid    int64
	Time    time.Time
	Version int32 // the data version after (data, created)
	Old     []byte
	New     []byte
	Added   []string
	Removed []string
	Owner   int64
	// Seen is when zkx saw the change (Time is the server's, where it
	// gives one).
	Seen time.Time
	// NotRead says why a creation's or data change's data is not shown
	// ("" when it is): the node changed again before zkx could read it,
	// or the read failed. Only FollowRecursive knows each change apart.
	NotRead string
	// NoOld is set on a data change whose old data zkx does not know (it
	// had not read the node before the change).
	NoOld bool
}

// Diff lists the changes from prev to next (data before children). A node
// deleted and created again between the two reads (its Czxid moved) is
// both changes, not a change of its data or children.
func Diff(path string, prev, next Snapshot, seen time.Time) []Change {
	switch {
	case !prev.Exists && !next.Exists:
		return nil
	case !prev.Exists:
		return []Change{created(path, next, seen)}
	case !next.Exists:
		return []Change{deleted(path, prev, seen)}
	case prev.Stat != nil && next.Stat != nil && prev.Stat.Czxid != next.Stat.Czxid:
		return []Change{deleted(path, prev, seen), created(path, next, seen)}
	}
	var out []Change
	if prev.HasData && next.HasData && next.Stat != nil && prev.Stat != nil &&
		(next.Stat.Mzxid != prev.Stat.Mzxid || !bytes.Equal(prev.Data, next.Data)) {
		out = append(out, Change{Path: path, Kind: ChangeData, Zxid: next.Stat.Mzxid, Time: time.UnixMilli(next.Stat.Mtime),
			Version: next.Stat.Version, Old: prev.Data, New: next.Data, Seen: seen})
	}
	if prev.HasChildren && next.HasChildren {
		added, removed := diffNames(prev.Children, next.Children)
		if len(added) > 0 || len(removed) > 0 {
			c := Change{Path: path, Kind: ChangeChildren, Added: added, Removed: removed, Seen: seen, Time: seen}
			if next.Stat != nil {
				c.Zxid = next.Stat.Pzxid
			}
			out = append(out, c)
		}
	}
	return out
}

// created is the creation of the node next shows.
func created(path string, next Snapshot, seen time.Time) Change {
	c := Change{Path: path, Kind: ChangeCreated, New: next.Data, Seen: seen}
	if next.Stat != nil {
		c.Zxid, c.Time, c.Version = next.Stat.Czxid, time.UnixMilli(next.Stat.Ctime), next.Stat.Version
		if IsSessionOwner(next.Stat.EphemeralOwner) {
			c.Owner = next.Stat.EphemeralOwner
		}
	}
	return c
}

// deleted is the deletion of the node prev shows; ZooKeeper tells neither
// its zxid nor its time, so it is dated when it was seen.
func deleted(path string, prev Snapshot, seen time.Time) Change {
	c := Change{Path: path, Kind: ChangeDeleted, Old: prev.Data, Seen: seen, Time: seen}
	if prev.Stat != nil && IsSessionOwner(prev.Stat.EphemeralOwner) {
		c.Owner = prev.Stat.EphemeralOwner
	}
	return c
}

func diffNames(before, after []string) (added, removed []string) {
	had := make(map[string]bool, len(before))
	for _, n := range before {
		had[n] = true
	}
	for _, n := range after {
		if !had[n] {
			added = append(added, n)
		}
		delete(had, n)
	}
	for n := range had {
		removed = append(removed, n)
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}

// Follow watches path (its data, and its children when children is set)
// until ctx ends, calling changed for each change it sees. Watches fire
// once and are set again on each read, so changes made between a watch
// firing and the next read are seen together, as one change. It returns
// ctx's error, or the first read error other than the node not existing.
func (c *Client) Follow(ctx context.Context, path string, children bool, changed func(Change) error) error {
	prev, events, err := c.snapshotW(ctx, path, children)
	if err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-events:
			if ev.Err != nil && ev.Type != zk.EventNotWatching {
				return ev.Err
			}
		}
		next, nextEvents, err := c.snapshotW(ctx, path, children)
		if err != nil {
			return err
		}
		for _, ch := range Diff(path, prev, next, time.Now()) {
			if err := changed(ch); err != nil {
				return err
			}
		}
		prev, events = next, nextEvents
	}
}

// snapshotW reads path and leaves watches whose first event lands on the
// returned channel.
func (c *Client) snapshotW(ctx context.Context, path string, children bool) (Snapshot, <-chan zk.Event, error) {
	merged := make(chan zk.Event, 3)
	forward := func(w <-chan zk.Event) {
		go func() {
			select {
			case ev := <-w:
				merged <- ev
			case <-ctx.Done():
			}
		}()
	}
	for {
		st, ew, err := c.ExistsW(ctx, path)
		if err != nil {
			return Snapshot{}, nil, err
		}
		if st == nil {
			forward(ew)
			return Snapshot{}, merged, nil
		}
		data, st, dw, err := c.GetW(ctx, path)
		if IsNoNode(err) {
			continue // deleted in between: read again
		}
		if err != nil {
			return Snapshot{}, nil, err
		}
		s := Snapshot{Exists: true, Data: data, HasData: true, Stat: st}
		forward(ew)
		forward(dw)
		if children {
			names, _, cw, err := c.ChildrenW(ctx, path)
			if IsNoNode(err) {
				continue
			}
			if err != nil {
				return Snapshot{}, nil, err
			}
			sort.Strings(names)
			s.Children, s.HasChildren = names, true
			forward(cw)
		}
		return s, merged, nil
	}
}
