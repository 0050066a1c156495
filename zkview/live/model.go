package live

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

const (
	// RecognizeEvery is how often, at most, a recipe whose directories
	// keep changing is recognised again: a recognition reads every
	// contender, so under churn it runs at this pace, not once per event.
	RecognizeEvery = 250 * time.Millisecond
	// TablesEvery is the least time between two questions to the servers
	// while recipes change.
	TablesEvery = time.Second
	// TablesSettle is how long after a change the servers are asked, so
	// that the new waiter's watch is set by then.
	TablesSettle = 200 * time.Millisecond
	// SettleRetries bounds how often a recipe whose waiter's watch the
	// tables did not show yet is asked about again: a client sets its
	// watch a moment after its node, later still on a loaded machine.
	SettleRetries = 5
	// RecognizeTimeout bounds one recognition of one recipe.
	RecognizeTimeout = 30 * time.Second
)

// Tree is what a Model needs of the watched tree; *zkview.Tree has it.
type Tree interface {
	Expand(dir string)
	Collapse(dir string)
	Get(path string) (zkview.NodeState, bool)
}

// Config is what a Model reads with and how it runs.
type Config struct {
	// Recognize reads one directory (recognize.Dir on the viewer's
	// client, or canned answers in tests).
	Recognize func(ctx context.Context, dir string, opts recognize.Options) (recognize.Recipe, error)
	// Introspect asks the servers for their tables; nil for recipes that
	// need none (queues): then none is ever asked.
	Introspect func(ctx context.Context) (*introspect.Snapshot, error)
	// Tree is followed for the recipes' directories; nil (tests without a
	// server) takes every change reported as a change.
	Tree Tree
	// Options are the recognition options as of now (clock, held-too-long
	// threshold, HoldClock, viewer's session); the Model sets Tables.
	Options func() recognize.Options
	// Accept says whether what a recognition of path found still belongs
	// in the Model (a list of locks keeps locks only); nil accepts
	// anything. What is not accepted shows as the recipe emptied.
	Accept func(path string, r recognize.Recipe) bool
	// Notify is called, never under the Model's lock, after its state
	// changed; it must not block.
	Notify func()
	// Now is the clock the Snapshot's times are read on (default
	// time.Now): the viewer's, which may stand still (a moment of the
	// past, a test's fixed time).
	Now func() time.Time
	// Pace is the clock the Model paces its reads by (default time.Now):
	// it must move.
	Pace func() time.Time
	// Go runs work off the caller's goroutine (default: go f()); After
	// runs f after d (default time.AfterFunc). Tests run both at once.
	Go    func(f func())
	After func(d time.Duration, f func())
	// RecognizeEvery, TablesEvery and TablesSettle override the defaults.
	RecognizeEvery, TablesEvery, TablesSettle time.Duration
}

// Entry is one recipe directory as the Model holds it.
type Entry struct {
	Path string
	// Recipe is what its last recognition found; nil: not a recipe (a
	// directory followed with Follow), or not read yet (Loaded false).
	Recipe recognize.Recipe
	// Err is why the last recognition failed (Recipe is the one before).
	Err    error
	Gone   bool // the directory does not exist (a followed one stays)
	Loaded bool // recognised at least once
}

// Snapshot is the Model at one moment.
type Snapshot struct {
	// Order is the recipes in the order they were given.
	Order   []string
	Entries map[string]Entry
	// Tables is the servers' last answer (nil before any); TablesErr why
	// the last question failed (Tables is then older). TablesAsked and
	// TablesAnswered are when.
	Tables                      *introspect.Snapshot
	TablesErr                   error
	TablesAsked, TablesAnswered time.Time
	// Version increases with every change.
	Version uint64
}

// Model keeps recipes current; see the package comment. Safe for
// concurrent use.
type Model struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	order   []string
	entries map[string]*entry
	// followed are the directories expanded in the Tree; owners says
	// which recipes each belongs to; seen is each one's Pzxid the
	// recipes were last read against.
	followed map[string]bool
	owners   map[string][]string
	seen     map[string]int64
	tables   tablesState
	version  uint64
	closed   bool
}

// entry is an Entry and the pace of its recognitions.
type entry struct {
	Entry
	pinned  bool     // Follow's: stays when its directory is gone
	dirs    []string // the directories it is followed by
	busy    bool     // a recognition is out
	again   bool     // it changed while one was
	waiting bool     // a recognition is put off until RecognizeEvery passed
	started time.Time
	// unsettled counts the questions that did not show a waiter's watch
	// yet (SettleRetries).
	unsettled int
}

// New returns a Model holding nothing.
func New(cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Pace == nil {
		cfg.Pace = time.Now
	}
	if cfg.Go == nil {
		cfg.Go = func(f func()) { go f() }
	}
	if cfg.After == nil {
		cfg.After = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
	}
	if cfg.Options == nil {
		cfg.Options = func() recognize.Options { return recognize.Options{} }
	}
	if cfg.Notify == nil {
		cfg.Notify = func() {}
	}
	if cfg.RecognizeEvery <= 0 {
		cfg.RecognizeEvery = RecognizeEvery
	}
	if cfg.TablesEvery <= 0 {
		cfg.TablesEvery = TablesEvery
	}
	if cfg.TablesSettle <= 0 {
		cfg.TablesSettle = TablesSettle
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Model{cfg: cfg, ctx: ctx, cancel: cancel, entries: map[string]*entry{},
		followed: map[string]bool{}, owners: map[string][]string{}, seen: map[string]int64{},
		tables: newTablesState()}
}

// Close lets go of every directory and stops the work in flight.
func (m *Model) Close() {
	m.mu.Lock()
	m.closed = true
	dirs := make([]string, 0, len(m.followed))
	for dir := range m.followed {
		dirs = append(dirs, dir)
	}
	m.followed, m.owners, m.entries, m.order = map[string]bool{}, map[string][]string{}, map[string]*entry{}, nil
	m.mu.Unlock()
	m.cancel()
	if m.cfg.Tree != nil {
		for _, dir := range dirs {
			m.cfg.Tree.Collapse(dir)
		}
	}
}

// Snapshot returns the Model's state now.
func (m *Model) Snapshot() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Snapshot{Order: slices.Clone(m.order), Entries: make(map[string]Entry, len(m.entries)), Version: m.version,
		Tables: m.tables.last, TablesErr: m.tables.err, TablesAsked: m.tables.asked, TablesAnswered: m.tables.answered}
	for p, e := range m.entries {
		s.Entries[p] = e.Entry
	}
	return s
}

// Version increases with every change: a viewer compares it with the
// Snapshot it drew.
func (m *Model) Version() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version
}

// Followed returns the directories the Model keeps expanded in the Tree,
// sorted.
func (m *Model) Followed() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.followed))
	for dir := range m.followed {
		out = append(out, dir)
	}
	slices.Sort(out)
	return out
}

// Found is a scan's outcome for the Model (Set).
type Found struct {
	// Recipes are those the scan found, in order.
	Recipes []recognize.Recipe
	// Partial keeps the recipes held that the scan did not list (perhaps
	// in the part it could not read); otherwise they are let go.
	Partial bool
	// Pzxid is each listed directory's Pzxid as the scan read it: a
	// directory whose Pzxid moved since is recognised again.
	Pzxid map[string]int64
	// Tables, when set (or TablesErr), are the servers' answer that the
	// scan used, asked at TablesAsked.
	Tables      *introspect.Snapshot
	TablesErr   error
	TablesAsked time.Time
}

// Set takes a finished scan's recipes, follows them, and recognises again
// those whose directories changed since the scan read them.
func (m *Model) Set(f Found) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var work []func()
	if f.Tables != nil || f.TablesErr != nil {
		m.tables.answer(f.Tables, f.TablesErr, f.TablesAsked, m.cfg.Now())
		m.tables.askedPace = m.cfg.Pace()
		m.tables.changed = map[string]bool{} // the scan read every recipe with these tables
	}
	order := make([]string, 0, len(f.Recipes))
	inScan := make(map[string]bool, len(f.Recipes))
	for _, r := range f.Recipes {
		path := r.Info().Path
		if inScan[path] {
			continue
		}
		order = append(order, path)
		inScan[path] = true
		e := m.entry(path)
		e.Recipe, e.Err, e.Gone, e.Loaded = r, nil, false, true
		m.follow(e, r.Dirs())
	}
	for _, path := range m.order {
		switch {
		case inScan[path]:
		case f.Partial || m.entries[path] != nil && m.entries[path].pinned:
			order = append(order, path)
		default:
			m.drop(path)
		}
	}
	m.order = order
	for _, r := range f.Recipes {
		path := r.Info().Path
		changed := false
		for _, dir := range m.entries[path].dirs {
			if pz, ok := f.Pzxid[dir]; ok {
				m.seen[dir] = pz
			} else {
				delete(m.seen, dir)
			}
			if m.cfg.Tree != nil && m.dirChanged(dir) {
				changed = true
			}
		}
		if changed {
			work = append(work, m.recognizeLocked(path)...)
		} else {
			// Read with the scan's tables: a waiter's watch may not be
			// in them yet (settleLocked).
			work = append(work, m.settleLocked(m.entries[path])...)
		}
	}
	m.changedLocked()
	m.mu.Unlock()
	m.dispatch(work)
}

// Follow keeps dir current whatever it holds: recognised now (after the
// servers answer, when the recipes need their tables), and again when its
// children change; it stays when it is gone or holds no recipe (a recipe
// page on a directory).
func (m *Model) Follow(dir string) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	e := m.entry(dir)
	e.pinned = true
	if !slices.Contains(m.order, dir) {
		m.order = append(m.order, dir)
	}
	m.follow(e, []string{dir})
	work := m.readAgainLocked([]string{dir})
	m.changedLocked()
	m.mu.Unlock()
	m.dispatch(work)
}

// readAgainLocked recognises paths again: once the servers answered, when
// the recipes need their tables (one question for all), else now. The
// caller holds mu.
func (m *Model) readAgainLocked(paths []string) []func() {
	if m.cfg.Introspect == nil {
		var work []func()
		for _, path := range paths {
			work = append(work, m.recognizeLocked(path)...)
		}
		return work
	}
	for _, path := range paths {
		m.tables.changed[path] = true
	}
	if m.tables.busy {
		return nil // read with the answer to the question out, or the next
	}
	return m.askTablesLocked(true)
}

// TreeChanged takes the paths the Tree reported changed: the recipes whose
// directories' children changed are recognised again (at their pace), and
// the servers asked again (at theirs).
func (m *Model) TreeChanged(paths []string) {
	m.mu.Lock()
	if m.closed || len(m.owners) == 0 {
		m.mu.Unlock()
		return
	}
	stale := map[string]bool{}
	for _, dir := range paths {
		owners := m.owners[dir]
		if len(owners) == 0 || !m.dirChanged(dir) {
			continue
		}
		for _, path := range owners {
			stale[path] = true
		}
	}
	var work []func()
	if len(stale) > 0 {
		m.tables.lastChange = m.cfg.Pace()
		for _, path := range m.order { // in order, so that tests see one order
			switch {
			case !stale[path]:
			case m.cfg.Introspect != nil && m.tables.tables == nil && m.tables.busy:
				// The first tables are on their way: read it with them.
				m.tables.asking[path] = true
			default:
				if m.cfg.Introspect != nil {
					m.tables.changed[path] = true
				}
				work = append(work, m.recognizeLocked(path)...)
			}
		}
		work = append(work, m.maybeIntrospectLocked()...)
	}
	m.mu.Unlock()
	m.dispatch(work)
}

// Feed takes a Tree's updates until ctx ends or they close (a viewer that
// owns the Tree and shows nothing else, e.g. an exporter).
func (m *Model) Feed(ctx context.Context, updates <-chan []string) {
	for {
		select {
		case paths, ok := <-updates:
			if !ok {
				return
			}
			m.TreeChanged(paths)
		case <-ctx.Done():
			return
		case <-m.ctx.Done():
			return
		}
	}
}

// Refresh recognises every recipe again, and asks the servers again
// first when the recipes need tables (the viewer asked, or its session
// changed).
func (m *Model) Refresh() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	work := m.readAgainLocked(m.order)
	m.mu.Unlock()
	m.dispatch(work)
}

// AskTables asks the servers again, unless a question is out, and
// recognises every recipe with the answer: liveness and connections change
// without any change to the recipes' nodes. A viewer calls it on its own
// timer while it shows the recipes (a page on top, an exporter).
func (m *Model) AskTables() {
	m.mu.Lock()
	if m.closed || m.cfg.Introspect == nil {
		m.mu.Unlock()
		return
	}
	work := m.readAgainLocked(m.order)
	m.mu.Unlock()
	m.dispatch(work)
}

// entry returns path's entry, creating it; the caller holds mu.
func (m *Model) entry(path string) *entry {
	e := m.entries[path]
	if e == nil {
		e = &entry{Entry: Entry{Path: path}}
		m.entries[path] = e
	}
	return e
}

// follow keeps the directories of a recipe expanded in the Tree: those it
// has now, no longer those it had. The caller holds mu.
func (m *Model) follow(e *entry, dirs []string) {
	for _, dir := range e.dirs {
		if !slices.Contains(dirs, dir) {
			m.unown(dir, e.Path)
		}
	}
	for _, dir := range dirs {
		if !slices.Contains(m.owners[dir], e.Path) {
			m.owners[dir] = append(m.owners[dir], e.Path)
		}
		if !m.followed[dir] {
			m.followed[dir] = true
			if m.cfg.Tree != nil {
				m.cfg.Tree.Expand(dir)
			}
		}
	}
	e.dirs = slices.Clone(dirs)
}

// unown lets go of dir for path, and of dir when no recipe needs it. The
// caller holds mu.
func (m *Model) unown(dir, path string) {
	m.owners[dir] = slices.DeleteFunc(m.owners[dir], func(s string) bool { return s == path })
	if len(m.owners[dir]) > 0 {
		return
	}
	delete(m.owners, dir)
	delete(m.seen, dir)
	if m.followed[dir] {
		delete(m.followed, dir)
		if m.cfg.Tree != nil {
			m.cfg.Tree.Collapse(dir)
		}
	}
}

// drop lets go of a recipe; the caller holds mu.
func (m *Model) drop(path string) {
	if e := m.entries[path]; e != nil {
		for _, dir := range e.dirs {
			m.unown(dir, path)
		}
	}
	delete(m.entries, path)
	delete(m.tables.changed, path)
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == path })
}

// dirChanged reports whether the Tree shows dir's children changed since
// its recipes were last read; a directory still loading has not. The
// caller holds mu.
func (m *Model) dirChanged(dir string) bool {
	if m.cfg.Tree == nil {
		return true // no server: every report is a change
	}
	n, _ := m.cfg.Tree.Get(dir)
	if n.Stat == nil {
		return !n.Loading // gone, or unreadable: read it to say so
	}
	if seen, ok := m.seen[dir]; ok && seen == n.Stat.Pzxid {
		return false
	}
	m.seen[dir] = n.Stat.Pzxid
	return true
}

// changedLocked counts a change; the caller holds mu and notifies after
// unlocking (dispatch does).
func (m *Model) changedLocked() { m.version++ }

// dispatch runs work and tells the viewer of the change; the caller does
// not hold mu.
func (m *Model) dispatch(work []func()) {
	m.cfg.Notify()
	for _, w := range work {
		m.cfg.Go(w)
	}
}

// recognizeLocked returns the work that recognises path again, now or
// once RecognizeEvery has passed since the last began; none while one is
// out (it is read again when that one is back) or already put off. The
// caller holds mu.
func (m *Model) recognizeLocked(path string) []func() {
	e := m.entries[path]
	if e == nil {
		return nil
	}
	if e.busy {
		e.again = true
		return nil
	}
	if e.waiting {
		return nil
	}
	now := m.cfg.Pace()
	if wait := e.started.Add(m.cfg.RecognizeEvery).Sub(now); !e.started.IsZero() && wait > 0 {
		e.waiting = true
		return []func(){func() { m.cfg.After(wait, func() { m.due(path) }) }}
	}
	e.busy, e.started = true, now
	// What the Tree shows of the directories now, the recognition will
	// read at least: a report of it later is no change.
	if m.cfg.Tree != nil {
		for _, dir := range e.dirs {
			if n, ok := m.cfg.Tree.Get(dir); ok && n.Stat != nil {
				m.seen[dir] = n.Stat.Pzxid
			}
		}
	}
	opts := m.cfg.Options()
	opts.Tables = m.tablesFor(path)
	ctx := m.ctx
	return []func(){func() {
		ctx, cancel := context.WithTimeout(ctx, RecognizeTimeout)
		defer cancel()
		r, err := m.cfg.Recognize(ctx, path, opts)
		m.recognized(path, r, err)
	}}
}

// due runs a recognition put off by RecognizeEvery.
func (m *Model) due(path string) {
	m.mu.Lock()
	e := m.entries[path]
	if m.closed || e == nil {
		m.mu.Unlock()
		return
	}
	e.waiting = false
	e.started = time.Time{} // due now
	work := m.recognizeLocked(path)
	m.mu.Unlock()
	for _, w := range work {
		m.cfg.Go(w)
	}
}

// recognized takes a recipe read again.
func (m *Model) recognized(path string, r recognize.Recipe, err error) {
	m.mu.Lock()
	e := m.entries[path]
	if m.closed || e == nil {
		m.mu.Unlock()
		return
	}
	e.busy = false
	switch {
	case errors.Is(err, context.Canceled) && m.ctx.Err() != nil:
		m.mu.Unlock()
		return // closing
	case zkview.IsNoNode(err) && !e.pinned:
		m.drop(path)
	case zkview.IsNoNode(err):
		if e.Recipe != nil {
			e.Recipe = e.Recipe.Emptied()
		}
		e.Gone, e.Err, e.Loaded = true, nil, true
		m.follow(e, []string{path})
	case err != nil:
		e.Err, e.Loaded = err, true
	case r != nil && (m.cfg.Accept == nil || m.cfg.Accept(path, r)):
		e.Recipe, e.Err, e.Gone, e.Loaded = r, nil, false, true
		dirs := r.Dirs()
		if e.pinned && !slices.Contains(dirs, path) {
			dirs = append(dirs, path)
		}
		m.follow(e, dirs)
	default:
		// No longer a recipe (of the kind): free, empty, leaderless.
		if e.Recipe != nil {
			e.Recipe = e.Recipe.Emptied()
		}
		e.Err, e.Gone, e.Loaded = nil, false, true
	}
	var work []func()
	if e = m.entries[path]; e != nil {
		if e.again {
			e.again = false
			work = m.recognizeLocked(path)
		} else {
			work = m.settleLocked(e)
		}
	}
	m.changedLocked()
	m.mu.Unlock()
	m.dispatch(work)
}
