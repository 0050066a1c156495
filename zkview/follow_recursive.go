package zkview

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// ChangeGap is not a change of a node: the follower's watch was lost for
// a while (its connection ended) and changes in between are not known.
const ChangeGap ChangeKind = "gap"

// Why a change's data is not shown (Change.NotRead).
const (
	NotReadChangedAgain = "the node changed again before zkx could read it"
	NotReadConnection   = "the watch's connection ended before zkx could read it"
)

// followReadLimit bounds the reads a recursive follower has in flight.
const followReadLimit = 32

// followCacheBytes bounds the data a recursive follower keeps to show a
// change's old data; past it the cache starts again (old data is then
// missing until each node is read anew).
const followCacheBytes = 32 << 20

// FollowRecursive reports every change under path, path included, until
// ctx ends: each node created and deleted and each data change, from one
// persistent recursive watch (ZooKeeper 3.6+), so none is lost however
// close together they come. Each change is read on the watch's own
// session after its notification; a read's answer reflects exactly the
// notifications that came before it, so a change shows its data when the
// node had not changed again by the time zkx read it, and NotRead says
// why not otherwise. Changes are reported in the order the server made
// them.
//
// A server without persistent watches falls back to one-shot watches on
// every node of the subtree (at most maxOneShotNodes), saying so through
// note: changes made between a watch firing and its re-arming are then
// merged. When the watch's connection ends, a ChangeGap is reported and
// the watch is set again on a new session.
func (c *Client) FollowRecursive(ctx context.Context, path string, o FollowOptions, changed func(Change) error) error {
	note, watching := o.Note, o.Watching
	if note == nil {
		note = func(string) {}
	}
	if watching == nil {
		watching = func() {}
	}
	f := &recursiveFollower{client: c, path: path, changed: changed, note: note, cache: map[string]cachedNode{}}
	w, err := f.dial(ctx)
	if errors.Is(err, ErrNoPersistentWatches) {
		note(fmt.Sprintf("%v: following %s with one-shot watches instead, set again after each event; changes made in between are seen as one", err, path))
		return c.followOneShot(ctx, path, watching, changed)
	}
	if err != nil {
		return err
	}
	for {
		watching()
		err := f.run(ctx, w)
		w.Close()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, errFollowStopped) {
			return f.stopErr
		}
		if err := f.emit(Change{Path: path, Kind: ChangeGap, Seen: time.Now(), Time: time.Now(), NotRead: err.Error()}); err != nil {
			return err
		}
		note(fmt.Sprintf("the watch on %s ended (%v): setting it again; changes until then are not known", path, err))
		f.cache = map[string]cachedNode{}
		for {
			w, err = f.dial(ctx)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// FollowOptions tunes FollowRecursive.
type FollowOptions struct {
	// Note receives what the follower has to say beside the changes: a
	// fallback to one-shot watches, a watch set again after its
	// connection ended.
	Note func(string)
	// Watching is called when the watch is in place (and again after it
	// was set again): changes from then on are reported. With one-shot
	// watches it is called once every node's follower has started.
	Watching func()
}

// errFollowStopped is changed returning an error: the follower stops.
var errFollowStopped = errors.New("stopped")

type cachedNode struct {
	data  []byte
	owner int64
}

type recursiveFollower struct {
	client  *Client
	path    string
	changed func(Change) error
	note    func(string)
	stopErr error

	cache      map[string]cachedNode
	cacheBytes int
}

func (f *recursiveFollower) dial(ctx context.Context) (*Watcher, error) {
	w, err := f.client.DialWatcher(ctx)
	if err != nil {
		return nil, err
	}
	if err := w.Add(ctx, f.path, true); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func (f *recursiveFollower) emit(ch Change) error {
	if err := f.changed(ch); err != nil {
		f.stopErr = err
		return errFollowStopped
	}
	return nil
}

// nodeRead is one read of a node on the watch's session.
type nodeRead struct {
	seen uint64 // the last notification before its answer
	data []byte
	stat *zk.Stat
	err  error
}

// run follows on one Watcher until it ends (its error) or ctx does.
func (f *recursiveFollower) run(ctx context.Context, w *Watcher) error {
	var pending []WatchEvent
	reads := map[string][]nodeRead{} // by path, oldest first
	for {
		if len(pending) == 0 {
			ev, err := w.Next(ctx)
			if err != nil {
				return err
			}
			pending = append(pending, ev)
		}
		pending = append(pending, w.Pending()...)
		need := f.unresolved(pending, reads)
		lost := false
		if len(need) > 0 {
			lost = f.read(ctx, w, need, reads)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// Every notification a read's answer reflects came before
			// it: take them before deciding what each read shows.
			pending = append(pending, w.Pending()...)
		}
		lost = lost || w.Err() != nil
		n, err := f.flush(pending, reads, lost)
		if err != nil {
			return err
		}
		pending = pending[n:]
		if lost {
			return connectionEnded(w)
		}
		forgetReads(reads, pending)
	}
}

// unresolved lists the paths whose latest pending creation or data change
// has no read made after it.
func (f *recursiveFollower) unresolved(pending []WatchEvent, reads map[string][]nodeRead) []string {
	latest := map[string]WatchEvent{}
	for _, ev := range pending {
		latest[ev.Path] = ev
	}
	var need []string
	for p, ev := range latest {
		if ev.Type != NodeCreated && ev.Type != NodeDataChanged {
			continue
		}
		rs := reads[p]
		if len(rs) == 0 || rs[len(rs)-1].seen < ev.Seq {
			need = append(need, p)
		}
	}
	return need
}

// connectionEnded is why a Watcher's connection ended, once it has.
func connectionEnded(w *Watcher) error {
	select {
	case <-w.Done():
		return w.Err()
	case <-time.After(time.Second):
		return errors.New("a read on the watch's session went unanswered")
	}
}

// read reads paths on the watch's session, at most followReadLimit at
// once; lost reports that a read found the connection gone.
func (f *recursiveFollower) read(ctx context.Context, w *Watcher, paths []string, reads map[string][]nodeRead) (lost bool) {
	got := make([]nodeRead, len(paths))
	eachBounded(len(paths), followReadLimit, func(i int) {
		data, stat, seen, err := w.Get(ctx, paths[i])
		got[i] = nodeRead{seen: seen, data: data, stat: stat, err: err}
	})
	for i, p := range paths {
		if got[i].err != nil && got[i].seen == 0 && !IsNoNode(got[i].err) && !IsNoAuth(got[i].err) {
			lost = lost || ctx.Err() == nil // no answer: the connection went
			continue
		}
		reads[p] = append(reads[p], got[i])
	}
	return lost
}

// flush reports the pending events it can settle, from the first on, and
// returns how many. A creation or data change is settled by a read whose
// answer came after it and before the node's next notification (it then
// shows the node as the change left it), or by that next notification
// (the change's data is lost: the node changed again first). lost says
// the watch's connection ended: what is not settled by now never will be.
func (f *recursiveFollower) flush(pending []WatchEvent, reads map[string][]nodeRead, lost bool) (int, error) {
	next := make([]uint64, len(pending)) // Seq of the same node's next event, 0 for none
	last := map[string]int{}
	for i := len(pending) - 1; i >= 0; i-- {
		if j, ok := last[pending[i].Path]; ok {
			next[i] = pending[j].Seq
		}
		last[pending[i].Path] = i
	}
	for i, ev := range pending {
		ch := Change{Path: ev.Path, Seen: ev.Seen, Time: ev.Seen}
		switch ev.Type {
		case NodeDeleted:
			ch.Kind = ChangeDeleted
			if was, ok := f.cache[ev.Path]; ok {
				ch.Old, ch.Owner = was.data, was.owner
			}
			f.forget(ev.Path)
		case NodeCreated, NodeDataChanged:
			ch.Kind = ChangeData
			if ev.Type == NodeCreated {
				ch.Kind = ChangeCreated
			}
			r, ok := readBetween(reads[ev.Path], ev.Seq, next[i])
			switch {
			case ok && IsNoNode(r.err):
				ch.NotRead = NotReadChangedAgain // gone: its deletion's notification comes next
				f.forget(ev.Path)
			case ok && r.err != nil:
				ch.NotRead = r.err.Error()
				f.forget(ev.Path)
			case ok:
				f.fill(&ch, r)
			case next[i] != 0:
				ch.NotRead = NotReadChangedAgain
				f.forget(ev.Path)
			case lost:
				ch.NotRead = NotReadConnection
				f.forget(ev.Path)
			default:
				return i, nil // its read is still to come
			}
		default:
			continue // a recursive watch sends no child events; nothing to say
		}
		if err := f.emit(ch); err != nil {
			return i, err
		}
	}
	return len(pending), nil
}

// readBetween finds a read answered after notification seq and before
// notification next (0: none yet).
func readBetween(rs []nodeRead, seq, next uint64) (nodeRead, bool) {
	for _, r := range rs {
		if r.seen >= seq && (next == 0 || r.seen < next) {
			return r, true
		}
	}
	return nodeRead{}, false
}

// fill completes a creation or data change with what its read found, and
// keeps the data to show as the old data of the node's next change.
func (f *recursiveFollower) fill(ch *Change, r nodeRead) {
	old, had := f.cache[ch.Path]
	ch.New, ch.Version = r.data, r.stat.Version
	if ch.Kind == ChangeCreated {
		ch.Zxid, ch.Time = r.stat.Czxid, time.UnixMilli(r.stat.Ctime)
		if IsSessionOwner(r.stat.EphemeralOwner) {
			ch.Owner = r.stat.EphemeralOwner
		}
	} else {
		ch.Zxid, ch.Time = r.stat.Mzxid, time.UnixMilli(r.stat.Mtime)
		if had {
			ch.Old = old.data
		} else {
			ch.NoOld = true
		}
	}
	f.forget(ch.Path)
	if f.cacheBytes+len(r.data) > followCacheBytes {
		f.cache, f.cacheBytes = map[string]cachedNode{}, 0
	}
	owner := int64(0)
	if IsSessionOwner(r.stat.EphemeralOwner) {
		owner = r.stat.EphemeralOwner
	}
	f.cache[ch.Path] = cachedNode{data: r.data, owner: owner}
	f.cacheBytes += len(r.data)
}

func (f *recursiveFollower) forget(path string) {
	if was, ok := f.cache[path]; ok {
		f.cacheBytes -= len(was.data)
		delete(f.cache, path)
	}
}

// forgetReads drops the reads no pending event can use any more.
func forgetReads(reads map[string][]nodeRead, pending []WatchEvent) {
	first := map[string]uint64{}
	for _, ev := range pending {
		if _, ok := first[ev.Path]; !ok {
			first[ev.Path] = ev.Seq
		}
	}
	for p, rs := range reads {
		seq, ok := first[p]
		if !ok {
			delete(reads, p)
			continue
		}
		keep := rs[:0]
		for _, r := range rs {
			if r.seen >= seq {
				keep = append(keep, r)
			}
		}
		reads[p] = keep
	}
}
