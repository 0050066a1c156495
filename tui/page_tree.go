package tui

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
)

// treePage is the first page: the tree on the left, the selected node's
// detail on the right. Tab moves the focus between them; on a narrow
// screen only the focused one shows.
type treePage struct {
	shared *sharedState
	tree   *treePane
	detail *detailPane
	focus  treeFocus
	width  int
	height int
	// goal is a path :cd asked for whose ancestors are still loading.
	goal string
}

// treeFocus is the tree page's pane that takes the keys.
type treeFocus int

const (
	focusTree treeFocus = iota
	focusDetail
)

func newTreePage(shared *sharedState, start string) *treePage {
	tp := &treePage{shared: shared, tree: newTreePane(shared, "/"), detail: newDetailPane(shared)}
	if start != "/" {
		tp.goal = start
		tp.expandTo(start)
	}
	return tp
}

func (tp *treePage) Init() tea.Cmd {
	return tp.selectionChanged(true)
}

func (tp *treePage) Title() string { return "tree" }

func (tp *treePage) Close() {
	tp.tree.close()
	tp.detail.release()
}

func (tp *treePage) SetFilter(f widget.Filter) { tp.tree.setFilter(f) }
func (tp *treePage) Filter() widget.Filter     { return tp.tree.filter }

// narrow is when the panes take turns instead of sharing the width.
func (tp *treePage) narrow() bool { return tp.width < 70 }

func (tp *treePage) SetSize(w, h int) {
	tp.width, tp.height = w, h
	if tp.narrow() {
		tp.tree.setSize(w, h)
		tp.detail.setSize(w, h)
		return
	}
	left := tp.leftWidth()
	tp.tree.setSize(left, h)
	tp.detail.setSize(w-left-3, h)
}

func (tp *treePage) leftWidth() int { return max(min(tp.width*2/5, 60), 28) }

func (tp *treePage) Keys() []key.Binding {
	n, d, a := tp.shared.Keys.Nav, tp.shared.Keys.Detail, tp.shared.Keys.Action
	t := tp.shared.Keys.Tree
	keys := []key.Binding{n.Up, n.Down, n.Right, n.Left, n.Enter, n.Focus, d.NextTab, d.PrevTab, d.History, d.Hex, d.Decoder, t.Find, t.Export}
	return append(keys, a.Create, a.Edit, a.Delete, a.DeleteTree, t.Import, t.Copy, t.Move, t.SetACL)
}

// HelpNotes says in `?` what the History tab keeps, what ZooKeeper does
// not tell, and how counts stay live.
func (tp *treePage) HelpNotes() []string {
	return []string{
		fmt.Sprintf("History (H): changes the watches saw of the selected node and of nodes open in the tree: the last %d a node, %d nodes, in memory.",
			zkview.HistoryPerNode, zkview.HistoryNodes),
		"ZooKeeper does not say who made a change: only an ephemeral's creation or deletion names a session (its owner). ≈: when zkx saw it.",
		"Counts of collapsed rows on screen stay live (a children watch each).",
	}
}

func (tp *treePage) nextFrame() time.Duration {
	// A row flashes for what the servers changed: its frames come at
	// their pace (under churn new rows flash all the time), and a flash
	// (widget.FlashFor) ends within one of them.
	if tp.tree.flashing(tp.shared.pace()) {
		return changesDrawEvery
	}
	if tp.detail.tab == tabRecipe && tp.detail.recipe != nil && tp.detail.recipe.animates() {
		return time.Second
	}
	return 0
}

// expandTo expands every ancestor of p.
func (tp *treePage) expandTo(p string) {
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		tp.tree.expand(dir)
		if dir == "/" {
			break
		}
	}
}

// goTo selects p, expanding its ancestors; when they are still loading
// the selection happens as they arrive.
func (tp *treePage) goTo(p string) tea.Cmd {
	tp.tree.setFilter(widget.Filter{})
	if tp.tree.selectPath(p) {
		tp.goal = ""
		return tp.selectionChanged(true)
	}
	tp.goal = p
	tp.expandTo(p)
	if tp.tree.selectPath(p) {
		tp.goal = ""
	}
	return tea.Batch(tp.selectionChanged(true), status("going to "+p))
}

// selectionChanged points the detail at the cursor and reads what the
// rows on screen need; byUser says the user moved (the rows that came
// into view are read at once), else the tree's changes did.
func (tp *treePage) selectionChanged(byUser bool) tea.Cmd {
	p := tp.tree.selectedPath()
	return tea.Batch(tp.detail.show(p, tp.tree.labelOf(p)), tp.tree.fetch(byUser))
}

func (tp *treePage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return tp, tp.key(msg)
	case treeMsg:
		tp.tree.onTree(msg, tp.shared.pace())
		var cmds []tea.Cmd
		if tp.goal != "" {
			if tp.tree.selectPath(tp.goal) {
				tp.goal = ""
			} else if n, ok := tp.shared.Tree.Get(path.Dir(tp.goal)); ok && n.ChildrenLoaded && !contains(n.Children, path.Base(tp.goal)) {
				cmds = append(cmds, failure(fmt.Errorf("%s does not exist", tp.goal)))
				tp.goal = ""
			}
		}
		cmds = append(cmds, tp.detail.update(msg), tp.selectionChanged(false))
		return tp, tea.Batch(cmds...)
	case rowStatsMsg:
		tp.tree.onStats(msg)
		return tp, tp.selectionChanged(false)
	case labelMsg:
		tp.tree.onLabel(msg)
		return tp, tp.selectionChanged(false)
	case rowsDueMsg:
		if msg.pane != tp.tree {
			return tp, nil
		}
		return tp, tp.tree.onDue()
	case sessionMsg:
		if msg.State == zkview.Connected && msg.NewSession {
			// Everything read under the old session may be stale.
			tp.tree.forgetReads(false)
			return tp, tea.Batch(tp.detail.update(msg), tp.tree.fetch(true), tp.detail.readACL())
		}
		return tp, tp.detail.update(msg)
	case aclSetMsg:
		return tp, tea.Batch(status(msg.text), tp.detail.readACL())
	case editBeganMsg, editorDoneMsg, editSavedMsg:
		return tp, tp.onEdit(msg)
	case refreshMsg:
		tp.tree.forgetReads(true)
		return tp, tea.Batch(tp.detail.update(msg), tp.tree.fetch(true), tp.detail.readACL())
	}
	return tp, tp.detail.update(msg)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (tp *treePage) key(msg tea.KeyPressMsg) tea.Cmd {
	n, d, a := tp.shared.Keys.Nav, tp.shared.Keys.Detail, tp.shared.Keys.Action
	switch {
	case key.Matches(msg, n.Focus):
		if tp.focus == focusTree {
			tp.focus = focusDetail
		} else {
			tp.focus = focusTree
		}
		return nil
	case key.Matches(msg, d.NextTab):
		return tp.detail.switchTab(1)
	case key.Matches(msg, d.PrevTab):
		return tp.detail.switchTab(-1)
	case key.Matches(msg, d.History):
		if tp.detail.tab == tabHistory {
			return tp.detail.setTab(tabData)
		}
		return tp.detail.setTab(tabHistory)
	case key.Matches(msg, d.Hex):
		tp.detail.hex = !tp.detail.hex
		return nil
	case key.Matches(msg, d.Decoder):
		tp.detail.hex = false
		tp.detail.decoder = nextDecoder(tp.detail.decoder)
		return status("decoder: " + string(tp.detail.decoder))
	}
	if tp.focus == focusDetail {
		if cmd, ok := tp.detailKey(msg); ok {
			return cmd
		}
	}
	switch {
	case key.Matches(msg, n.Up):
		tp.tree.move(-1)
	case key.Matches(msg, n.Down):
		tp.tree.move(1)
	case key.Matches(msg, n.PageUp):
		tp.tree.move(-tp.tree.height)
	case key.Matches(msg, n.PageDown):
		tp.tree.move(tp.tree.height)
	case key.Matches(msg, n.Top):
		tp.tree.move(-len(tp.tree.shown))
	case key.Matches(msg, n.Bottom):
		tp.tree.move(len(tp.tree.shown))
	case key.Matches(msg, n.Right):
		tp.tree.expand(tp.tree.selectedPath())
	case key.Matches(msg, n.Left):
		p := tp.tree.selectedPath()
		if tp.tree.isExpanded(p) && p != "/" {
			tp.tree.collapse(p)
		} else if p != "/" {
			tp.tree.selectPath(path.Dir(p))
		}
	case key.Matches(msg, tp.shared.Keys.Tree.Find):
		return askFind(tp.shared, tp.tree.selectedPath())
	case key.Matches(msg, tp.shared.Keys.Tree.Export):
		return tp.exportFile()
	case key.Matches(msg, n.Enter):
		p := tp.tree.selectedPath()
		if l := tp.tree.labelOf(p); l.kind != "" {
			return push(newRecipePage(tp.shared, p))
		}
		if tp.tree.isExpanded(p) && p != "/" {
			tp.tree.collapse(p)
		} else {
			tp.tree.expand(p)
		}
	case tp.shared.Writer == nil:
		return nil // read-only: no action exists
	case key.Matches(msg, a.Create):
		return tp.create()
	case key.Matches(msg, a.Edit):
		return tp.edit()
	case key.Matches(msg, a.Delete):
		return tp.remove()
	case key.Matches(msg, a.DeleteTree):
		return tp.removeTree()
	case key.Matches(msg, tp.shared.Keys.Tree.Import):
		return tp.importFile()
	case key.Matches(msg, tp.shared.Keys.Tree.Copy):
		return tp.copyOrMove(false)
	case key.Matches(msg, tp.shared.Keys.Tree.Move):
		return tp.copyOrMove(true)
	case key.Matches(msg, tp.shared.Keys.Tree.SetACL):
		return tp.setACL()
	default:
		return nil
	}
	return tp.selectionChanged(true)
}

// detailKey scrolls the detail pane when it has the focus.
func (tp *treePage) detailKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	n := tp.shared.Keys.Nav
	if tp.detail.tab == tabRecipe && tp.detail.recipe != nil {
		t := tp.detail.recipe.tbl
		switch {
		case key.Matches(msg, n.Up):
			t.Move(-1)
		case key.Matches(msg, n.Down):
			t.Move(1)
		case key.Matches(msg, n.Enter):
			return push(newRecipePage(tp.shared, tp.detail.path)), true
		default:
			return nil, false
		}
		return nil, true
	}
	switch {
	case key.Matches(msg, n.Up):
		tp.detail.scrollBy(-1)
	case key.Matches(msg, n.Down):
		tp.detail.scrollBy(1)
	case key.Matches(msg, n.PageUp):
		tp.detail.scrollBy(-tp.detail.height)
	case key.Matches(msg, n.PageDown):
		tp.detail.scrollBy(tp.detail.height)
	case key.Matches(msg, n.Top):
		tp.detail.scroll = 0
	default:
		return nil, false
	}
	return nil, true
}

func nextDecoder(d decode.Decoder) decode.Decoder {
	all := decode.Choices()
	for i, x := range all {
		if x == d {
			return all[(i+1)%len(all)]
		}
	}
	return decode.Auto
}

func (tp *treePage) Mouse(msg tea.MouseMsg) tea.Cmd {
	m := msg.Mouse()
	inTree := tp.narrow() && tp.focus == focusTree || !tp.narrow() && m.X < tp.leftWidth()
	switch msg.(type) {
	case tea.MouseClickMsg:
		if !inTree {
			tp.focus = focusDetail
			return nil
		}
		tp.focus = focusTree
		i := tp.tree.offset + m.Y
		if m.Y >= 0 && i < len(tp.tree.shown) {
			tp.tree.cursor = i
			tp.tree.clamp()
		}
	case tea.MouseWheelMsg:
		step := 3
		if m.Button == tea.MouseWheelUp {
			step = -3
		}
		if !inTree {
			tp.detail.scrollBy(step)
			return nil
		}
		tp.tree.move(step)
	}
	return tp.selectionChanged(true)
}

func (tp *treePage) View() string {
	now := tp.shared.pace() // the rows' flashes last a second of real time
	if tp.narrow() {
		if tp.focus == focusDetail {
			return tp.detail.view(true)
		}
		return tp.tree.view(true, now)
	}
	left := strings.Split(tp.tree.view(tp.focus == focusTree, now), "\n")
	right := strings.Split(tp.detail.view(tp.focus == focusDetail), "\n")
	sep := tp.shared.Styles.Border.Render(" │ ")
	var out strings.Builder
	for i := 0; i < tp.height; i++ {
		if i > 0 {
			out.WriteByte('\n')
		}
		if i < len(left) {
			out.WriteString(left[i])
		}
		out.WriteString(sep)
		if i < len(right) {
			out.WriteString(right[i])
		}
	}
	return out.String()
}

// --- actions: each asks first, then writes in a command ---

// protected refuses changes ZooKeeper itself owns.
func protected(p string) error {
	if p == "/" || p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/") {
		return fmt.Errorf("%s belongs to ZooKeeper itself: zkx will not change it", p)
	}
	return nil
}

func (tp *treePage) remove() tea.Cmd {
	p := tp.tree.selectedPath()
	if err := protected(p); err != nil {
		return failure(err)
	}
	st := tp.tree.statOf(p)
	if n, ok := tp.shared.Tree.Get(p); ok && n.Stat != nil {
		st = n.Stat
	}
	if st == nil {
		return failure(fmt.Errorf("the stat of %s is not read yet", p))
	}
	if st.NumChildren > 0 {
		return failure(fmt.Errorf("%s has %d children: D deletes it with everything below", p, st.NumChildren))
	}
	version := st.Version
	w := tp.shared.Writer
	body := []string{"Delete " + display.Line(p) + fmt.Sprintf(" (version %d)?", version)}
	if st.EphemeralOwner != 0 {
		body = append(body, "", tp.shared.Styles.Warning.Render(fmt.Sprintf("It is an ephemeral node of session %s: its owner is not told.", display.Hex(st.EphemeralOwner))))
	}
	return openDialog(widget.Confirm("Delete", body, func() tea.Cmd {
		return act(tp.shared.Ctx, requestTimeout, func(ctx context.Context) (string, error) {
			return "deleted " + p, w.Delete(ctx, p, version)
		})
	}))
}

func (tp *treePage) removeTree() tea.Cmd {
	p := tp.tree.selectedPath()
	if err := protected(p); err != nil {
		return failure(err)
	}
	w := tp.shared.Writer
	d := widget.Ask("Delete a whole subtree", []string{
		"Delete " + display.Line(p) + " and everything below it?",
		tp.shared.Styles.Warning.Render("This cannot be undone. Ephemeral owners and lock holders are not told."),
		"Type the path to go ahead:"}, "path> ", "", func(string) tea.Cmd {
		return tea.Batch(status("deleting "+p+"…"), act(tp.shared.Ctx, 5*time.Minute, func(ctx context.Context) (string, error) {
			return "deleted " + p + " and everything below it", w.DeleteRecursive(ctx, p)
		}))
	})
	d.MustType = p
	return openDialog(d)
}
