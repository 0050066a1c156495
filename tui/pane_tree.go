package tui

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// treeRow is one line of the tree pane.
type treeRow struct {
	path  string
	name  string
	depth int
}

// treePane is the lazy tree: the children of expanded nodes come from
// the live zkview.Tree (child watches); the rows on screen get their stat
// (child count, ephemeral owner) read once when they come into view, and
// again when their parent's children change; the collapsed ones on screen
// are also counted live by the Tree (Tree.Show: a children watch each,
// for the rows on screen only). Rows are flattened once per change, never
// per frame, so drawing and scrolling cost the same with 100 children or
// 100,000.
type treePane struct {
	shared   *sharedState
	root     string
	expanded map[string]bool
	rows     []treeRow
	shown    []int // indexes into rows that pass the filter
	filter   widget.Filter
	cursor   int // index into shown
	offset   int
	width    int
	height   int

	stats    map[string]*zk.Stat
	statErrs map[string]error
	asked    map[string]bool // stats asked for and not yet answered

	labels   map[string]dirLabel
	labelled map[string]int64 // pzxid a label was read at
	labeling map[string]bool

	seen    map[string]bool // rows drawn before: only they flash
	flashes map[string]time.Time

	counting []string // the rows last handed to Tree.Show
}

// dirLabel is a recognised recipe directory's label, e.g. "lock·curator".
type dirLabel struct {
	kind, format string
}

func (l dirLabel) String() string {
	if l.kind == "" {
		return ""
	}
	return l.kind + "·" + l.format
}

// maxLabelChildren bounds the directories labelled on sight: reading a
// child list of more names than this to place a label is not worth it.
const maxLabelChildren = 10000

func newTreePane(shared *sharedState, root string) *treePane {
	t := &treePane{
		shared: shared, root: root, expanded: map[string]bool{},
		stats: map[string]*zk.Stat{}, statErrs: map[string]error{}, asked: map[string]bool{},
		labels: map[string]dirLabel{}, labelled: map[string]int64{}, labeling: map[string]bool{},
		seen: map[string]bool{}, flashes: map[string]time.Time{},
	}
	t.expand(root)
	return t
}

func (t *treePane) expand(p string) {
	if t.expanded[p] {
		return
	}
	t.expanded[p] = true
	t.shared.expand(p)
	t.rebuild()
}

func (t *treePane) collapse(p string) {
	if !t.expanded[p] {
		return
	}
	// Collapsing a node lets go of everything expanded below it too.
	for q := range t.expanded {
		if q == p || strings.HasPrefix(q, strings.TrimSuffix(p, "/")+"/") {
			delete(t.expanded, q)
			t.shared.collapse(q)
		}
	}
	t.rebuild()
}

func (t *treePane) close() {
	for p := range t.expanded {
		t.shared.collapse(p)
	}
	t.expanded = map[string]bool{}
	t.count(nil)
}

// count hands the rows whose child counts should stay live to the Tree
// (which starts again one whose node went and came back).
func (t *treePane) count(paths []string) {
	if t.shared.Tree == nil {
		return
	}
	t.counting = paths
	t.shared.Tree.Show(paths)
}

// rebuild flattens the expanded tree into rows, keeping the cursor on
// the same path.
func (t *treePane) rebuild() {
	selected := t.selectedPath()
	t.rows = t.rows[:0]
	var walk func(p, name string, depth int)
	walk = func(p, name string, depth int) {
		t.rows = append(t.rows, treeRow{path: p, name: name, depth: depth})
		if !t.expanded[p] {
			return
		}
		n, ok := t.shared.Tree.Get(p)
		if !ok || !n.ChildrenLoaded {
			return
		}
		children := n.Children
		if _, recipe := t.labels[p]; recipe {
			children = inSequenceOrder(children)
		}
		for _, c := range children {
			walk(zkview.ChildPath(p, c), c, depth+1)
		}
	}
	walk(t.root, t.root, 0)
	t.refilter()
	if selected != "" {
		t.selectPath(selected)
	}
}

// inSequenceOrder orders a recipe directory's children as the recipe
// does, by the sequence number that ends their names (their GUID prefixes
// would scramble them); other names follow, by name.
func inSequenceOrder(names []string) []string {
	type keyed struct {
		name string
		seq  int64
		ok   bool
	}
	ks := make([]keyed, len(names)) // each name parsed once, not per comparison
	for i, n := range names {
		seq, ok := trailingSequence(n)
		ks[i] = keyed{n, seq, ok}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		switch {
		case a.ok && b.ok && a.seq != b.seq:
			return cmp.Compare(a.seq, b.seq)
		case a.ok != b.ok:
			if a.ok {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.name
	}
	return out
}

// trailingSequence reads the 10-digit sequence number ZooKeeper appends.
func trailingSequence(name string) (int64, bool) {
	if len(name) < 10 {
		return 0, false
	}
	n, err := strconv.ParseInt(name[len(name)-10:], 10, 64)
	return n, err == nil && n >= 0 && !strings.ContainsAny(name[len(name)-10:], "+-")
}

// refilter keeps the rows whose name matches and the ancestors that lead
// to them.
func (t *treePane) refilter() {
	t.shown = t.shown[:0]
	if !t.filter.Active() {
		for i := range t.rows {
			t.shown = append(t.shown, i)
		}
		t.clamp()
		return
	}
	keep := make([]bool, len(t.rows))
	var stack []int // indexes of the current row's ancestors
	for i, r := range t.rows {
		for len(stack) > 0 && t.rows[stack[len(stack)-1]].depth >= r.depth {
			stack = stack[:len(stack)-1]
		}
		if i == 0 || t.filter.Match(r.name) {
			keep[i] = true
			for _, a := range stack {
				keep[a] = true
			}
		}
		stack = append(stack, i)
	}
	for i, k := range keep {
		if k {
			t.shown = append(t.shown, i)
		}
	}
	t.clamp()
}

func (t *treePane) setFilter(f widget.Filter) {
	p := t.selectedPath()
	t.filter = f
	t.refilter()
	t.selectPath(p)
}

func (t *treePane) selectedPath() string {
	if t.cursor < 0 || t.cursor >= len(t.shown) {
		return ""
	}
	return t.rows[t.shown[t.cursor]].path
}

func (t *treePane) selectPath(p string) bool {
	for i, idx := range t.shown {
		if t.rows[idx].path == p {
			t.cursor = i
			t.clamp()
			return true
		}
	}
	return false
}

func (t *treePane) setSize(w, h int) {
	t.width, t.height = w, h
	t.clamp()
}

func (t *treePane) clamp() {
	t.cursor = min(t.cursor, len(t.shown)-1)
	t.cursor = max(t.cursor, 0)
	h := max(t.height, 1)
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+h {
		t.offset = t.cursor - h + 1
	}
	t.offset = max(min(t.offset, len(t.shown)-h), 0)
}

func (t *treePane) move(delta int) {
	t.cursor += delta
	t.clamp()
}

// window returns the rows on screen.
func (t *treePane) window() []treeRow {
	end := min(t.offset+t.height, len(t.shown))
	out := make([]treeRow, 0, max(end-t.offset, 0))
	for i := t.offset; i < end; i++ {
		out = append(out, t.rows[t.shown[i]])
	}
	return out
}

// onTree handles the live tree's changes: an expanded node whose
// children changed reflows the rows and has its children's stats read
// again (counts may have moved).
func (t *treePane) onTree(paths []string, now time.Time) {
	changed := false
	for _, p := range paths {
		if !t.expanded[p] {
			continue
		}
		changed = true
		n, _ := t.shared.Tree.Get(p)
		for _, c := range n.Children {
			cp := zkview.ChildPath(p, c)
			if t.seen[cp] {
				continue
			}
			if t.seen[p] && n.ChildrenLoaded && t.seenChildren(p) {
				t.flashes[cp] = now // a new child of a node already shown
			}
		}
		// Children's stats may be stale now: forget those on screen so
		// they are read again (an error too: a node gone may be back).
		for _, r := range t.window() {
			if path.Dir(r.path) == p {
				delete(t.stats, r.path)
				delete(t.statErrs, r.path)
			}
		}
		if n.Stat != nil {
			t.stats[p] = n.Stat
		}
	}
	t.takeCounts(paths, now)
	if changed {
		t.rebuild()
	}
}

// takeCounts takes the stats the Tree's count watches read of collapsed
// rows; a count that moved flashes.
func (t *treePane) takeCounts(paths []string, now time.Time) {
	for _, p := range paths {
		if t.expanded[p] || t.shared.Tree == nil {
			continue
		}
		old, ok := t.stats[p]
		if !ok {
			continue // not a row whose stat was read
		}
		n, _ := t.shared.Tree.Get(p)
		if n.Stat == nil || old != nil && n.Stat.Pzxid < old.Pzxid {
			continue
		}
		if old != nil && old.NumChildren != n.Stat.NumChildren && t.seen[p] {
			t.flashes[p] = now
		}
		t.stats[p] = n.Stat
		delete(t.statErrs, p)
	}
}

// seenChildren reports whether some child of p was drawn already, that
// is whether p's children were on screen before this change.
func (t *treePane) seenChildren(p string) bool {
	for q := range t.seen {
		if path.Dir(q) == p {
			return true
		}
	}
	return false
}

// fetch returns the reads the rows on screen still need: stats, and
// recipe labels for directories.
func (t *treePane) fetch() tea.Cmd {
	var need, live []string
	var cmds []tea.Cmd
	for _, r := range t.window() {
		t.seen[r.path] = true
		// Counted: a collapsed row known to be small enough, or one
		// counted already whose stat is being read again.
		st, known := t.stats[r.path]
		if !t.expanded[r.path] && (st != nil && st.NumChildren <= zkview.CountedChildrenLimit ||
			!known && t.statErrs[r.path] == nil && slices.Contains(t.counting, r.path)) {
			live = append(live, r.path)
		}
		if !known && !t.asked[r.path] && t.statErrs[r.path] == nil {
			need = append(need, r.path)
			t.asked[r.path] = true
		}
		if st != nil && labelable(r.path, st) && !t.labeling[r.path] {
			if at, ok := t.labelled[r.path]; !ok || at != st.Pzxid {
				t.labeling[r.path] = true
				cmds = append(cmds, t.label(r.path, st.Pzxid))
			}
		}
	}
	t.count(live)
	if len(need) > 0 {
		c, ctx := t.shared.Client, t.shared.Ctx
		cmds = append(cmds, func() tea.Msg {
			stats, errs := c.StatAll(ctx, need, 32)
			return rowStatsMsg{paths: need, stats: stats, errs: errs}
		})
	}
	return tea.Batch(cmds...)
}

// labelable reports whether a row may carry a recipe label: a directory
// small enough to recognise on the fly, or an ephemeral leaf named like a
// lock or a leader (a lock held as one node).
func labelable(p string, st *zk.Stat) bool {
	if st.NumChildren > 0 {
		return st.NumChildren <= maxLabelChildren
	}
	return st.EphemeralOwner != 0 && recognize.EphemeralNodeName(path.Base(p))
}

// label recognises one directory (or lock node) for its tree label.
func (t *treePane) label(p string, pzxid int64) tea.Cmd {
	c, ctx, opts := t.shared.Client, t.shared.Ctx, t.shared.scanOptions(nil)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		r, err := recognize.Dir(ctx, c, p, opts)
		if err != nil {
			return labelMsg{path: p, pzxid: pzxid}
		}
		return labelMsg{path: p, pzxid: pzxid, label: labelOf(r)}
	}
}

// labelOf names what recognition found: [lock·curator], [rwlock·kazoo],
// a system's object by its role and system, [controller·kafka],
// [queue·zookeeper-recipes]; none for nothing.
func labelOf(r recognize.Recipe) dirLabel {
	if r == nil {
		return dirLabel{}
	}
	info := r.Info()
	if info.System != "" {
		return dirLabel{kind: info.Role, format: info.System} // [controller·kafka]
	}
	kind := info.Kind
	if kind == "mutex" {
		kind = "lock"
	}
	return dirLabel{kind: kind, format: info.Format}
}

func (t *treePane) onStats(msg rowStatsMsg) {
	for i, p := range msg.paths {
		delete(t.asked, p)
		if msg.errs[i] != nil {
			t.statErrs[p] = msg.errs[i]
			continue
		}
		if msg.stats[i] == nil {
			continue // gone; the parent's child watch removes the row
		}
		if old := t.stats[p]; old != nil && old.NumChildren != msg.stats[i].NumChildren {
			t.flashes[p] = t.shared.Now()
		}
		t.stats[p] = msg.stats[i]
		delete(t.statErrs, p)
	}
}

func (t *treePane) onLabel(msg labelMsg) {
	delete(t.labeling, msg.path)
	t.labelled[msg.path] = msg.pzxid
	if msg.label.kind == "" {
		delete(t.labels, msg.path)
		return
	}
	t.labels[msg.path] = msg.label
}

// flashing reports whether a row still flashes.
func (t *treePane) flashing(now time.Time) bool {
	for p, at := range t.flashes {
		if now.Sub(at) < widget.FlashFor {
			return true
		}
		delete(t.flashes, p)
	}
	return false
}

func (t *treePane) view(focused bool, now time.Time) string {
	st := t.shared.Styles
	lines := make([]string, 0, t.height)
	for i, r := range t.window() {
		lines = append(lines, t.rowView(r, t.offset+i == t.cursor, focused, now))
	}
	if len(t.shown) <= 1 && t.filter.Active() {
		lines = append(lines, st.Dim.Render("  nothing loaded matches "+display.Line(t.filter.Text)))
	}
	return widget.Block(lines, t.width, t.height)
}

func (t *treePane) rowView(r treeRow, selected, focused bool, now time.Time) string {
	st := t.shared.Styles
	n, _ := t.shared.Tree.Get(r.path)
	stat := t.stats[r.path]
	if t.expanded[r.path] && n.Stat != nil {
		stat = n.Stat // expanded: the child watch keeps it current
	}
	marker := "  "
	switch {
	case t.expanded[r.path] && n.Loading:
		marker = "… "
	case t.expanded[r.path]:
		marker = "▾ "
	case stat == nil || stat.NumChildren > 0:
		marker = "▸ "
	}
	name := r.name
	if r.depth > 0 {
		name = display.Line(name)
	}
	gutter := " "
	if selected {
		gutter = "›" // visible without colour too
	}
	left := gutter + strings.Repeat("  ", r.depth) + marker + name
	var right []string
	if stat != nil {
		if stat.NumChildren > 0 {
			right = append(right, st.Dim.Render(display.Count(int64(stat.NumChildren))))
		}
		if stat.EphemeralOwner != 0 {
			right = append(right, st.Ephemeral.Render("●"+shortSession(stat.EphemeralOwner)))
		}
	}
	if err := t.statErrs[r.path]; err != nil {
		right = append(right, st.Error.Render(shortErr(err)))
	} else if n.Err != nil && t.expanded[r.path] && !zkview.IsNoNode(n.Err) {
		right = append(right, st.Error.Render(shortErr(n.Err)))
	}
	if l, ok := t.labels[r.path]; ok {
		right = append(right, st.Label.Render("["+l.String()+"]"))
	}
	rightText := ""
	if len(right) > 0 {
		rightText = "  " + strings.Join(right, " ")
	}
	// A long name gives way in its middle, so that its end (the sequence
	// number) and what is said of it on the right stay visible.
	if room := t.width - lipgloss.Width(left) - lipgloss.Width(rightText) + ansi.StringWidth(name); room < ansi.StringWidth(name) {
		left = gutter + strings.Repeat("  ", r.depth) + marker + widget.ClipMiddle(name, max(room, 8))
	}
	line := widget.Fit(left+rightText, t.width)
	switch {
	case selected && focused:
		return st.Selected.Render(widget.StripStyles(line))
	case selected:
		return st.SelectedDim.Render(widget.StripStyles(line))
	case now.Sub(t.flashes[r.path]) < widget.FlashFor:
		return st.Flash.Render(widget.StripStyles(line))
	}
	return line
}
