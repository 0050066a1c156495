package tui

import (
	"context"
	"errors"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// How a recipe list stays live after its scan: every directory of every
// listed recipe (Recipe.Dirs) is expanded in the live tree, which
// keeps a child watch on it. When the tree reports one whose Pzxid moved
// (a child came or went), the recipe is recognised again in a command, one
// recognition per recipe at a time, and its row updated (and flashed). A
// recipe whose directory is gone drops out; new recipes appear only on a
// rescan (ctrl+r): nothing watches the whole tree.
//
// Rows that show who is connected and who watches what also need the
// servers' tables, which have no watches. They are asked again at most
// once per introspectEvery while recipes change, a little after the
// change (so the new waiter's watch is there to see), and never while
// nothing changes. Until then a changed recipe is recognised with the
// old tables read optimistically (interimTables).
const (
	introspectEvery  = time.Second
	introspectSettle = 200 * time.Millisecond
	// settleRetries bounds how often a recipe whose waiter's watch the
	// tables did not show yet is asked about again: a client sets its
	// watch a moment after its node, later still on a loaded machine.
	settleRetries = 5
	// recognizeTimeout bounds one recognition of one recipe.
	recognizeTimeout = 30 * time.Second
)

// liveState is what following the listed recipes takes.
type liveState struct {
	followed map[string]bool     // directories this page expanded
	owners   map[string][]string // directory → the recipes it belongs to
	dirs     map[string][]string // recipe → its directories
	// seen is each directory's Pzxid the recipe was last read against.
	seen  map[string]int64
	busy  map[string]bool // recipe → a recognition is out
	again map[string]bool // recipe → changed while it was
	// changed are the recipes changed since the last introspection
	// began, asking those changed before the one out began.
	changed, asking map[string]bool
	lastChange      time.Time

	introspector         introspector
	tables               recognize.ServerTables // introspector.last's
	introspectionPending bool                   // an introspectionDueMsg is on its way
	// unsettled counts, per recipe, the askings that did not yet show a
	// waiter's watch (see settleRetries).
	unsettled map[string]int
}

func newLiveState() liveState {
	return liveState{followed: map[string]bool{}, owners: map[string][]string{}, dirs: map[string][]string{},
		seen: map[string]int64{}, busy: map[string]bool{}, again: map[string]bool{},
		changed: map[string]bool{}, asking: map[string]bool{}, unsettled: map[string]int{}}
}

// scanned takes a finished scan's recipes, follows them, and reads again
// those whose directories changed since the scan read them.
func (p *recipeListPage) scanned(msg scanMsg) tea.Cmd {
	now := p.shared.Now()
	p.scan.running, p.scan.done = false, true
	p.scan.took, p.scan.found, p.scan.foundBy = now.Sub(p.scan.started), msg.nodes, msg.res.FoundBy
	p.scan.err, p.scan.partial = msg.err, msg.res.Partial
	if p.kind.tables() && (msg.snapshot != nil || msg.snapshotErr != nil) {
		p.setIntrospection(msg.snapshot, msg.snapshotErr, p.scan.started, now)
		// The scan read every recipe with these tables.
		p.live.changed = map[string]bool{}
	}
	var status tea.Cmd
	if msg.err != nil {
		status = failureLine(msg.err)
		if !msg.res.Partial {
			return status // nothing read: what is listed stays
		}
	}
	found := p.kind.pick(msg.res)
	order := make([]string, 0, len(found))
	inScan := make(map[string]bool, len(found))
	for _, v := range found {
		path := v.Info().Path
		order = append(order, path)
		inScan[path] = true
		p.recipes[path] = v
		delete(p.errs, path)
		p.follow(path, v)
	}
	for _, path := range p.order {
		switch {
		case inScan[path]:
		case msg.res.Partial:
			// Perhaps in the part that could not be read: kept.
			order = append(order, path)
		default:
			p.drop(path)
		}
	}
	p.order = order
	var stale []string
	for _, v := range found {
		path := v.Info().Path
		changed := false
		for _, dir := range p.live.dirs[path] {
			if pz, ok := msg.pzxid[dir]; ok {
				p.live.seen[dir] = pz
			} else {
				delete(p.live.seen, dir)
			}
			if p.shared.Tree != nil && p.dirChanged(dir) {
				changed = true
			}
		}
		if changed {
			stale = append(stale, path)
		}
	}
	p.rebuild()
	cmds := []tea.Cmd{status}
	for _, path := range stale {
		cmds = append(cmds, p.recognize(path))
	}
	for _, path := range order {
		if !slices.Contains(stale, path) {
			// Read with the tables asked for while the tree was
			// walked: a waiter listed there may have set its watch
			// after them, and nothing in the tree changes when it does.
			cmds = append(cmds, p.settle(path))
		}
	}
	return tea.Batch(cmds...)
}

// setIntrospection keeps an answer of the servers.
func (p *recipeListPage) setIntrospection(in *introspect.Snapshot, err error, asked, answered time.Time) {
	r := &p.live.introspector
	r.started, r.answered = asked, answered
	if err != nil || in == nil {
		r.err = err
		return
	}
	r.last, r.err = in, nil
	p.live.tables = in.Tables()
}

// follow keeps the directories of a recipe expanded in the live tree:
// those it has now, no longer those it had.
func (p *recipeListPage) follow(path string, v recognize.Recipe) {
	l := &p.live
	dirs := v.Dirs()
	for _, dir := range l.dirs[path] {
		if !slices.Contains(dirs, dir) {
			p.unown(dir, path)
		}
	}
	for _, dir := range dirs {
		if !slices.Contains(l.owners[dir], path) {
			l.owners[dir] = append(l.owners[dir], path)
		}
		if !l.followed[dir] {
			l.followed[dir] = true
			p.shared.expand(dir)
		}
	}
	l.dirs[path] = dirs
}

// unown lets go of dir for path, and of dir when no recipe needs it.
func (p *recipeListPage) unown(dir, path string) {
	l := &p.live
	l.owners[dir] = slices.DeleteFunc(l.owners[dir], func(s string) bool { return s == path })
	if len(l.owners[dir]) > 0 {
		return
	}
	delete(l.owners, dir)
	delete(l.seen, dir)
	if l.followed[dir] {
		delete(l.followed, dir)
		p.shared.collapse(dir)
	}
}

// drop removes a recipe from the list.
func (p *recipeListPage) drop(path string) {
	for _, dir := range p.live.dirs[path] {
		p.unown(dir, path)
	}
	delete(p.live.dirs, path)
	delete(p.recipes, path)
	delete(p.errs, path)
	delete(p.live.again, path)
	delete(p.live.changed, path)
	p.order = slices.DeleteFunc(p.order, func(s string) bool { return s == path })
}

// unfollowAll lets go of every directory (the page closes).
func (p *recipeListPage) unfollowAll() {
	for dir := range p.live.followed {
		p.shared.collapse(dir)
	}
	p.live.followed = map[string]bool{}
	p.live.owners = map[string][]string{}
	p.live.dirs = map[string][]string{}
}

// dirChanged reports whether the tree shows dir's children changed since
// its recipe was last read; a directory still loading has not.
func (p *recipeListPage) dirChanged(dir string) bool {
	if p.shared.Tree == nil {
		return true // tests without a server: every report is a change
	}
	n, _ := p.shared.Tree.Get(dir)
	if n.Stat == nil {
		return !n.Loading // gone, or unreadable: read it to say so
	}
	if seen, ok := p.live.seen[dir]; ok && seen == n.Stat.Pzxid {
		return false
	}
	p.live.seen[dir] = n.Stat.Pzxid
	return true
}

// treeChanged reads again the recipes whose directories changed.
func (p *recipeListPage) treeChanged(paths treeMsg) tea.Cmd {
	if len(p.live.owners) == 0 {
		return nil
	}
	stale := map[string]bool{}
	for _, dir := range paths {
		owners := p.live.owners[dir]
		if len(owners) == 0 || !p.dirChanged(dir) {
			continue
		}
		for _, path := range owners {
			stale[path] = true
		}
	}
	if len(stale) == 0 {
		return nil
	}
	p.live.lastChange = p.shared.Now()
	var cmds []tea.Cmd
	for _, path := range p.order { // in list order, so tests see one order
		if stale[path] {
			if p.kind.tables() {
				p.live.changed[path] = true
			}
			cmds = append(cmds, p.recognize(path))
		}
	}
	return tea.Batch(append(cmds, p.maybeIntrospect())...)
}

// recognize reads one recipe again, unless a read of it is out (then it
// is read again when that one is back).
func (p *recipeListPage) recognize(path string) tea.Cmd {
	l := &p.live
	if l.busy[path] {
		l.again[path] = true
		return nil
	}
	l.busy[path] = true
	opts := p.shared.scanOptions(p.tablesFor(path))
	src, ctx, owner := p.src, p.pageCtx, p
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, recognizeTimeout)
		defer cancel()
		v, err := src.recognize(ctx, path, opts)
		return recognizedMsg{owner: owner, path: path, recipe: v, err: err}
	}
}

// tablesFor is the tables a recipe is read with: nil for a kind that
// needs none, read optimistically while the recipe changed after them.
func (p *recipeListPage) tablesFor(path string) recognize.ServerTables {
	t := p.live.tables
	if !p.kind.tables() || t == nil {
		return nil
	}
	if p.live.changed[path] || p.live.asking[path] {
		return interimTables{t}
	}
	return t
}

// recognized takes a recipe read again.
func (p *recipeListPage) recognized(msg recognizedMsg) tea.Cmd {
	l := &p.live
	delete(l.busy, msg.path)
	old, listed := p.recipes[msg.path]
	if !listed {
		delete(l.again, msg.path)
		return nil
	}
	switch {
	case zkview.IsNoNode(msg.err):
		p.drop(msg.path)
	case errors.Is(msg.err, context.Canceled) && p.pageCtx.Err() != nil:
		return nil // closing
	case msg.err != nil:
		p.errs[msg.path] = msg.err
	case p.kind.is(msg.recipe) && msg.recipe.Info().Path == msg.path:
		p.recipes[msg.path] = msg.recipe
		delete(p.errs, msg.path)
		p.follow(msg.path, msg.recipe)
	default:
		// No longer a recipe of the kind: free, empty, leaderless.
		p.recipes[msg.path] = old.Emptied()
		delete(p.errs, msg.path)
	}
	p.rebuild()
	if l.again[msg.path] {
		delete(l.again, msg.path)
		return p.recognize(msg.path)
	}
	return p.settle(msg.path)
}

// settle asks the servers again, a few times, about a recipe read with
// tables that do not show a waiter's watch yet: its client sets the watch
// a moment after it creates its node, and nothing in the tree changes when
// it does, so the row would keep the warning until the next change.
func (p *recipeListPage) settle(path string) tea.Cmd {
	l := &p.live
	r, ok := p.recipes[path]
	if !ok || !p.kind.tables() || l.tables == nil || !waitsUnseen(r) {
		delete(l.unsettled, path)
		return nil
	}
	if l.unsettled[path] >= settleRetries {
		return nil // the watch is missing for real: the warning stands
	}
	l.unsettled[path]++
	l.changed[path] = true
	l.lastChange = p.shared.Now()
	return p.maybeIntrospect()
}

// waitsUnseen reports whether a waiter of r waits for a node with a watch
// the servers' tables do not show.
func waitsUnseen(r recognize.Recipe) bool {
	for _, pl := range r.Lineup() {
		if pl.WaitsFor != "" && pl.Watch == recognize.WatchInferred {
			return true
		}
	}
	return false
}

// maybeIntrospect asks the servers again for the recipes that changed,
// when the rate limit allows, else sets a tick for when it does.
func (p *recipeListPage) maybeIntrospect() tea.Cmd {
	l := &p.live
	if !p.kind.tables() || len(l.changed) == 0 || l.introspector.busy || l.introspectionPending {
		return nil
	}
	now := p.shared.Now()
	due := l.introspector.started.Add(introspectEvery)
	if settle := l.lastChange.Add(introspectSettle); settle.After(due) {
		due = settle
	}
	if now.Before(due) {
		l.introspectionPending = true
		return p.after(due.Sub(now), introspectionDueMsg{owner: p})
	}
	l.asking, l.changed = l.changed, map[string]bool{}
	return l.introspector.start(p.pageCtx, now)
}

// introspected reads again, with the new tables, the recipes that
// changed before the servers were asked.
func (p *recipeListPage) introspected() tea.Cmd {
	l := &p.live
	asking := l.asking
	l.asking = map[string]bool{}
	if l.introspector.err != nil {
		// Keep the optimistic reads; ask again on the next change.
		return p.maybeIntrospect()
	}
	l.tables = l.introspector.last.Tables()
	var cmds []tea.Cmd
	for _, path := range p.order {
		if asking[path] && !l.changed[path] {
			cmds = append(cmds, p.recognize(path))
		}
	}
	return tea.Batch(append(cmds, p.maybeIntrospect())...)
}

// interimTables read tables older than the recipe: a session they do not
// list may have connected since, so "not connected" and "not watching"
// are not known until the servers are asked again.
type interimTables struct{ recognize.ServerTables }

func (t interimTables) Connected(s int64) (bool, bool) {
	if c, known := t.ServerTables.Connected(s); c || !known {
		return c, known
	}
	return false, false
}

func (t interimTables) Watchers(path string) ([]int64, bool) {
	w, _ := t.ServerTables.Watchers(path)
	return w, false
}

func (t interimTables) Watches(s int64, path string) (bool, bool) {
	if w, known := t.ServerTables.Watches(s, path); w || !known {
		return w, known
	}
	return false, false
}
