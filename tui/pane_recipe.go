package tui

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/live"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipePane is the live picture of one recipe directory: a lock's wait
// chain (holder ← waiter ← waiter, with sessions, clients, how long ago
// each was heard from, who watches whom), a queue's items in order, an
// election's candidates with the leader marked. A live.Model (zkview/live)
// follows the directory's children through the live tree and recognises
// it again when they change; the pane draws what it holds. What it shows
// is what recognize computed.
//
// The servers' tables (client addresses, connections, when each session
// was last heard from, observed watches) have no watches: the model asks
// them again when the recipe changes (at most once every
// live.TablesEvery), and the page's refresher every tablesPoll while the
// page is on top, never while it is not.
type recipePane struct {
	shared *sharedState
	path   string
	model  *live.Model
	drawn  uint64 // the model's version on screen
	// refresh asks the servers again every tablesPoll while the pane's
	// page is on top (the recipe page passes focus and blur on).
	refresh tablesRefresher

	recipe    recognize.Recipe // nil: not (or no longer) a recipe
	err       error
	gone      bool // the directory does not exist (a container goes with its last child)
	loaded    bool
	tables    *introspect.Snapshot
	tablesAt  time.Time // when the tables were read; zero before the first answer
	tablesErr error     // why the last ask failed (the tables shown are older)

	tbl    *widget.Table
	width  int
	height int
}

// tablesPoll is how often the page on top asks the servers again: a
// contender's session may go quiet, lose its connection or vanish without
// any change to the recipe's nodes.
const tablesPoll = 3 * time.Second

func newRecipePane(shared *sharedState, p string) *recipePane {
	return newRecipePaneFrom(shared, p, clientSource(shared))
}

// newRecipePaneFrom builds the pane on any source (tests give canned
// answers).
func newRecipePaneFrom(shared *sharedState, p string, src source) *recipePane {
	v := &recipePane{shared: shared, path: p, tbl: widget.NewTable()}
	src.recognize = v.withVerdicts(src.recognize)
	v.model = newLiveModel(shared, src, true, nil)
	v.refresh = newTablesRefresher(v.model, tablesPoll, shared.Now)
	return v
}

// withVerdicts reads a directory as read does, then, for a lock's page,
// reads its alarms again after a sync (syncedIfAlarmed) and finds the
// deadlocks it is in with the servers' last tables (withDeadlocks).
func (v *recipePane) withVerdicts(read func(ctx context.Context, dir string, opts recognize.Options) (recognize.Recipe, error)) func(ctx context.Context, dir string, opts recognize.Options) (recognize.Recipe, error) {
	c := v.shared.Client
	return func(ctx context.Context, dir string, opts recognize.Options) (recognize.Recipe, error) {
		r, err := read(ctx, dir, opts)
		if err != nil || c == nil {
			return r, err
		}
		if r, err = syncedIfAlarmed(ctx, c, dir, opts, r); err != nil {
			return r, err
		}
		if l, ok := r.(*recognize.Lock); ok {
			if tables := v.model.Snapshot().Tables; tables != nil {
				r = withDeadlocks(ctx, c, l, tables, opts)
			}
		}
		return r, nil
	}
}

// takeVerdict shows a recognition read outside the model (after a sync,
// for an action); the model's next reading replaces it.
func (v *recipePane) takeVerdict(r recognize.Recipe, err error) {
	if r == nil && err == nil && v.recipe != nil {
		// Emptied, not another thing: still that recipe, in that format,
		// to whoever joins it next.
		r = v.recipe.Emptied()
	}
	v.recipe, v.err, v.gone, v.loaded = r, err, zkview.IsNoNode(err), true
	if v.gone {
		v.recipe, v.err = nil, nil
	}
	v.tbl.Cols = v.columns()
	v.tbl.SetRows(v.rows(), v.shared.Now())
}

func (v *recipePane) init() tea.Cmd {
	v.model.Follow(v.path)
	v.pull()
	return nil
}

func (v *recipePane) close() { v.model.Close() }

// pull draws what the model holds now, when it changed since last drawn.
func (v *recipePane) pull() {
	snap := v.model.Snapshot()
	if snap.Version == v.drawn && v.loaded {
		return
	}
	v.drawn = snap.Version
	e := snap.Entries[v.path]
	v.recipe, v.err, v.gone, v.loaded = e.Recipe, e.Err, e.Gone, e.Loaded
	if v.gone {
		v.recipe = nil
	}
	v.tables, v.tablesErr = snap.Tables, snap.TablesErr
	if snap.Tables != nil || snap.TablesErr != nil {
		v.tablesAt = snap.TablesAnswered
	}
	v.tbl.Cols = v.columns()
	v.tbl.SetRows(v.rows(), v.shared.Now())
}

func (v *recipePane) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case liveMsg:
		v.pull()
	case treeMsg:
		v.model.TreeChanged(msg)
		v.pull()
	case sessionMsg:
		if msg.State == zkview.Connected {
			v.model.Refresh()
			v.pull()
		}
	case refreshMsg:
		v.model.Refresh()
		v.pull()
	case focusMsg, blurMsg, refreshDueMsg:
		cmd, asked := v.refresh.update(msg)
		if asked {
			v.pull()
		}
		return cmd
	case frameMsg:
		if v.loaded {
			v.tbl.SetRows(v.rows(), v.shared.Now()) // durations move on
		}
	}
	return nil
}

func (v *recipePane) setSize(w, h int) {
	v.width, v.height = w, h
	v.tbl.SetSize(w, max(h-len(v.summary()), 2))
}

// places are the recipe's contenders where they stand (none for a queue).
func (v *recipePane) places() []recognize.Place {
	if v.recipe == nil {
		return nil
	}
	return v.recipe.Lineup()
}

// mixed reports whether the recipe's contenders are of several layouts:
// the table then shows each one's format.
func (v *recipePane) mixed() bool {
	l, ok := v.recipe.(*recognize.Lock)
	return ok && len(l.Formats) > 0
}

func (v *recipePane) columns() []widget.Column {
	if q, ok := v.recipe.(*recognize.Queue); ok {
		return queueColumns(q)
	}
	if !inLine(v.recipe) {
		return v.memberColumns()
	}
	cols := []widget.Column{{Title: "ROLE", Width: v.roleWidth()}, {Title: "NODE", Width: 18}}
	if v.mixed() {
		cols = append(cols, widget.Column{Title: "FORMAT", Width: 7, Drop: 3})
	}
	return append(cols, widget.Column{Title: "SESSION", Width: 17, Drop: 2}, widget.Column{Title: "CLIENT", Width: 15, Drop: 4},
		widget.Column{Title: "HEARD", Width: 10, Right: true}, widget.Column{Title: "AGE", Width: 6, Right: true},
		widget.Column{Title: "WAITS FOR", Width: 17, Drop: 1}, widget.Column{Title: "DATA", Min: 9, Drop: 5})
}

// roleWidth fits the ROLE column to the longest role shown ("waiter 12
// (write, may hold) (you)"), within bounds, so that no role is cut.
func (v *recipePane) roleWidth() int {
	w := 8
	for _, p := range v.places() {
		n := len([]rune(present.Role(p)))
		if v.shared.isOwnSession(p.SessionID) {
			n += len(" (you)")
		}
		w = max(w, n)
	}
	return min(w, 30)
}

// rows builds the table; each row's key is its node, so the cursor and
// flashes follow nodes.
func (v *recipePane) rows() []widget.TableRow {
	st := v.shared.Styles
	now := v.shared.Now()
	if q, ok := v.recipe.(*recognize.Queue); ok {
		return v.queueRows(q, now)
	}
	if !inLine(v.recipe) {
		return v.memberRows(now)
	}
	places := v.places()
	rows := make([]widget.TableRow, 0, len(places))
	for _, p := range places {
		c := p.Contender
		role := present.Role(p)
		if v.shared.isOwnSession(c.SessionID) {
			role += " (you)"
		}
		waits := ""
		if c.WaitsFor != "" {
			mark := "? "
			if c.Watch == recognize.WatchObserved {
				mark = "✓ "
			}
			waits = mark + tailName(relativeNode(c.WaitsFor), 15)
		}
		age, ok := present.Age(c, now)
		if !ok {
			age = "-"
		}
		var style *lipgloss.Style
		switch {
		case v.shared.isOwnSession(c.SessionID):
			style = &st.You
		case p.Holding():
			style = &st.Holder
		}
		heard, heardSig := heardCell(st, c, now)
		sig := strings.Join([]string{role, c.Session, c.ClientText(), c.WaitsFor, c.Watch, c.Data, heardSig}, "\x00")
		key := c.Node
		if key == "" {
			key = c.Session // a herd's waiters have no node, only a session
		}
		cells := []string{role, tailName(relativeNode(c.Node), 18)}
		if v.mixed() {
			cells = append(cells, formatShort(c.Format))
		}
		cells = append(cells, c.Session, display.Line(c.ClientText()), heard, age, waits, display.Line(c.Data))
		rows = append(rows, widget.TableRow{Key: key, Style: style, Signature: sig, Cells: cells})
	}
	return rows
}

// formatShort fits a format in the FORMAT column.
func formatShort(f string) string {
	switch f {
	case "go-zookeeper":
		return "go-zk"
	case "zookeeper-recipes":
		return "zk-rcp"
	case "ephemeral-node":
		return "node"
	}
	return f
}

// heardCell draws present.HeardOf in a cell, red when it calls for
// someone (silent, no connection). sig changes only when what it says
// changes, not as seconds pass.
func heardCell(st theme.Styles, c recognize.Contender, now time.Time) (cell, sig string) {
	h := present.HeardOf(c, now)
	sig = fmt.Sprint(h.State)
	if h.Alarming() {
		return st.Error.Render(h.Cell), sig
	}
	return h.Cell, sig
}

// summary is the lines above the table: whose it is, a broken lock in
// red, what the recipe is, each holder in a line (client, last heard, how
// long it has held when zkx saw it begin), the chain, the warnings, and
// how old the servers' tables are — wrapped, nothing cut.
func (v *recipePane) summary() []string {
	st := v.shared.Styles
	w := max(v.width, 20)
	switch {
	case v.err != nil:
		return append(widget.Wrap(st.Error.Render(display.Line(v.err.Error())), w), "")
	case !v.loaded:
		return []string{st.Dim.Render("recognising " + display.Line(v.path) + "…"), ""}
	case v.gone:
		return append(widget.Wrap(st.Title.Render("(free)")+st.Dim.Render(" · the directory is gone: recipes keep lock directories as"+
			" containers, which ZooKeeper removes with their last child; it comes back with the next contender"), w), "")
	case v.recipe == nil:
		return append(widget.Wrap(st.Dim.Render("not a recipe zkx recognises (no lock, queue, election or barrier layout, no known system's node)"), w), "")
	}
	var lines []string
	add := func(s string) { lines = append(lines, widget.Wrap(s, w)...) }
	info := v.recipe.Info()
	if info.System != "" {
		// Whose it is first: what the system calls it, and where the system is.
		add(st.Label.Render(info.System+" "+info.Role) + st.Dim.Render(" · "+display.Line(info.SystemRoot)))
	}
	warnings := info.Warnings
	if l, ok := v.recipe.(*recognize.Lock); ok {
		if first := present.FirstWarning(l); first != "" {
			_, sev := present.LockState(l)
			add(severe(st, sev, first))
			warnings = warnings[1:]
		}
	}
	add(st.Title.Render(present.Head(v.recipe, v.shared.Now())))
	now := v.shared.Now()
	for _, l := range v.otherLines() {
		add(l)
	}
	places := v.places()
	for _, p := range places {
		if p.Holding() && p.Role != recognize.RoleLease {
			add(v.holderLine(p, now))
		}
	}
	if line := v.chainLine(places); line != "" {
		add(line)
	}
	switch {
	case len(places) > 0 && inLine(v.recipe):
		add(watchLegend(st))
	case hasSessions(places):
		add(st.Dim.Render("HEARD: since its server last answered it (⚠ silent) · AGE: of its node"))
	}
	for _, wn := range warnings {
		add(st.Warning.Render("⚠ " + display.Line(wn)))
	}
	for _, l := range v.tablesLines(now) {
		add(l)
	}
	return append(lines, "")
}

// holderLine tells one holder (or the leader) in a line, in the
// presenter's words: who, from where, when its server last heard from it,
// and how long it has held.
func (v *recipePane) holderLine(p recognize.Place, now time.Time) string {
	st := v.shared.Styles
	c := p.Contender
	who := p.Role + " " + present.Label(c)
	if c.Session != "" {
		who += " " + c.Session
	}
	if v.shared.isOwnSession(c.SessionID) {
		who += " (you)"
	}
	parts := []string{st.Holder.Render(who)}
	if v.mixed() {
		parts = append(parts, c.Format)
	}
	if client := c.ClientText(); client != "" {
		parts = append(parts, display.Line(client))
	}
	switch h := present.HeardOf(c, now); {
	case h.Alarming():
		parts = append(parts, st.Error.Render(h.Phrase()))
	case h.Phrase() != "":
		parts = append(parts, h.Phrase())
	}
	if held := present.HeldOf(c, now); held.Known {
		parts = append(parts, held.Phrase)
	} else {
		parts = append(parts, st.Dim.Render(held.Phrase))
	}
	return strings.Join(parts, st.Dim.Render(" · "))
}

// severe styles words by the presenter's severity.
func severe(st theme.Styles, sev present.Severity, s string) string {
	switch sev {
	case present.Bad:
		return st.Error.Render("✗ " + s)
	case present.Warn:
		return st.Warning.Render("⚠ " + s)
	}
	return s
}

// tablesLines say how old the servers' tables are and what they would not
// tell, with how to let zkx read them.
func (v *recipePane) tablesLines(now time.Time) []string {
	st := v.shared.Styles
	var out []string
	switch {
	case v.tables == nil && v.tablesErr != nil:
		out = append(out, st.Warning.Render("⚠ no server tables ("+firstLine(v.tablesErr.Error())+"): clients, connections and watches unknown"))
	case v.tables != nil:
		age := "server tables read " + display.Duration(now.Sub(v.tablesAt)) + " ago, again every " + display.Duration(tablesPoll) + " while shown"
		if v.tablesErr != nil {
			age += " · the last ask failed: " + firstLine(v.tablesErr.Error())
		}
		out = append(out, st.Dim.Render(age))
	}
	if v.tables != nil {
		out = append(out, memberNoteLines(v.shared, v.tables)...)
	}
	if line := v.tables.SourcesLine(); line != "" {
		out = append(out, st.Dim.Render(line))
	}
	if remedy := v.tables.TablesRemedy(adminHow); remedy != "" && !v.shared.Past {
		out = append(out, st.Dim.Render(remedy))
	}
	return out
}

// adminHow says how the explorer is told of the AdminServers.
const adminHow = ":admin http://HOST:PORT/commands,… (one per member), or :admin port N to look on every member"

func watchLegend(st theme.Styles) string {
	return st.Dim.Render("← waits for · HEARD: since its server last answered it (⚠ silent) · AGE: of its node · ✓ watch observed, ? inferred")
}

// chainLine draws holders ← waiter ← waiter in one line, eliding the
// middle of long queues; a herd (every waiter watching the one node) as
// holder ⇐ waiters.
func (v *recipePane) chainLine(places []recognize.Place) string {
	st := v.shared.Styles
	if !inLine(v.recipe) {
		return ""
	}
	if len(places) == 0 {
		if l, ok := v.recipe.(*recognize.Lock); ok && len(l.Holders) == 0 {
			return st.Dim.Render("(free)")
		}
		return ""
	}
	herd := recognize.LineOf(places) == recognize.LineHerd
	name := func(c recognize.Contender, s lipgloss.Style) string {
		label := "#" + fmt.Sprint(c.Seq) + " " + shortSession(c.SessionID)
		if herd {
			label = shortSession(c.SessionID) // one node, no sequence: sessions say who
		}
		if v.shared.isOwnSession(c.SessionID) {
			return st.You.Render(label + " (you)")
		}
		return s.Render(label)
	}
	var holders, waiters []string
	for _, p := range places {
		if p.Holding() {
			holders = append(holders, name(p.Contender, st.Holder))
		} else {
			waiters = append(waiters, name(p.Contender, st.Waiter))
		}
	}
	parts := []string{st.Dim.Render("(free)")}
	if len(holders) > 0 {
		parts = []string{strings.Join(holders, ", ")}
	}
	const show = 6
	for i, w := range waiters {
		if len(waiters) > show+1 && i == show-1 {
			parts = append(parts, st.Dim.Render(fmt.Sprintf("… %d more", len(waiters)-show)), waiters[len(waiters)-1])
			break
		}
		parts = append(parts, w)
	}
	if herd {
		// Every waiter watches the one node: a release wakes them all.
		return parts[0] + st.Dim.Render(" ⇐ ") + strings.Join(parts[1:], st.Dim.Render(", ")) + st.Dim.Render("  (a herd: every release wakes all)")
	}
	return strings.Join(parts, st.Dim.Render(" ← "))
}

func (v *recipePane) view(focused bool) string {
	sum := v.summary()
	if maxLines := v.height - 5; len(sum) > maxLines && maxLines > 2 {
		sum = append(sum[:maxLines-1:maxLines-1], v.shared.Styles.Dim.Render(fmt.Sprintf("… %d more lines: w shows every warning in full", len(sum)-maxLines+1)))
	}
	if v.tbl.Height != max(v.height-len(sum), 2) {
		v.tbl.SetSize(v.width, max(v.height-len(sum), 2))
	}
	lines := append([]string{}, sum...)
	if v.recipe != nil {
		lines = append(lines, widget.SplitLines(v.tbl.View(v.shared.Styles, focused, v.shared.Now()))...)
	}
	return widget.Block(lines, v.width, v.height)
}

// summaryHeight is how many lines go above the table, as view draws them.
func (v *recipePane) summaryHeight() int {
	n := len(v.summary())
	if maxLines := v.height - 5; n > maxLines && maxLines > 2 {
		return maxLines
	}
	return n
}

// animates reports whether durations or flashes are on screen.
func (v *recipePane) animates() bool {
	return len(v.places()) > 0 || v.tbl.Flashing(v.shared.Now())
}

// relativeNode names a node the way the recipe's other nodes are: the
// node of a lock held as one node, named by its absolute path, by its
// last component.
func relativeNode(node string) string {
	if strings.HasPrefix(node, "/") {
		return path.Base(node)
	}
	return node
}

// tailName keeps the end of a long node name, where its sequence number
// is: _c_3f2a…-lock-0000000003 → …-lock-0000000003.
func tailName(name string, width int) string {
	name = display.Line(recognize.BareName(name))
	r := []rune(name)
	if len(r) <= width || width < 2 {
		return name
	}
	return "…" + string(r[len(r)-width+1:])
}
