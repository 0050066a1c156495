package zkview

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Tree is a lazy, live mirror of the nodes a viewer shows: the children of
// expanded nodes and the data of watched ones, kept current by a
// persistent watch on each where the server offers them (3.6+), else by
// one-shot watches set again on every event (tree_persistent.go). It never
// watches more than it was asked to, and it tells of changes at most once
// per interval. A node that keeps changing is read again at most once per
// ReadEvery, however many events come in between (settle): a busy ensemble
// costs the viewer the same few reads a second as a quiet one. What its
// watches see change is kept as each node's history (bounded: see
// HistoryPerNode), the changes between two reads counted from the node's
// versions.
type Tree struct {
	client    *Client
	ctx       context.Context
	cancel    context.CancelFunc
	interval  time.Duration
	readEvery time.Duration
	now       func() time.Time

	mu       sync.Mutex
	nodes    map[string]*NodeState
	expanded map[string]int // path → generation of its children watch
	watched  map[string]int // path → generation of its data watch
	// refs counts the viewers of each expanded or watched path: a path is
	// followed until the last of them lets go.
	expandRefs map[string]int
	watchRefs  map[string]int
	// counted holds the paths whose child count is kept live (Show), by
	// generation; wantCounted is the set last asked for, started once it
	// has stayed for showDelay.
	counted      map[string]int
	wantCounted  map[string]time.Time // path → since when it is asked for
	countPending bool
	gen          int
	dirty        map[string]struct{}
	flushing     bool
	updates      chan []string
	hist         map[string]*nodeHistory
	// reconnected is closed at the next Connected event, and replaced: a
	// read that failed with its connection waits on it to read again.
	reconnected chan struct{}
	// pw holds the persistent watches (tree_persistent.go).
	pw      *treeWatch
	oneShot bool
}

// NodeState is what the Tree knows of one node. Its Stat is the one a
// read returned, never changed in place: a viewer that finds another Stat
// there than before knows the node was read since (its zxids cannot say
// so on a past that steps back).
type NodeState struct {
	Path           string
	Stat           *zk.Stat // nil until loaded, or when the node is gone
	Children       []string // sorted; set once ChildrenLoaded
	ChildrenLoaded bool
	Data           []byte
	DataLoaded     bool
	Loading        bool
	Err            error // the last read failed (e.g. no such node, no access)
	Changed        time.Time
}

// ReadEvery is how often, at most, the Tree reads again a node it follows
// while the node keeps changing: the events in between are read together,
// and the history counts them from the node's versions. A change after a
// quiet moment is read at once.
const ReadEvery = 100 * time.Millisecond

// gone forgets what was read of a node found deleted, by either of its
// watches: the other may read it only later (ReadEvery), and must not show
// its data or children as current meanwhile.
func (n *NodeState) gone() {
	n.Stat, n.Data, n.DataLoaded, n.Children, n.ChildrenLoaded = nil, nil, false, nil, false
}

// TreeOption tunes a Tree.
type TreeOption func(*Tree)

// TreeReadEvery sets how often, at most, a followed node is read again
// (default ReadEvery).
func TreeReadEvery(d time.Duration) TreeOption { return func(t *Tree) { t.readEvery = d } }

// TreeClock sets the clock that stamps when changes were seen (tests fix
// it); the default is time.Now.
func TreeClock(now func() time.Time) TreeOption { return func(t *Tree) { t.now = now } }

// TreeOneShot keeps the Tree on one-shot watches even where the server
// offers persistent ones (tests of that path).
func TreeOneShot() TreeOption { return func(t *Tree) { t.oneShot = true } }

// NewTree mirrors through c, reporting changes at most once per interval
// (e.g. a frame).
func NewTree(c *Client, interval time.Duration, opts ...TreeOption) *Tree {
	ctx, cancel := context.WithCancel(context.Background())
	t := &Tree{
		client: c, ctx: ctx, cancel: cancel, interval: interval, readEvery: ReadEvery, now: time.Now,
		nodes: map[string]*NodeState{}, expanded: map[string]int{}, watched: map[string]int{},
		expandRefs: map[string]int{}, watchRefs: map[string]int{},
		counted: map[string]int{}, wantCounted: map[string]time.Time{},
		dirty: map[string]struct{}{}, updates: make(chan []string, 1),
		hist: map[string]*nodeHistory{}, reconnected: make(chan struct{}),
	}
	for _, o := range opts {
		o(t)
	}
	t.pw = newTreeWatch(t, t.oneShot)
	go t.followSession()
	return t
}

// Updates delivers the paths that changed, at most once per interval.
func (t *Tree) Updates() <-chan []string { return t.updates }

// Close stops the Tree; its watches fire once more into nothing.
func (t *Tree) Close() { t.cancel() }

// Done is closed when the Tree is.
func (t *Tree) Done() <-chan struct{} { return t.ctx.Done() }

// Get returns a copy of what the Tree knows of path.
func (t *Tree) Get(path string) (NodeState, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.nodes[path]
	if n == nil {
		return NodeState{Path: path}, false
	}
	return *n, true
}

// Expand keeps path's children current, loading them in the background.
// Every Expand needs its own Collapse: several viewers may follow one
// path.
func (t *Tree) Expand(path string) { t.follow(t.expandRefs, t.expanded, path, t.loadChildren) }

// Collapse lets go of one Expand; the children stop being kept current
// when no viewer follows them any more.
func (t *Tree) Collapse(path string) { t.letGo(t.expandRefs, t.expanded, path, childrenSide) }

// Expanded reports how many viewers keep path's children current.
func (t *Tree) Expanded(path string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.expandRefs[path]
}

// Watch keeps path's data and stat current, loading them in the
// background. Every Watch needs its own Unwatch.
func (t *Tree) Watch(path string) { t.follow(t.watchRefs, t.watched, path, t.loadData) }

// Unwatch lets go of one Watch.
func (t *Tree) Unwatch(path string) { t.letGo(t.watchRefs, t.watched, path, dataSide) }

// follow counts one more viewer of path in refs; the first starts load
// under a new generation, recorded in gens.
func (t *Tree) follow(refs, gens map[string]int, path string, load func(string, int)) {
	t.mu.Lock()
	refs[path]++
	if _, ok := gens[path]; ok {
		t.mu.Unlock()
		return
	}
	t.gen++
	gen := t.gen
	gens[path] = gen
	t.node(path).Loading = true
	t.mu.Unlock()
	go load(path, gen)
}

// letGo counts one viewer of path less; with the last gone, the loader
// stops at its next event (its generation is no longer current), and the
// history no longer compares with what it last read.
func (t *Tree) letGo(refs, gens map[string]int, path string, side historySide) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if refs[path]--; refs[path] <= 0 {
		delete(refs, path)
		delete(gens, path)
		t.forget(path, side)
		t.pw.stopSide(path, side)
	}
}

// Refresh reads everything expanded, watched or counted again, e.g. after
// the viewer asks for it.
func (t *Tree) Refresh() {
	t.mu.Lock()
	var children, data, counts []string
	for p := range t.counted {
		t.gen++
		t.counted[p] = t.gen
		counts = append(counts, p)
	}
	for p := range t.expanded {
		t.gen++
		t.expanded[p] = t.gen
		children = append(children, p)
		t.pw.stopSide(p, childrenSide) // the loader of the old generation
	}
	for p := range t.watched {
		t.gen++
		t.watched[p] = t.gen
		data = append(data, p)
		t.pw.stopSide(p, dataSide)
	}
	t.mu.Unlock()
	for _, p := range children {
		go t.loadChildren(p, t.generation(t.expanded, p))
	}
	for _, p := range data {
		go t.loadData(p, t.generation(t.watched, p))
	}
	for _, p := range counts {
		go t.loadCount(p, t.generation(t.counted, p))
	}
}

func (t *Tree) generation(m map[string]int, p string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return m[p]
}

// node returns the state of path, creating it; the caller holds mu.
func (t *Tree) node(path string) *NodeState {
	n := t.nodes[path]
	if n == nil {
		n = &NodeState{Path: path}
		t.nodes[path] = n
	}
	return n
}

// current reports whether gen is still the live watch for path in m.
func (t *Tree) current(m map[string]int, path string, gen int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.currentLocked(m, path, gen)
}

// currentLocked is current for a caller that holds mu. A read whose watch was
// let go meanwhile must not become the history's baseline.
func (t *Tree) currentLocked(m map[string]int, path string, gen int) bool {
	g, ok := m[path]
	return ok && g == gen && t.ctx.Err() == nil
}

func (t *Tree) loadChildren(path string, gen int) {
	if w := t.pw.use(); w != nil && t.loadChildrenPersistent(w, path, gen) {
		return
	}
	var last time.Time
	for t.current(t.expanded, path, gen) {
		if !t.settle(last, t.readEvery, nil) {
			return
		}
		last = time.Now()
		reconnected := t.nextConnect()
		children, stat, w, err := t.client.ChildrenW(t.ctx, path)
		gone := IsNoNode(err)
		if gone {
			// Gone: be told when it comes back.
			var back *zk.Stat
			back, w, err = t.client.ExistsW(t.ctx, path)
			if err == nil && back != nil {
				continue // back already: its exists watch would wait for a change, not the creation
			}
		}
		sort.Strings(children)
		t.mu.Lock()
		n := t.node(path)
		n.Loading, n.Err = false, err
		if err == nil && stat != nil {
			n.Stat, n.Children, n.ChildrenLoaded = stat, children, true
			if t.currentLocked(t.expanded, path, gen) {
				t.record(path, childrenSide, Snapshot{Exists: true, Stat: stat, Children: children, HasChildren: true})
			}
		} else if IsNoNode(n.Err) || w != nil {
			n.gone()
			if gone && err == nil && t.currentLocked(t.expanded, path, gen) {
				t.record(path, childrenSide, Snapshot{})
			}
		}
		t.markDirty(path)
		t.mu.Unlock()
		if err != nil && w == nil {
			if IsConnectionLoss(err) && t.awaitConnect(reconnected) {
				continue
			}
			return // e.g. no access: nothing to watch
		}
		if !t.await(w) {
			return
		}
	}
}

func (t *Tree) loadData(path string, gen int) {
	if w := t.pw.use(); w != nil && t.loadDataPersistent(w, path, gen) {
		return
	}
	var last time.Time
	for t.current(t.watched, path, gen) {
		if !t.settle(last, t.readEvery, nil) {
			return
		}
		last = time.Now()
		reconnected := t.nextConnect()
		data, stat, w, err := t.client.GetW(t.ctx, path)
		if IsNoNode(err) {
			var back *zk.Stat
			back, w, err = t.client.ExistsW(t.ctx, path)
			if err == nil && back != nil {
				continue // back already: read it
			}
			if err == nil {
				err = &PathError{Op: "get", Path: path, Err: zk.ErrNoNode}
			}
		}
		t.mu.Lock()
		n := t.node(path)
		n.Loading, n.Err = false, err
		following := t.currentLocked(t.watched, path, gen)
		if err == nil {
			n.Stat, n.Data, n.DataLoaded = stat, data, true
			if following {
				t.record(path, dataSide, Snapshot{Exists: true, Data: data, HasData: true, Stat: stat})
			}
		} else {
			n.Data, n.DataLoaded = nil, false
			if IsNoNode(err) {
				n.gone()
				if following && w != nil {
					t.record(path, dataSide, Snapshot{})
				}
			}
		}
		t.markDirty(path)
		t.mu.Unlock()
		if w == nil {
			if err != nil && IsConnectionLoss(err) && t.awaitConnect(reconnected) {
				continue
			}
			return
		}
		if !t.await(w) {
			return
		}
	}
}

// settle waits out the rest of every since last (the previous read, zero
// for none), so that the events of a burst are read together: one read an
// interval however many events it holds. False when stop closes (nil:
// never) or the Tree does first.
func (t *Tree) settle(last time.Time, every time.Duration, stop <-chan struct{}) bool {
	wait := every - time.Since(last)
	if last.IsZero() || wait <= 0 {
		return t.ctx.Err() == nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-stop:
		return false
	case <-t.ctx.Done():
		return false
	}
}

// nextConnect returns a channel closed at the next Connected event. Taken
// before a read, it cannot miss a reconnection that comes after the read
// failed.
func (t *Tree) nextConnect() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reconnected
}

// awaitConnect waits for the connection to come back; false when the Tree
// is closed.
func (t *Tree) awaitConnect(reconnected <-chan struct{}) bool {
	select {
	case <-reconnected:
		return true
	case <-t.ctx.Done():
		return false
	}
}

// await waits for a watch to fire; false when the Tree is closed or the
// watch ended with its session (a new session reloads everything).
func (t *Tree) await(w <-chan zk.Event) bool {
	select {
	case ev := <-w:
		return ev.Type != zk.EventNotWatching
	case <-t.ctx.Done():
		return false
	}
}

// followSession wakes the reads that failed with the connection when it
// comes back, and reloads everything when the client had to open a new
// session: the old one's watches died with it.
func (t *Tree) followSession() {
	events := t.client.Events()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.State != Connected {
				continue
			}
			t.mu.Lock()
			close(t.reconnected)
			t.reconnected = make(chan struct{})
			t.mu.Unlock()
			if t.pw.retry() || ev.NewSession {
				t.Refresh()
			}
		case <-t.ctx.Done():
			return
		}
	}
}

// markDirty records a change and schedules one flush per interval; the
// caller holds mu.
func (t *Tree) markDirty(path string) {
	t.nodes[path].Changed = time.Now()
	t.dirty[path] = struct{}{}
	if !t.flushing {
		t.flushing = true
		time.AfterFunc(t.interval, t.flush)
	}
}

// flush delivers the changed paths. A viewer that has not taken the last
// batch gets this one merged into it.
func (t *Tree) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushing = false
	if len(t.dirty) == 0 || t.ctx.Err() != nil {
		return
	}
	batch := make([]string, 0, len(t.dirty))
	for p := range t.dirty {
		batch = append(batch, p)
	}
	select {
	case old := <-t.updates:
		batch = append(batch, old...)
	default:
	}
	t.updates <- batch
	t.dirty = map[string]struct{}{}
}
