package zkserver

import "github.com/zkx-dev/zkx/internal/jute"

type watchMode uint8

const (
	watchStandard watchMode = iota // one-shot
	watchPersistent
	watchPersistentRecursive
)

// watchTable is one of ZooKeeper's two watch managers (data watches and child
// watches): each watcher holds at most one mode per path.
type watchTable struct {
	byPath    map[string]map[*conn]watchMode
	byConn    map[*conn]map[string]struct{}
	recursive int // registrations in recursive mode; when 0, parents are not scanned
	total     int // registrations (watcher and path pairs), for MaxWatches
}

func newWatchTable() *watchTable {
	return &watchTable{byPath: map[string]map[*conn]watchMode{}, byConn: map[*conn]map[string]struct{}{}}
}

func (w *watchTable) add(path string, c *conn, mode watchMode) {
	watchers := w.byPath[path]
	if watchers == nil {
		watchers = map[*conn]watchMode{}
		w.byPath[path] = watchers
	}
	if old, ok := watchers[c]; !ok {
		w.total++
	} else if old == watchPersistentRecursive {
		w.recursive--
	}
	watchers[c] = mode
	if mode == watchPersistentRecursive {
		w.recursive++
	}
	paths := w.byConn[c]
	if paths == nil {
		paths = map[string]struct{}{}
		w.byConn[c] = paths
	}
	paths[path] = struct{}{}
}

// remove drops c's watch on path; it reports whether there was one.
func (w *watchTable) remove(path string, c *conn) bool {
	watchers := w.byPath[path]
	mode, ok := watchers[c]
	if !ok {
		return false
	}
	if mode == watchPersistentRecursive {
		w.recursive--
	}
	w.total--
	delete(watchers, c)
	if len(watchers) == 0 {
		delete(w.byPath, path)
	}
	if paths := w.byConn[c]; paths != nil {
		delete(paths, path)
		if len(paths) == 0 {
			delete(w.byConn, c)
		}
	}
	return true
}

// removeConn drops every watch of a closed connection.
func (w *watchTable) removeConn(c *conn) {
	for path := range w.byConn[c] {
		w.remove(path, c)
	}
}

// trigger collects the watchers an event on path reaches and consumes the
// one-shot ones, as WatchManager.triggerWatch does: recursive watches on
// path or an ancestor see every event but NodeChildrenChanged; other watches
// only see events on their own path.
func (w *watchTable) trigger(path string, eventType jute.EventType) map[*conn]struct{} {
	out := map[*conn]struct{}{}
	consider := func(p string, atPath bool) {
		for c, mode := range w.byPath[p] {
			switch {
			case mode == watchPersistentRecursive:
				if eventType != jute.EventNodeChildrenChanged {
					out[c] = struct{}{}
				}
			case atPath:
				out[c] = struct{}{}
				if mode == watchStandard {
					w.remove(p, c)
				}
			}
		}
	}
	consider(path, true)
	if w.recursive > 0 {
		for p := path; p != "/"; {
			p, _ = splitPath(p)
			consider(p, false)
		}
	}
	return out
}

// watchSummary counts connections, paths and watches (wchs).
func (w *watchTable) watchSummary() (conns, paths, total int) {
	for _, ps := range w.byConn {
		total += len(ps)
	}
	return len(w.byConn), len(w.byPath), total
}

// watches pairs ZooKeeper's data-watch and child-watch tables. getData and
// exists watch in the first, getChildren in the second, addWatch in both.
type watches struct {
	data  *watchTable
	child *watchTable
}

func newWatches() *watches { return &watches{data: newWatchTable(), child: newWatchTable()} }

// count is how many watches are set, in both tables.
func (w *watches) count() int { return w.data.total + w.child.total }

func (w *watches) removeConn(c *conn) {
	w.data.removeConn(c)
	w.child.removeConn(c)
}

// notify turns one tree change into notifications, in ZooKeeper's order: the
// node's own event first, then its parent's NodeChildrenChanged. A watcher
// holding both a data and a child watch on a deleted node hears of it once.
func (w *watches) notify(ch change, send func(c *conn, eventType jute.EventType, path string)) {
	deliver := func(set map[*conn]struct{}, eventType jute.EventType, path string, skip map[*conn]struct{}) {
		for c := range set {
			if _, ok := skip[c]; !ok {
				send(c, eventType, path)
			}
		}
	}
	parent, _ := splitPath(ch.path)
	switch ch.kind {
	case changeCreated:
		deliver(w.data.trigger(ch.path, jute.EventNodeCreated), jute.EventNodeCreated, ch.path, nil)
		deliver(w.child.trigger(parent, jute.EventNodeChildrenChanged), jute.EventNodeChildrenChanged, parent, nil)
	case changeDeleted:
		seen := w.data.trigger(ch.path, jute.EventNodeDeleted)
		deliver(seen, jute.EventNodeDeleted, ch.path, nil)
		deliver(w.child.trigger(ch.path, jute.EventNodeDeleted), jute.EventNodeDeleted, ch.path, seen)
		deliver(w.child.trigger(parent, jute.EventNodeChildrenChanged), jute.EventNodeChildrenChanged, parent, nil)
	case changeData:
		deliver(w.data.trigger(ch.path, jute.EventNodeDataChanged), jute.EventNodeDataChanged, ch.path, nil)
	}
}
