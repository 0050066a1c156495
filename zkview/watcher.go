package zkview

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/zkwire"
)

// ErrNoPersistentWatches is a server that does not answer addWatch
// (ZooKeeper before 3.6): follow with one-shot watches instead.
var ErrNoPersistentWatches = errors.New("the server does not offer persistent watches (addWatch, ZooKeeper 3.6+)")

// ErrWatcherFellBehind is a Watcher whose reader left more notifications
// waiting than it keeps (maxQueuedEvents): rather than drop some, it ends.
var ErrWatcherFellBehind = errors.New("persistent watch: the reader fell too far behind the notifications")

// maxQueuedEvents bounds the notifications a Watcher keeps for a slow
// reader (a few tens of MiB).
const maxQueuedEvents = 1 << 20

// WatchEventType is what a notification says happened.
type WatchEventType int

const (
	NodeCreated WatchEventType = iota + 1
	NodeDeleted
	NodeDataChanged
	NodeChildrenChanged
)

func (t WatchEventType) String() string {
	switch t {
	case NodeCreated:
		return "created"
	case NodeDeleted:
		return "deleted"
	case NodeDataChanged:
		return "data"
	case NodeChildrenChanged:
		return "children"
	}
	return fmt.Sprintf("event %d", int(t))
}

// WatchEvent is one notification of a persistent watch.
type WatchEvent struct {
	Type WatchEventType
	Path string // under the chroot
	// Seq numbers the notifications of the Watcher's session: 1, 2, …
	// A read through the Watcher reports the Seq it reflects (see Get).
	Seq  uint64
	Seen time.Time
}

// Watcher holds persistent watches (ZooKeeper 3.6+ addWatch) on a session
// of its own, opened as the client's was (TLS, SASL, credentials): unlike
// a one-shot watch, which is gone once it fires until a read sets it
// again, a persistent watch reports every change, however close together.
// go-zookeeper v1.0.4 cannot send addWatch; this session speaks the wire
// protocol itself (internal/zkwire). Reads through the Watcher travel the
// same connection, after the notifications that precede them, so each
// says which notifications its answer already reflects.
//
// The session is not re-established: when the connection ends (Done), its
// watches end with it and a caller that wants to go on dials again.
type Watcher struct {
	conn   *zkwire.Conn
	target connstr.ConnectString
	server string

	// handler, when set, takes each notification on the connection's
	// reading goroutine instead of the queue (DialWatcherFunc).
	handler func(WatchEvent)

	mu     sync.Mutex
	queue  []WatchEvent
	wake   chan struct{} // has a value when queue may have grown
	err    error
	done   chan struct{}
	closed bool
}

// DialWatcher opens a Watcher's session to the server the client is
// connected to; its notifications wait in a queue for Next.
func (c *Client) DialWatcher(ctx context.Context) (*Watcher, error) {
	return c.dialWatcher(ctx, nil)
}

// DialWatcherFunc is DialWatcher for a reader that only needs to be told:
// each notification goes to handle as it is decoded, on the connection's
// reading goroutine, and none is queued (Next and Pending have nothing).
// handle must not block: a burst of thousands of notifications then costs
// their decoding and handle's calls, nothing more.
func (c *Client) DialWatcherFunc(ctx context.Context, handle func(WatchEvent)) (*Watcher, error) {
	return c.dialWatcher(ctx, handle)
}

func (c *Client) dialWatcher(ctx context.Context, handle func(WatchEvent)) (*Watcher, error) {
	server := c.conn.Server()
	if server == "" {
		return nil, fmt.Errorf("persistent watch: not connected")
	}
	w := &Watcher{target: c.target, server: server, handler: handle, wake: make(chan struct{}, 1), done: make(chan struct{})}
	conn, err := c.dialWireConn(ctx, server, w.notified)
	if err != nil {
		return nil, fmt.Errorf("persistent watch on %s: %w", server, err)
	}
	w.conn = conn
	go w.followConn()
	return w, nil
}

// notified queues one notification (on the connection's reading
// goroutine: it never blocks).
func (w *Watcher) notified(ev jute.WatcherEvent, seq uint64) {
	var t WatchEventType
	switch ev.Type {
	case jute.EventNodeCreated:
		t = NodeCreated
	case jute.EventNodeDeleted:
		t = NodeDeleted
	case jute.EventNodeDataChanged:
		t = NodeDataChanged
	case jute.EventNodeChildrenChanged:
		t = NodeChildrenChanged
	default:
		return // the server's own state events, watch-removed events
	}
	if w.handler != nil {
		w.handler(WatchEvent{Type: t, Path: w.target.Rel(ev.Path), Seq: seq, Seen: time.Now()})
		return
	}
	w.mu.Lock()
	if w.err == nil && len(w.queue) >= maxQueuedEvents {
		w.err = ErrWatcherFellBehind
		w.mu.Unlock()
		w.conn.Close()
		return
	}
	w.queue = append(w.queue, WatchEvent{Type: t, Path: w.target.Rel(ev.Path), Seq: seq, Seen: time.Now()})
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// followConn ends the Watcher when its connection ends.
func (w *Watcher) followConn() {
	<-w.conn.Done()
	w.mu.Lock()
	if w.err == nil {
		w.err = w.conn.Err()
		if w.closed {
			w.err = zkwire.ErrClosed
		}
	}
	w.mu.Unlock()
	close(w.done)
}

// Server is the member the Watcher's session is on.
func (w *Watcher) Server() string { return w.server }

// Add sets a persistent watch on path: on the node itself (its data,
// its children, its creation and deletion), or with recursive on every
// node below it too (their data, creation and deletion). A server before
// 3.6 answers ErrNoPersistentWatches (and closes the connection).
func (w *Watcher) Add(ctx context.Context, path string, recursive bool) error {
	mode := jute.AddWatchPersistent
	if recursive {
		mode = jute.AddWatchPersistentRecursive
	}
	err := w.conn.Call(ctx, jute.OpAddWatch, &jute.PathIntRequest{Path: w.target.Abs(path), Value: mode}, &jute.IntResponse{})
	var se *zkwire.ServerError
	if errors.As(err, &se) && se.Code == jute.ErrUnimplemented {
		return fmt.Errorf("%s: %w", w.server, ErrNoPersistentWatches)
	}
	if err != nil {
		return w.opError("watch", path, err)
	}
	return nil
}

// Remove ends the watches the Watcher holds on path (not those on nodes
// above it, whose recursive watch still covers it).
func (w *Watcher) Remove(ctx context.Context, path string) error {
	err := w.conn.Call(ctx, jute.OpRemoveWatches, &jute.PathIntRequest{Path: w.target.Abs(path), Value: jute.WatcherAny}, nil)
	var se *zkwire.ServerError
	if errors.As(err, &se) && se.Code == jute.ErrNoWatcher {
		return nil
	}
	if err != nil {
		return w.opError("unwatch", path, err)
	}
	return nil
}

// Next returns the next notification, waiting for one until ctx ends or
// the Watcher does (then its error).
func (w *Watcher) Next(ctx context.Context) (WatchEvent, error) {
	for {
		if evs := w.take(1); len(evs) == 1 {
			return evs[0], nil
		}
		select {
		case <-w.wake:
		case <-w.done:
			if evs := w.take(1); len(evs) == 1 {
				return evs[0], nil
			}
			return WatchEvent{}, w.Err()
		case <-ctx.Done():
			return WatchEvent{}, ctx.Err()
		}
	}
}

// Pending returns every notification that has come and not been taken,
// without waiting.
func (w *Watcher) Pending() []WatchEvent { return w.take(-1) }

// take removes up to n queued events (all for n < 0).
func (w *Watcher) take(n int) []WatchEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n < 0 || n > len(w.queue) {
		n = len(w.queue)
	}
	out := append([]WatchEvent(nil), w.queue[:n]...)
	w.queue = w.queue[n:]
	if len(w.queue) == 0 {
		w.queue = nil // let the array go after a burst
	}
	return out
}

// Get reads a node on the Watcher's session; seen is the Seq of the last
// notification that came before the answer: the answer is the node's
// state after every change those notifications told of.
func (w *Watcher) Get(ctx context.Context, path string) (data []byte, stat *zk.Stat, seen uint64, err error) {
	var resp jute.GetDataResponse
	seen, err = w.conn.CallOrdered(ctx, jute.OpGetData, &jute.PathWatchRequest{Path: w.target.Abs(path)}, &resp)
	if err != nil {
		return nil, nil, seen, w.opError("get", path, err)
	}
	return resp.Data, zkStat(resp.Stat), seen, nil
}

// Children lists a node on the Watcher's session; seen as for Get.
func (w *Watcher) Children(ctx context.Context, path string) (children []string, stat *zk.Stat, seen uint64, err error) {
	var resp jute.GetChildren2Response
	seen, err = w.conn.CallOrdered(ctx, jute.OpGetChildren2, &jute.PathWatchRequest{Path: w.target.Abs(path)}, &resp)
	if err != nil {
		return nil, nil, seen, w.opError("list", path, err)
	}
	return resp.Children, zkStat(resp.Stat), seen, nil
}

// Done is closed when the Watcher's session ends; its watches end with it.
func (w *Watcher) Done() <-chan struct{} { return w.done }

// Err says why the Watcher ended (nil while it lives).
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close ends the Watcher's session and its watches.
func (w *Watcher) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.conn.Close()
}

func (w *Watcher) opError(op, path string, err error) error {
	return wireError(op, path, w.server, err)
}
