package live

import (
	"time"

	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// tablesState is the servers' tables as the Model knows them, and the
// pace of its questions.
type tablesState struct {
	last            *introspect.Snapshot
	tables          recognize.ServerTables // last's
	err             error
	asked, answered time.Time // on the viewer's clock (Config.Now)
	askedPace       time.Time // asked, on the Model's (Config.Pace)
	busy            bool
	pending         bool      // a question put off by the pace is on its way
	lastChange      time.Time // on the Model's clock
	// changed are the recipes changed since the last question began;
	// asking those changed before the one out began: both are read again
	// with its answer.
	changed, asking map[string]bool
}

func newTablesState() tablesState {
	return tablesState{changed: map[string]bool{}, asking: map[string]bool{}}
}

// answer keeps an answer of the servers.
func (t *tablesState) answer(in *introspect.Snapshot, err error, asked, answered time.Time) {
	t.asked, t.answered = asked, answered
	if err != nil || in == nil {
		t.err = err
		return
	}
	t.last, t.err, t.tables = in, nil, in.Tables()
}

// tablesFor is the tables a recipe is read with: nil without any, read
// optimistically while the recipe changed after them. The caller holds mu.
func (m *Model) tablesFor(path string) recognize.ServerTables {
	t := m.tables.tables
	if m.cfg.Introspect == nil || t == nil {
		return nil
	}
	if m.tables.changed[path] || m.tables.asking[path] {
		return interimTables{t}
	}
	return t
}

// maybeIntrospectLocked asks the servers again for the recipes that
// changed, when the pace allows: at most once per TablesEvery, and
// TablesSettle after the last change; else it puts the question off. The
// caller holds mu.
func (m *Model) maybeIntrospectLocked() []func() {
	t := &m.tables
	if m.cfg.Introspect == nil || len(t.changed) == 0 || t.busy || t.pending {
		return nil
	}
	now := m.cfg.Pace()
	due := t.askedPace.Add(m.cfg.TablesEvery)
	if settle := t.lastChange.Add(m.cfg.TablesSettle); settle.After(due) {
		due = settle
	}
	if now.Before(due) {
		t.pending = true
		wait := due.Sub(now)
		return []func(){func() { m.cfg.After(wait, m.introspectionDue) }}
	}
	return m.askTablesLocked(false)
}

// introspectionDue asks the question put off.
func (m *Model) introspectionDue() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.tables.pending = false
	work := m.maybeIntrospectLocked()
	m.mu.Unlock()
	m.dispatch(work)
}

// askTablesLocked asks the servers now, unless a question is out; force
// asks whatever changed. The caller holds mu.
func (m *Model) askTablesLocked(force bool) []func() {
	t := &m.tables
	if m.cfg.Introspect == nil || t.busy || !force && len(t.changed) == 0 {
		return nil
	}
	now := m.cfg.Now()
	t.busy, t.askedPace = true, m.cfg.Pace()
	for p := range t.changed {
		t.asking[p] = true
	}
	t.changed = map[string]bool{}
	ctx, ask := m.ctx, m.cfg.Introspect
	return []func(){func() {
		in, err := ask(ctx)
		m.introspected(now, in, err)
	}}
}

// introspected takes the servers' answer and reads again, with it, the
// recipes that changed before the question.
func (m *Model) introspected(asked time.Time, in *introspect.Snapshot, err error) {
	m.mu.Lock()
	if m.closed || m.ctx.Err() != nil {
		m.mu.Unlock()
		return
	}
	t := &m.tables
	t.busy = false
	t.answer(in, err, asked, m.cfg.Now())
	asking := t.asking
	t.asking = map[string]bool{}
	var work []func()
	for _, path := range m.order {
		// A failed question keeps the optimistic reads (the next change
		// asks again); a recipe never read is read without the tables.
		if e := m.entries[path]; asking[path] && !t.changed[path] && e != nil && (err == nil || !e.Loaded) {
			work = append(work, m.recognizeLocked(path)...)
		}
	}
	work = append(work, m.maybeIntrospectLocked()...)
	m.changedLocked()
	m.mu.Unlock()
	m.dispatch(work)
}

// settleLocked asks the servers again, a few times, about a recipe read
// with tables that do not show a waiter's watch yet: its client sets the
// watch a moment after it creates its node, and nothing in the tree
// changes when it does, so the recipe would keep the warning until the
// next change. The caller holds mu.
func (m *Model) settleLocked(e *entry) []func() {
	if e.Recipe == nil || m.cfg.Introspect == nil || m.tables.tables == nil || !waitsUnseen(e.Recipe) {
		e.unsettled = 0
		return nil
	}
	if e.unsettled >= SettleRetries {
		return nil // the watch is missing for real: the warning stands
	}
	e.unsettled++
	m.tables.changed[e.Path] = true
	m.tables.lastChange = m.cfg.Pace()
	return m.maybeIntrospectLocked()
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
