package recipes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/lockstats"
)

// queueMarker starts the name of every item: "qn-" and the sequence number,
// as ZooKeeper's DistributedQueue and Curator's SimpleDistributedQueue write.
const queueMarker = "qn-"

// Queue is a FIFO queue in one directory, in the layout of ZooKeeper's own
// DistributedQueue recipe and Curator's SimpleDistributedQueue: each item is
// a persistent sequential child "qn-SEQ" holding the item's bytes, and
// taking an item is reading it, then deleting it. Items put by either of
// those are taken by a Queue, and the other way round. Children of any
// other shape are ignored.
//
// A Queue is safe for concurrent use; its goroutines take distinct items.
// Items are taken in sequence order: a consumer never takes an item older
// than one it took before.
type Queue struct {
	session *Session
	dir     string
	opts    options
	marker  string // what every item's name starts with, before its sequence

	// The items of the last listing not yet tried, oldest first, so that a
	// run of Takes lists the directory once rather than once per item.
	mu      sync.Mutex
	pending []string
	pzxid   int64 // the listing's pzxid: none of pending was created later
}

// NewQueue returns a Queue on directory dir, created on demand as
// persistent nodes. Not containers: a reaped and remade directory starts
// its sequence again, so an item put later could take the name and version
// of one a Take has read but not yet deleted, and that delete would remove
// the newer item while returning the older (taken twice, one lost).
// Deleting a queue's directory while consumers run, or sharing one that
// another client made as a container (Curator does), opens that window
// again. Options:
// WithACL (of the items and the directories). The item's bytes
// are the node's data, so WithData and WithFormat do not apply.
func NewQueue(s *Session, dir string, opts ...Option) *Queue {
	return &Queue{session: s, dir: dir, opts: buildOptions(opts), marker: queueMarker}
}

// Put appends an item and returns its node's name ("qn-0000000042").
//
// Put puts an item at most once. If the connection or session is lost, or
// ctx ends, while the create is in flight, Put does not send it again (the
// node of a sequential create cannot be told from another client's) and
// returns an error wrapping ErrUncertain: the item may or may not be in the
// queue. Any other error means the item was not put.
func (q *Queue) Put(ctx context.Context, data []byte) (string, error) {
	for {
		if err := q.session.alive(); err != nil {
			return "", err
		}
		if err := ctx.Err(); err != nil {
			return "", err // nothing sent yet
		}
		q.opts.stats.CountCreate()
		p, err := call(ctx, q.session, func() (string, error) {
			return q.session.create(joinPath(q.dir, q.marker), data, zk.FlagSequence, q.opts.acl)
		})
		switch {
		case err == nil:
			return p[strings.LastIndexByte(p, '/')+1:], nil
		case errors.Is(err, zk.ErrNoNode):
			if err := q.session.ensurePath(ctx, q.dir, q.opts.acl); err != nil {
				return "", fmt.Errorf("put in queue %s: %w", q.dir, err)
			}
		case errors.Is(err, zk.ErrNoServer): // never sent: send it when connected
			if err := q.session.waitConnected(ctx); err != nil {
				return "", err
			}
		case lostInFlight(err):
			return "", fmt.Errorf("%w: put in queue %s: %w", ErrUncertain, q.dir, err)
		default:
			return "", fmt.Errorf("put in queue %s: %w", q.dir, err)
		}
	}
}

// Take removes the oldest item and returns its bytes, waiting for one to be
// put when the queue is empty. It waits on a watch of the directory's
// children (or, while the directory does not exist, of its creation), never
// by polling, and creates nothing: a cancelled Take leaves nothing behind.
//
// What Take guarantees about an item:
//   - With a nil error, this call removed the item from the queue, and no
//     other Take (ours, or a ZooKeeper or Curator queue's) returns it: the
//     delete that removed it was ours and was acknowledged.
//   - With an error wrapping ErrUncertain, Take also returns the item's
//     bytes: its delete was sent but the answer was lost with the
//     connection or the session, and Take could not tell whether it was
//     applied. Once reconnected Take deletes again: success proves the first
//     delete was not applied (nil error, as above); NoNode leaves it open
//     whether our delete or another consumer's removed it, and so does a
//     session lost, or a ctx ended, before Take could ask (the item may then
//     even still be in the queue). The item is reported, never silently
//     dropped: a caller wanting at-most-once processing drops it, one
//     wanting at-least-once processes it (idempotently).
//   - With any other error (ctx ended, session lost, ...), this call removed
//     nothing; items it read remain for other consumers.
//
// Once its delete is sent, Take waits for the answer even if ctx ends, so
// that a removed item is never lost with the caller gone.
func (q *Queue) Take(ctx context.Context) ([]byte, error) {
	_, data, err := q.take(ctx, true)
	return data, err
}

// Poll removes the oldest item and returns its bytes, or returns ErrEmpty
// at once when the queue is empty. It gives the guarantees of Take.
func (q *Queue) Poll(ctx context.Context) ([]byte, error) {
	_, data, err := q.take(ctx, false)
	return data, err
}

// Peek returns the bytes of the oldest item without removing it, or
// ErrEmpty when the queue is empty.
func (q *Queue) Peek(ctx context.Context) ([]byte, error) {
	for {
		l, err := q.list(ctx, false)
		if err != nil {
			return nil, err
		}
		if len(l.items) == 0 {
			return nil, ErrEmpty
		}
		data, found, err := q.first(ctx, l)
		if err != nil || found {
			return data, err
		}
	}
}

// first reads the oldest item of a listing that still exists. found is
// false when none is left, or the listing is stale: list again.
func (q *Queue) first(ctx context.Context, l queueListing) (data []byte, found bool, err error) {
	for _, name := range l.items {
		data, st, err := q.read(ctx, joinPath(q.dir, name))
		switch {
		case errors.Is(err, zk.ErrNoNode):
			continue // taken meanwhile: the next is the head
		case err != nil:
			return nil, false, err
		case st.Czxid > l.pzxid:
			return nil, false, nil // see takeItem
		}
		return data, true, nil
	}
	return nil, false, nil
}

// Len returns the number of items in the queue.
func (q *Queue) Len(ctx context.Context) (int, error) {
	l, err := q.list(ctx, false)
	return len(l.items), err
}

// take removes the oldest item and returns its name and bytes (see Take).
func (q *Queue) take(ctx context.Context, wait bool) (string, []byte, error) {
	for {
		name, pzxid, ok := q.next()
		if !ok {
			if err := q.refill(ctx, wait); err != nil {
				return "", nil, err
			}
			continue
		}
		data, taken, err := q.takeItem(ctx, name, pzxid)
		if err != nil && !taken {
			// The item stays in the queue; list again next time so that it
			// is not passed over for younger ones.
			q.forget()
		}
		if taken || err != nil {
			return name, data, err
		}
	}
}

// refill lists the queue for take. When it is empty, refill returns
// ErrEmpty, or with wait waits for the next change (the watch set with the
// listing fires at it, so no Put slips by) and returns nil, to list again.
func (q *Queue) refill(ctx context.Context, wait bool) error {
	l, err := q.list(ctx, wait)
	if err != nil {
		return err
	}
	if len(l.items) > 0 {
		q.remember(l)
		return nil
	}
	if !wait {
		return ErrEmpty
	}
	_, err = awaitWatch(ctx, q.session, l.watch, q.opts.stats)
	return err
}

// takeItem tries to take one item: read it, then delete the version read.
// With taken false and a nil error the item went to another consumer, or
// is not the node our listing saw: the caller moves on.
func (q *Queue) takeItem(ctx context.Context, name string, pzxid int64) (data []byte, taken bool, err error) {
	path := joinPath(q.dir, name)
	for {
		data, st, err := q.read(ctx, path)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return nil, false, nil
		case err != nil:
			return nil, false, err
		case st.Czxid > pzxid:
			// Created after our listing under a name it had: the directory
			// was removed and made again, and its sequence started over.
			// Older items may exist that we have not seen.
			q.forget()
			return nil, false, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err // nothing removed
		}
		err = q.remove(ctx, path, st.Version)
		switch {
		case err == nil:
			return data, true, nil
		case errors.Is(err, ErrUncertain): // before NoNode, which it may wrap
			return data, true, err
		case errors.Is(err, zk.ErrNoNode):
			return nil, false, nil // another consumer took it first
		case errors.Is(err, zk.ErrBadVersion):
			continue // written to since we read it: read it again
		default:
			return nil, false, fmt.Errorf("take %s: %w", path, err)
		}
	}
}

// remove deletes an item at version. It reports ErrNoNode only when the
// item was gone before our delete could have been applied; when a lost
// answer leaves that unknown, it returns an error wrapping ErrUncertain.
func (q *Queue) remove(ctx context.Context, path string, version int32) error {
	sent := false // a delete went out whose answer was lost
	uncertain := func(err error) error {
		return fmt.Errorf("%w: took %s, but the answer to its delete was lost: another consumer may take or have taken it too: %w", ErrUncertain, path, err)
	}
	for {
		if err := q.session.alive(); err != nil {
			if sent {
				return uncertain(err)
			}
			return err
		}
		q.opts.stats.CountDelete()
		// The delete is waited for whatever ctx says: an item it removed
		// must reach the caller.
		_, err := call(context.WithoutCancel(ctx), q.session, func() (struct{}, error) {
			return struct{}{}, q.session.conn.Delete(path, version)
		})
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrNoNode) && sent:
			return uncertain(err)
		case errors.Is(err, zk.ErrNoServer): // never sent
		case lostInFlight(err):
			sent = true
		default:
			return err
		}
		// Ask again once connected: a delete that succeeds now proves the
		// first was not applied; NoNode leaves it unknown.
		if err := q.session.waitConnected(ctx); err != nil {
			if sent {
				return uncertain(err)
			}
			return err
		}
	}
}

// lostInFlight reports whether a request that was sent ended without an
// answer: the connection or the session went, or the caller stopped waiting.
func lostInFlight(err error) bool {
	return ambiguous(err) || errors.Is(err, ErrSessionLost) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// queueListing is one read of the queue directory.
type queueListing struct {
	items []string // oldest first
	// pzxid is the directory's pzxid: the zxid of its last child change, so
	// no item of the listing was created after it.
	pzxid int64
	watch <-chan zk.Event // when asked for: fires at the next change
}

// list reads the items of the queue. With watch, it also sets a watch that
// fires at the next change of the children, or, when the directory does
// not exist, at its creation.
func (q *Queue) list(ctx context.Context, watch bool) (queueListing, error) {
	for {
		q.opts.stats.CountRead()
		l, err := retry(ctx, q.session, func() (queueListing, error) {
			var l queueListing
			var children []string
			var st *zk.Stat
			var err error
			if watch {
				children, st, l.watch, err = q.session.conn.ChildrenW(q.dir)
			} else {
				children, st, err = q.session.conn.Children(q.dir)
			}
			if err != nil {
				return queueListing{}, err
			}
			l.items, l.pzxid = queueItems(children, q.marker), st.Pzxid
			return l, nil
		})
		switch {
		case err == nil:
			return l, nil
		case !errors.Is(err, zk.ErrNoNode):
			return queueListing{}, fmt.Errorf("list queue %s: %w", q.dir, err)
		case !watch:
			return queueListing{}, nil
		}
		// No directory: wait for a Put to make it rather than make it
		// ourselves.
		l, exists, err := q.watchDir(ctx)
		if err != nil || !exists {
			return l, err
		}
	}
}

// watchDir sets a watch on the queue directory's existence.
func (q *Queue) watchDir(ctx context.Context) (queueListing, bool, error) {
	type answer struct {
		exists bool
		watch  <-chan zk.Event
	}
	q.opts.stats.CountRead()
	a, err := retry(ctx, q.session, func() (answer, error) {
		exists, _, ch, err := q.session.conn.ExistsW(q.dir)
		return answer{exists, ch}, err
	})
	if err != nil {
		return queueListing{}, false, fmt.Errorf("watch queue %s: %w", q.dir, err)
	}
	return queueListing{watch: a.watch}, a.exists, nil
}

// queueItems picks the children named marker ("qn-", "queue-") and a
// sequence number, oldest first.
func queueItems(children []string, marker string) []string {
	var items []string
	for _, c := range contenders(children, marker) {
		if strings.LastIndex(c.name, marker) == 0 {
			items = append(items, c.name)
		}
	}
	return items
}

// read gets an item's bytes and stat.
func (q *Queue) read(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	type item struct {
		data []byte
		stat *zk.Stat
	}
	q.opts.stats.CountRead()
	it, err := retry(ctx, q.session, func() (item, error) {
		data, st, err := q.session.conn.Get(path)
		return item{data, st}, err
	})
	return it.data, it.stat, err
}

// next pops the oldest item of the last listing not yet tried.
func (q *Queue) next() (name string, pzxid int64, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return "", 0, false
	}
	name = q.pending[0]
	q.pending = q.pending[1:]
	return name, q.pzxid, true
}

func (q *Queue) remember(l queueListing) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending, q.pzxid = l.items, l.pzxid
}

func (q *Queue) forget() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = nil
}

// awaitWatch waits for a watch to fire, ctx to end or the session to be
// lost. A watch ended by the session's expiry reports ErrSessionLost; one
// that ended otherwise returns its event, for the caller to look again.
func awaitWatch(ctx context.Context, s *Session, ch <-chan zk.Event, st *lockstats.Stats) (zk.Event, error) {
	select {
	case ev := <-ch:
		if ev.Type == zk.EventNotWatching {
			if err := s.classify(ev.Err); errors.Is(err, ErrSessionLost) {
				return ev, err
			}
			return ev, s.alive()
		}
		st.CountNotification()
		return ev, nil
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-s.done:
		return zk.Event{}, s.Err()
	}
}
