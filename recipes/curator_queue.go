package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkx-dev/zkx/internal/curatoritems"
)

// curatorQueueMarker starts the name of every item of Curator's
// DistributedQueue ("queue-" and the sequence: DistributedQueue.makeItemPath).
const curatorQueueMarker = "queue-"

// ErrNotItemSet is wrapped by CuratorQueue.Take and Poll when the node
// taken does not hold a Curator item set.
var ErrNotItemSet = errors.New("recipes: not a Curator queue item set")

// CuratorQueue is a FIFO queue in the layout of Apache Curator's
// DistributedQueue (Curator 5.4, QueueBuilder.builder(...).buildQueue()):
// each node is a persistent sequential child "queue-SEQ" whose data is an
// item set (Curator's ItemSerializer: a version, then the items), holding
// one item (DistributedQueue.put) or several put at once
// (DistributedQueue.putMulti). Curator's consumers take what a CuratorQueue
// puts, item by item, and a CuratorQueue takes what Curator's producers
// put, a node at a time.
//
// Taking is reading a node, then deleting the version read, as Curator's
// consumers do when the queue has no lock path; it gives the guarantees of
// Queue.Take. It does not take part in Curator's guaranteed delivery
// (QueueBuilder.lockPath), whose consumers create lockPath/queue-SEQ while
// they process an item and delete the item after: do not consume one queue
// both ways. Nodes of other shapes are ignored, among them the items of
// Curator's priority, delay and id queues ("queue-" followed by more than
// the sequence), which a plain Curator consumer takes as its own.
//
// A CuratorQueue is safe for concurrent use.
type CuratorQueue struct {
	nodes *Queue
}

// NewCuratorQueue returns a CuratorQueue on directory dir, created on demand
// as persistent nodes (see NewQueue for why not containers). Options:
// WithACL, of the items and the directories.
func NewCuratorQueue(s *Session, dir string, opts ...Option) *CuratorQueue {
	q := NewQueue(s, dir, opts...)
	q.marker = curatorQueueMarker
	return &CuratorQueue{nodes: q}
}

// Put writes items as one node, as DistributedQueue.putMulti does (put
// when there is one), and returns its name ("queue-0000000007"): a Curator
// consumer hands them to its QueueConsumer one by one, in this order, and
// a CuratorQueue's Take returns them together. Putting no item writes an
// empty item set, which consumers remove without handing anything on.
// Put puts at most once, as Queue.Put.
func (q *CuratorQueue) Put(ctx context.Context, items ...[]byte) (string, error) {
	return q.nodes.Put(ctx, curatoritems.Encode(items))
}

// Take removes the oldest node and returns its items, waiting for one to be
// put when the queue is empty. What it guarantees is what Queue.Take does
// (with ErrUncertain it also returns the items). A node that is not an item
// set is removed all the same, as Curator's consumers remove it (they log it
// as corrupted), and reported with an error wrapping ErrNotItemSet that
// names it.
func (q *CuratorQueue) Take(ctx context.Context) ([][]byte, error) { return q.take(ctx, true) }

// Poll is Take, but returns ErrEmpty at once when the queue is empty.
func (q *CuratorQueue) Poll(ctx context.Context) ([][]byte, error) { return q.take(ctx, false) }

// Len returns the number of nodes in the queue; a node may hold several
// items.
func (q *CuratorQueue) Len(ctx context.Context) (int, error) { return q.nodes.Len(ctx) }

func (q *CuratorQueue) take(ctx context.Context, wait bool) ([][]byte, error) {
	name, data, err := q.nodes.take(ctx, wait)
	if data == nil && err != nil {
		return nil, err
	}
	items, decodeErr := curatoritems.Decode(data)
	if decodeErr != nil {
		return nil, errors.Join(err, fmt.Errorf("%w: took %s from %s and removed it: %v", ErrNotItemSet, name, q.nodes.dir, decodeErr))
	}
	return items, err
}
