package recognize

import (
	"context"
	"path"
)

// The recipes beside locks, elections, queues and barriers that a
// directory's names point to: a Kazoo SetPartitioner (party/ and locks/),
// a Kazoo NonBlockingLease (lease_holder) or MultiNonBlockingLease
// (numbered slots), a Curator PersistentTtlNode (touch), a counter (a
// leaf of 4 or 8 bytes, or of short text). Groups follow from their
// members' names (groups.go).

// libraryRecipe recognises d as one of these; ok is false when it is
// none, so that the other layouts are tried.
func (rc *recognizer) libraryRecipe(ctx context.Context, d listedDir) (r Recipe, ok bool, err error) {
	switch {
	case d.isPartitioner():
		r, err = rc.partitioner(ctx, d)
	case d.isLease():
		r, err = rc.lease(ctx, d)
	case d.isMultiLeaseCandidate():
		r, err = rc.multiLease(ctx, d)
	case d.isTTLNode():
		r, err = rc.ttlNode(ctx, d)
	case isCounterCandidate(d):
		r, err = rc.counter(ctx, d)
	}
	return r, r != nil || err != nil, err
}

// componentOf recognises a part of one of these as the recipe it belongs
// to: a partitioner's party/, a TTL node's touch, a lease's lease_holder,
// a multi-lease's slot. ok is false when dir is no such part.
func (rc *recognizer) componentOf(ctx context.Context, dir string, d listedDir) (r Recipe, ok bool, err error) {
	parentDir, base := path.Dir(dir), path.Base(dir)
	isPart := func() bool {
		switch {
		case base == "party" || base == ttlTouchChild || base == kazooLeaseHolder:
			return true
		case leaseSlot(base):
			return d.isLease() || (len(d.names) > 0 && d.allOf(kindKazooLock))
		}
		return false
	}
	if !isPart() {
		return nil, false, nil
	}
	children, stat, err := rc.list(ctx, parentDir)
	if err != nil || stat == nil {
		return nil, err != nil, err
	}
	pd := newListedDir(parentDir, stat, children)
	switch {
	case base == "party" && pd.isPartitioner():
		r, err = rc.partitioner(ctx, pd)
	case base == ttlTouchChild && pd.isTTLNode():
		r, err = rc.ttlNode(ctx, pd)
	case base == kazooLeaseHolder && pd.isLease():
		// A multi-lease's slot's record gives the multi-lease.
		if r, ok, err = rc.componentOf(ctx, parentDir, pd); ok {
			return r, ok, err
		}
		r, err = rc.lease(ctx, pd)
	case leaseSlot(base) && pd.isMultiLeaseCandidate():
		r, err = rc.multiLease(ctx, pd)
	}
	if r != nil {
		tagByPath(r)
	}
	return r, r != nil || err != nil, err
}

// allOf reports whether every child of d is of kind k.
func (d listedDir) allOf(k nodeKind) bool {
	for _, n := range d.names {
		if n.Kind != k {
			return false
		}
	}
	return true
}
