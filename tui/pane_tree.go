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
// (child count, ephemeral owner) read once when they come into view; the
// collapsed ones on screen are then counted live by the Tree (Tree.Show: a
// children watch each, for the rows on screen only), which also tells when
// one is deleted and created again. Rows are flattened once per change,
// never per frame, so drawing and scrolling cost the same with 100
// children or 100,000.
//
// Under churn the rows themselves come and go faster than anyone reads
// them: a row the tree's changes put on screen is read only once it has
// stayed there for rowSettle (one the user scrolls to, at once), and a
// directory's recipe label is read again at most once per labelEvery.
type treePane struct {
	shared *sharedState
	root   string
	// nodes is what the pane knows of each row's node (and of the
	// expanded ones), by path.
	nodes  map[string]*rowNode
	rows   []treeRow
	shown  []int // indexes into rows that pass the filter
	filter widget.Filter
	cursor int // index into shown
	offset int
	width  int
	height int

	onScreen []string // the rows of the window as last fetched
	counting []string // the rows last handed to Tree.Show
	// dueAt is when a row's read put off by rowSettle or labelEvery is
	// due; duePending says a rowsDueMsg is on its way.
	dueAt      time.Time
	duePending bool
	// readRound counts forgetReads: the answer to a read of rows asked
	// for before the last is of a moment (a session, a past's position)
	// no longer shown, and is dropped.
	readRound int
}

// rowNode is the tree pane's state of one node.
type rowNode struct {
	expanded bool
	stat     *zk.Stat
	statErr  error
	asked    bool // its stat is asked for and not answered yet
	// treeStat is the Tree's stat of the node when the pane last asked
	// for its own read, or the Tree's stat it took: the Tree has not read
	// the node since while its stat is still this one (the Tree stores a
	// new Stat at each read), so it is not newer than stat. Zxids cannot
	// tell which of two stats is newer: a past steps back to smaller ones.
	treeStat *zk.Stat

	label      dirLabel
	labelled   bool      // a label was read (label may be none)
	labelPzxid int64     // the Pzxid the label was read at
	labelAt    time.Time // when the last label read began
	labeling   bool

	// opening is set when the user expands the node, until its children
	// are listed; promptUntil is then a moment after the listing until
	// which its rows are the user's doing, read at once.
	opening      bool
	promptUntil  time.Time
	seen         bool // drawn before: only such rows flash
	childrenSeen bool // some child of it was drawn
	// listed are its children as the pane last took them (expanded): a
	// child not among them is new, and flashes.
	listed []string
	flash  time.Time // when it last changed on screen (shared.pace's clock)
	// shownSince is when the row came into the window (zero: not in it).
	shownSince time.Time
}

const (
	// rowSettle is how long a row the tree's changes brought into the
	// window stays there before its stat is read: children that come
	// and go under churn are drawn from their parent's listing alone.
	rowSettle = 250 * time.Millisecond
	// labelEvery is how often, at most, a directory whose children keep
	// changing is recognised again for its label.
	labelEvery = 2 * time.Second
)

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
	t := &treePane{shared: shared, root: root, nodes: map[string]*rowNode{}}
	t.expand(root)
	return t
}

// node returns the state of path, creating it.
func (t *treePane) node(path string) *rowNode {
	n := t.nodes[path]
	if n == nil {
		n = &rowNode{}
		t.nodes[path] = n
	}
	return n
}

// isExpanded reports whether path's children are shown.
func (t *treePane) isExpanded(path string) bool {
	n := t.nodes[path]
	return n != nil && n.expanded
}

// labelOf is path's recipe label (none when not recognised).
func (t *treePane) labelOf(path string) dirLabel {
	if n := t.nodes[path]; n != nil {
		return n.label
	}
	return dirLabel{}
}

// statOf is the stat the pane read of path (nil: not read).
func (t *treePane) statOf(path string) *zk.Stat {
	if n := t.nodes[path]; n != nil {
		return n.stat
	}
	return nil
}

// forgetReads drops every stat (and with labels, every label's Pzxid) read
// so far: they are read again as the rows show (a new session, ctrl+r).
func (t *treePane) forgetReads(labels bool) {
	t.readRound++
	for _, n := range t.nodes {
		n.stat, n.statErr, n.asked = nil, nil, false
		if labels {
			n.labelled = false
		}
	}
}

func (t *treePane) expand(p string) {
	n := t.node(p)
	if n.expanded {
		return
	}
	n.expanded = true
	t.shared.expand(p)
	if t.shared.Tree != nil {
		listed, _ := t.shared.Tree.Get(p)
		n.opening = !listed.ChildrenLoaded
	}
	t.rebuild()
}

func (t *treePane) collapse(p string) {
	if !t.isExpanded(p) {
		return
	}
	// Collapsing a node lets go of everything expanded below it too.
	for q, n := range t.nodes {
		if n.expanded && (q == p || strings.HasPrefix(q, strings.TrimSuffix(p, "/")+"/")) {
			n.expanded = false
			t.shared.collapse(q)
		}
	}
	t.rebuild()
}

func (t *treePane) close() {
	for p, n := range t.nodes {
		if n.expanded {
			n.expanded = false
			t.shared.collapse(p)
		}
	}
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
// the same path, and forgets the nodes no longer in it.
func (t *treePane) rebuild() {
	selected := t.selectedPath()
	t.rows = t.rows[:0]
	var walk func(p, name string, depth int)
	walk = func(p, name string, depth int) {
		t.rows = append(t.rows, treeRow{path: p, name: name, depth: depth})
		if !t.isExpanded(p) {
			return
		}
		n, ok := t.shared.Tree.Get(p)
		if !ok || !n.ChildrenLoaded {
			return
		}
		children := n.Children
		if t.labelOf(p).kind != "" {
			children = inSequenceOrder(children)
		}
		for _, c := range children {
			walk(zkview.ChildPath(p, c), c, depth+1)
		}
	}
	walk(t.root, t.root, 0)
	if len(t.nodes) > len(t.rows) {
		inRows := make(map[string]bool, len(t.rows))
		for _, r := range t.rows {
			inRows[r.path] = true
		}
		for p, n := range t.nodes {
			if !inRows[p] && !n.expanded {
				delete(t.nodes, p) // gone, or below a collapsed row
			}
		}
	}
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
// children changed reflows the rows (its new children flash when its
// children were on screen already), and a collapsed row's count the Tree
// read is taken.
func (t *treePane) onTree(paths []string, now time.Time) {
	changed := false
	for _, p := range paths {
		if !t.isExpanded(p) {
			continue
		}
		changed = true
		parent := t.node(p)
		n, _ := t.shared.Tree.Get(p)
		if parent.opening && n.ChildrenLoaded {
			parent.opening, parent.promptUntil = false, t.shared.pace().Add(rowSettle)
		}
		if parent.seen && parent.childrenSeen && n.ChildrenLoaded && parent.listed != nil {
			for _, c := range n.Children {
				if _, was := slices.BinarySearch(parent.listed, c); !was {
					t.node(zkview.ChildPath(p, c)).flash = now // a new child of a node already shown
				}
			}
		}
		if n.ChildrenLoaded {
			parent.listed = n.Children // sorted, and never changed in place by the Tree
		}
		// A child too big to be counted is not followed: its stat may be
		// stale now (it may have gone and come back), so it is read again.
		for _, r := range t.window() {
			if path.Dir(r.path) == p {
				if cn := t.nodes[r.path]; cn != nil && cn.stat != nil && cn.stat.NumChildren > zkview.CountedChildrenLimit {
					cn.stat, cn.statErr = nil, nil
				}
			}
		}
		if n.Stat != nil {
			parent.stat, parent.treeStat = n.Stat, n.Stat
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
		rn := t.nodes[p]
		if rn == nil || rn.expanded || rn.stat == nil {
			continue // not a row whose stat was read
		}
		ts := t.treeStatOf(p)
		if ts == nil || ts == rn.treeStat {
			continue // not read since the pane's own read: not newer
		}
		if rn.stat.NumChildren != ts.NumChildren && rn.seen {
			rn.flash = now
		}
		rn.stat, rn.statErr, rn.treeStat = ts, nil, ts
	}
}

// treeStatOf is the Tree's stat of path (nil: none, or no Tree).
func (t *treePane) treeStatOf(p string) *zk.Stat {
	if t.shared.Tree == nil {
		return nil
	}
	n, _ := t.shared.Tree.Get(p)
	return n.Stat
}

// fetch returns the reads the rows on screen still need: stats, and
// recipe labels for directories. byUser says the window moved because the
// user moved it (its new rows are read at once); otherwise a row new in it
// waits rowSettle, and is not read at all if it is gone by then.
func (t *treePane) fetch(byUser bool) tea.Cmd {
	now := t.shared.pace() // not Now: it stands still in golden tests and on the past
	var need, live []string
	var cmds []tea.Cmd
	window := t.window()
	inWindow := make(map[string]bool, len(window))
	t.dueAt = time.Time{}
	for _, r := range window {
		inWindow[r.path] = true
		n := t.node(r.path)
		if n.shownSince.IsZero() {
			n.shownSince = now
			if parent := t.nodes[path.Dir(r.path)]; byUser || r.depth > 0 && parent != nil && now.Before(parent.promptUntil) {
				n.shownSince = now.Add(-rowSettle)
			}
		}
		n.seen = true
		if r.depth > 0 {
			if parent := t.nodes[path.Dir(r.path)]; parent != nil {
				parent.childrenSeen = true
			}
		}
		// Counted: a collapsed row known to be small enough, or one
		// counted already whose stat is being read again.
		if !n.expanded && (n.stat != nil && n.stat.NumChildren <= zkview.CountedChildrenLimit ||
			n.stat == nil && n.statErr == nil && slices.Contains(t.counting, r.path)) {
			live = append(live, r.path)
		}
		if n.stat == nil && !n.asked && n.statErr == nil {
			if ready := n.shownSince.Add(rowSettle); now.Before(ready) {
				t.due(ready)
			} else {
				need = append(need, r.path)
				n.asked, n.treeStat = true, t.treeStatOf(r.path)
			}
		}
		if n.stat != nil && labelable(r.path, n.stat) && !n.labeling && (!n.labelled || n.labelPzxid != n.stat.Pzxid) {
			if next := n.labelAt.Add(labelEvery); n.labelled && now.Before(next) {
				t.due(next)
			} else {
				n.labeling, n.labelAt = true, now
				cmds = append(cmds, t.label(r.path, n.stat.Pzxid))
			}
		}
	}
	for _, p := range t.onScreen {
		if n := t.nodes[p]; n != nil && !inWindow[p] {
			n.shownSince = time.Time{}
		}
	}
	t.onScreen = t.onScreen[:0]
	for _, r := range window {
		t.onScreen = append(t.onScreen, r.path)
	}
	t.count(live)
	if len(need) > 0 {
		c, ctx, round := t.shared.Client, t.shared.Ctx, t.readRound
		cmds = append(cmds, func() tea.Msg {
			stats, errs := c.StatAll(ctx, need, 32)
			return rowStatsMsg{paths: need, stats: stats, errs: errs, round: round}
		})
	}
	return tea.Batch(append(cmds, t.scheduleDue(now))...)
}

// due notes a read put off until at.
func (t *treePane) due(at time.Time) {
	if t.dueAt.IsZero() || at.Before(t.dueAt) {
		t.dueAt = at
	}
}

// scheduleDue sets one rowsDueMsg for the earliest read put off.
func (t *treePane) scheduleDue(now time.Time) tea.Cmd {
	if t.dueAt.IsZero() || t.duePending {
		return nil
	}
	t.duePending = true
	return afterDelay(max(t.dueAt.Sub(now), time.Millisecond), rowsDueMsg{pane: t})
}

// onDue takes a rowsDueMsg: the reads put off may be due.
func (t *treePane) onDue() tea.Cmd {
	t.duePending = false
	return t.fetch(false)
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
	c, opts := t.shared.Client, t.shared.scanOptions(nil)
	return withTimeout(t.shared.Ctx, requestTimeout, func(ctx context.Context) tea.Msg {
		r, err := recognize.Dir(ctx, c, p, opts)
		if err != nil {
			return labelMsg{path: p, pzxid: pzxid}
		}
		return labelMsg{path: p, pzxid: pzxid, label: labelOf(r)}
	})
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
	if msg.round != t.readRound {
		return // asked before the reads were forgotten: read again since
	}
	now := t.shared.pace()
	for i, p := range msg.paths {
		n := t.nodes[p]
		if n == nil {
			continue // its row went meanwhile
		}
		n.asked = false
		if msg.errs[i] != nil {
			n.statErr = msg.errs[i]
			continue
		}
		stat := msg.stats[i]
		if stat == nil {
			continue // gone; the parent's child watch removes the row
		}
		if ts := t.treeStatOf(p); ts != nil && ts != n.treeStat {
			// The Tree's read of the node came back after this one was
			// asked for: it is as new, or (begun just before) its watch
			// reads again what changed after it.
			stat, n.treeStat = ts, ts
		}
		if n.stat != nil && n.stat.NumChildren != stat.NumChildren {
			n.flash = now
		}
		n.stat, n.statErr = stat, nil
	}
}

func (t *treePane) onLabel(msg labelMsg) {
	n := t.nodes[msg.path]
	if n == nil {
		return
	}
	n.labeling, n.labelled, n.labelPzxid, n.label = false, true, msg.pzxid, msg.label
}

// flashing reports whether a row still flashes.
func (t *treePane) flashing(now time.Time) bool {
	for _, n := range t.nodes {
		if !n.flash.IsZero() && now.Sub(n.flash) < widget.FlashFor {
			return true
		}
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
	rn := t.nodes[r.path]
	if rn == nil {
		rn = &rowNode{}
	}
	stat := rn.stat
	if rn.expanded && n.Stat != nil {
		stat = n.Stat // expanded: the child watch keeps it current
	}
	marker := "  "
	switch {
	case rn.expanded && n.Loading:
		marker = "… "
	case rn.expanded:
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
	if err := rn.statErr; err != nil {
		right = append(right, st.Error.Render(shortErr(err)))
	} else if n.Err != nil && rn.expanded && !zkview.IsNoNode(n.Err) {
		right = append(right, st.Error.Render(shortErr(n.Err)))
	}
	if rn.label.kind != "" {
		right = append(right, st.Label.Render("["+rn.label.String()+"]"))
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
	case !rn.flash.IsZero() && now.Sub(rn.flash) < widget.FlashFor:
		return st.Flash.Render(widget.StripStyles(line))
	}
	return line
}
