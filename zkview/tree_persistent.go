package zkview

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// The Tree follows a node's data and children with one persistent watch
// (ZooKeeper 3.6+ addWatch, mode PERSISTENT) on a session of its own,
// where the server offers them: set once, it reports every change of the
// node, its children, its creation and deletion, with no re-arming and so
// no moment without a watch; the node is read again after each event, on
// the same session, so each read is known to reflect the events before
// it. A node that keeps changing is read at most once per ReadEvery. A server without them (before 3.6), or a watch session that ends,
// leaves the Tree on one-shot watches, set again on every read (loadData,
// loadChildren); WatchMode says which. Child counts of collapsed rows
// (tree_counts.go) stay on one-shot watches: many, brief, and one read
// each is all they need.

// watchDialTimeout bounds opening the persistent watch's session.
const watchDialTimeout = 10 * time.Second

// treeWatch is the Tree's persistent watches.
type treeWatch struct {
	tree *Tree
	// ops orders setting and taking off watches: a node let go of and
	// followed again at once must not have its new watch taken off by the
	// old one's removal, nor a second loader read before the watch is set.
	ops sync.Mutex

	mu      sync.Mutex
	decided chan struct{} // closed once watcher or off is set
	watcher *Watcher
	off     error // why the Tree is on one-shot watches
	// lost is set when the watch session ended (not when the server
	// has no persistent watches): the next reconnection tries again.
	lost bool
	subs map[string][]*pathSub
}

// pathSub is one loader's interest in a node's events.
type pathSub struct {
	path string
	side historySide
	wake chan struct{} // has a value when an event came
	stop chan struct{} // closed when the loader is let go of
	lost chan struct{} // closed when the watch session ends
	once sync.Once
}

func newTreeWatch(t *Tree, oneShot bool) *treeWatch {
	tw := &treeWatch{tree: t, decided: make(chan struct{}), subs: map[string][]*pathSub{}}
	if oneShot {
		tw.off = errors.New("asked for one-shot watches")
		close(tw.decided)
		return tw
	}
	go tw.start()
	return tw
}

// start opens the watch session and checks that the server answers
// addWatch; its notifications wake the loaders as they are decoded
// (deliver).
func (tw *treeWatch) start() {
	ctx, cancel := context.WithTimeout(tw.tree.ctx, watchDialTimeout)
	defer cancel()
	w, err := tw.tree.client.DialWatcherFunc(ctx, tw.deliver)
	if err == nil {
		// Probe on / and take it off again: the answer is all that matters.
		if err = w.Add(ctx, "/", false); err == nil {
			err = w.Remove(ctx, "/")
		}
		if err != nil {
			w.Close()
		}
	}
	tw.mu.Lock()
	if err != nil {
		tw.off = err
	} else {
		tw.watcher, tw.off, tw.lost = w, nil, false
	}
	close(tw.decided)
	tw.mu.Unlock()
	if err != nil {
		return
	}
	select {
	case <-w.Done():
		tw.lose(w.Err())
	case <-tw.tree.ctx.Done():
		w.Close()
	}
}

// use waits until it is known whether persistent watches are on, and
// returns the Watcher (nil: one-shot).
func (tw *treeWatch) use() *Watcher {
	tw.mu.Lock()
	decided := tw.decided
	tw.mu.Unlock()
	select {
	case <-decided:
	case <-tw.tree.ctx.Done():
		return nil
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.watcher
}

// mode says how the Tree watches.
func (tw *treeWatch) mode() (persistent bool, why error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	select {
	case <-tw.decided:
	default:
		return false, nil // not known yet
	}
	return tw.watcher != nil, tw.off
}

// retry opens the watch session again after it was lost (the client
// reconnected: its member may have been the one that went), and reports
// whether it did; the Tree then reads everything again, which moves each
// node's loader back to a persistent watch.
func (tw *treeWatch) retry() bool {
	tw.mu.Lock()
	if !tw.lost {
		tw.mu.Unlock()
		return false
	}
	tw.lost = false
	tw.decided = make(chan struct{})
	decided := tw.decided
	tw.mu.Unlock()
	go tw.start()
	select {
	case <-decided:
	case <-tw.tree.ctx.Done():
		return false
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.watcher != nil
}

// lose ends persistent watching: every loader goes on with one-shot ones.
func (tw *treeWatch) lose(err error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.tree.ctx.Err() != nil {
		return
	}
	tw.watcher, tw.off, tw.lost = nil, fmt.Errorf("the persistent watch's session ended (%v): one-shot until the next reconnection", err), true
	for _, subs := range tw.subs {
		for _, s := range subs {
			s.once.Do(func() { close(s.lost) })
		}
	}
}

// deliver wakes the loaders of the event's node that care for its kind.
// It runs on the watch session's reading goroutine for every notification,
// so it allocates nothing and never blocks: a loader already woken stays
// woken, and reads once for every event since (see settle).
func (tw *treeWatch) deliver(ev WatchEvent) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	for _, s := range tw.subs[ev.Path] {
		if ev.Type == NodeChildrenChanged && s.side != childrenSide || ev.Type == NodeDataChanged && s.side != dataSide {
			continue
		}
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// subscribe registers a loader's interest, setting the node's watch for
// the first one.
func (tw *treeWatch) subscribe(ctx context.Context, w *Watcher, path string, side historySide) (*pathSub, error) {
	s := &pathSub{path: path, side: side, wake: make(chan struct{}, 1), stop: make(chan struct{}), lost: make(chan struct{})}
	tw.ops.Lock()
	defer tw.ops.Unlock()
	tw.mu.Lock()
	first := len(tw.subs[path]) == 0
	tw.subs[path] = append(tw.subs[path], s)
	tw.mu.Unlock()
	if first {
		if err := w.Add(ctx, path, false); err != nil {
			tw.drop(s)
			return nil, err
		}
	}
	return s, nil
}

// unsubscribe drops a loader's interest; the last one takes the node's
// watch off.
func (tw *treeWatch) unsubscribe(s *pathSub) {
	tw.ops.Lock()
	defer tw.ops.Unlock()
	w, last := tw.drop(s)
	if last && w != nil && tw.tree.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(tw.tree.ctx, requestTimeoutOf(tw.tree))
		w.Remove(ctx, s.path)
		cancel()
	}
}

// drop forgets a loader's interest; last says it was the node's last.
func (tw *treeWatch) drop(s *pathSub) (w *Watcher, last bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	subs := tw.subs[s.path]
	for i, x := range subs {
		if x == s {
			subs = append(subs[:i], subs[i+1:]...)
			break
		}
	}
	last = len(subs) == 0
	if last {
		delete(tw.subs, s.path)
	} else {
		tw.subs[s.path] = subs
	}
	return tw.watcher, last
}

// stopSide lets the loaders of one side of a node go (the Tree's letGo).
func (tw *treeWatch) stopSide(path string, side historySide) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	for _, s := range tw.subs[path] {
		if s.side == side {
			select {
			case <-s.stop:
			default:
				close(s.stop)
			}
		}
	}
}

func requestTimeoutOf(t *Tree) time.Duration { return max(t.client.timeout, 5*time.Second) }

// waitEvent waits for the next event of the loader's side; false when the
// loader is let go of, the Tree closed, or the watch session lost (lost).
func (s *pathSub) waitEvent(ctx context.Context) (ok, lost bool) {
	select {
	case <-s.wake:
		return true, false
	case <-s.stop:
		return false, false
	case <-s.lost:
		return false, true
	case <-ctx.Done():
		return false, false
	}
}

// settle waits until the loader may read again (Tree.settle), then takes
// the events that came meanwhile: the read that follows reflects them all.
// False when the loader is let go of or the Tree closed.
func (s *pathSub) settle(t *Tree, last time.Time) bool {
	if !t.settle(last, t.readEvery, s.stop) {
		return false
	}
	select {
	case <-s.wake:
	default:
	}
	return true
}

// loadDataPersistent keeps path's data current through the persistent
// watch; false when the watch session ended and the caller should go on
// with one-shot watches.
func (t *Tree) loadDataPersistent(w *Watcher, path string, gen int) bool {
	s, err := t.pw.subscribe(t.ctx, w, path, dataSide)
	if err != nil {
		return t.ctx.Err() != nil
	}
	defer t.pw.unsubscribe(s)
	var last time.Time
	for t.current(t.watched, path, gen) {
		if !s.settle(t, last) {
			return true
		}
		last = time.Now()
		data, stat, _, err := w.Get(t.ctx, path)
		if err != nil && !IsNoNode(err) && !IsNoAuth(err) {
			return t.ctx.Err() != nil // the session went: one-shot from here
		}
		t.mu.Lock()
		n := t.node(path)
		n.Loading, n.Err = false, err
		following := t.currentLocked(t.watched, path, gen)
		switch {
		case err == nil:
			n.Stat, n.Data, n.DataLoaded = stat, data, true
			if following {
				t.record(path, dataSide, Snapshot{Exists: true, Data: data, HasData: true, Stat: stat})
			}
		case IsNoNode(err):
			n.gone()
			if following {
				t.record(path, dataSide, Snapshot{})
			}
		default:
			n.Data, n.DataLoaded = nil, false
		}
		t.markDirty(path)
		t.mu.Unlock()
		if ok, lost := s.waitEvent(t.ctx); !ok {
			return !lost
		}
	}
	return true
}

// loadChildrenPersistent is loadDataPersistent for path's children.
func (t *Tree) loadChildrenPersistent(w *Watcher, path string, gen int) bool {
	s, err := t.pw.subscribe(t.ctx, w, path, childrenSide)
	if err != nil {
		return t.ctx.Err() != nil
	}
	defer t.pw.unsubscribe(s)
	var last time.Time
	for t.current(t.expanded, path, gen) {
		if !s.settle(t, last) {
			return true
		}
		last = time.Now()
		children, stat, _, err := w.Children(t.ctx, path)
		if err != nil && !IsNoNode(err) && !IsNoAuth(err) {
			return t.ctx.Err() != nil
		}
		sort.Strings(children)
		t.mu.Lock()
		n := t.node(path)
		n.Loading, n.Err = false, err
		following := t.currentLocked(t.expanded, path, gen)
		switch {
		case err == nil:
			n.Stat, n.Children, n.ChildrenLoaded = stat, children, true
			if following {
				t.record(path, childrenSide, Snapshot{Exists: true, Stat: stat, Children: children, HasChildren: true})
			}
		case IsNoNode(err):
			n.gone()
			if following {
				t.record(path, childrenSide, Snapshot{})
			}
		}
		t.markDirty(path)
		t.mu.Unlock()
		if ok, lost := s.waitEvent(t.ctx); !ok {
			return !lost
		}
	}
	return true
}

// WatchModeKnown is closed once it is known how the Tree watches (its
// persistent watch session, which the server counts as a transaction,
// is open by then, or will not be).
func (t *Tree) WatchModeKnown() <-chan struct{} {
	t.pw.mu.Lock()
	defer t.pw.mu.Unlock()
	return t.pw.decided
}

// WatchMode says how the Tree follows nodes: persistent watches (3.6+),
// or one-shot ones and why (an older server, a session that ended; nil
// while it is not known yet).
func (t *Tree) WatchMode() (persistent bool, why error) { return t.pw.mode() }
