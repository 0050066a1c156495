package tui

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
)

// browser is the first page: the tree on the left, the selected node's
// detail on the right. Tab moves the focus between them; on a narrow
// screen only the focused one shows.
type treePage struct {
	shared *Shared
	tree   *treePane
	detail *detailPane
	focus  int // 0 tree, 1 detail
	width  int
	height int
	// goal is a path :cd asked for whose ancestors are still loading.
	goal string
}

func newTreePage(shared *Shared, start string) *treePage {
	b := &treePage{shared: shared, tree: newTreePane(shared, "/"), detail: newDetailPane(shared)}
	if start != "/" {
		b.goal = start
		b.expandTo(start)
	}
	return b
}

func (b *treePage) Init() tea.Cmd {
	return b.selectionChanged()
}

func (b *treePage) Title() string { return "tree" }

func (b *treePage) Close() {
	b.tree.close()
	b.detail.release()
}

func (b *treePage) SetFilter(f widget.Filter) { b.tree.setFilter(f) }
func (b *treePage) Filter() widget.Filter     { return b.tree.filter }

// narrow is when the panes take turns instead of sharing the width.
func (b *treePage) narrow() bool { return b.width < 70 }

func (b *treePage) SetSize(w, h int) {
	b.width, b.height = w, h
	if b.narrow() {
		b.tree.setSize(w, h)
		b.detail.setSize(w, h)
		return
	}
	left := b.leftWidth()
	b.tree.setSize(left, h)
	b.detail.setSize(w-left-3, h)
}

func (b *treePage) leftWidth() int { return max(min(b.width*2/5, 60), 28) }

func (b *treePage) Keys() []key.Binding {
	n, d, a := b.shared.Keys.Nav, b.shared.Keys.Detail, b.shared.Keys.Action
	t := b.shared.Keys.Tree
	keys := []key.Binding{n.Up, n.Down, n.Right, n.Left, n.Enter, n.Focus, d.NextTab, d.PrevTab, d.History, d.Hex, d.Decoder, t.Find, t.Export}
	return append(keys, a.Create, a.Edit, a.Delete, a.DeleteTree, t.Import, t.Copy, t.Move, t.SetACL)
}

// HelpNotes says in `?` what the History tab keeps, what ZooKeeper does
// not tell, and how counts stay live.
func (b *treePage) HelpNotes() []string {
	return []string{
		fmt.Sprintf("History (H): changes the watches saw of the selected node and of nodes open in the tree: the last %d a node, %d nodes, in memory.",
			zkview.HistoryPerNode, zkview.HistoryNodes),
		"ZooKeeper does not say who made a change: only an ephemeral's creation or deletion names a session (its owner). ≈: when zkx saw it.",
		"Counts of collapsed rows on screen stay live (a children watch each).",
	}
}

func (b *treePage) nextFrame() time.Duration {
	now := b.shared.Now()
	if b.tree.flashing(now) {
		return 100 * time.Millisecond
	}
	if b.detail.tab == tabRecipe && b.detail.recipe != nil && b.detail.recipe.animates() {
		return time.Second
	}
	return 0
}

// expandTo expands every ancestor of p.
func (b *treePage) expandTo(p string) {
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		b.tree.expand(dir)
		if dir == "/" {
			break
		}
	}
}

// goTo selects p, expanding its ancestors; when they are still loading
// the selection happens as they arrive.
func (b *treePage) goTo(p string) tea.Cmd {
	b.tree.setFilter(widget.Filter{})
	if b.tree.selectPath(p) {
		b.goal = ""
		return b.selectionChanged()
	}
	b.goal = p
	b.expandTo(p)
	if b.tree.selectPath(p) {
		b.goal = ""
	}
	return tea.Batch(b.selectionChanged(), status("going to "+p))
}

// selectionChanged points the detail at the cursor and reads what the
// rows on screen need.
func (b *treePage) selectionChanged() tea.Cmd {
	p := b.tree.selectedPath()
	return tea.Batch(b.detail.show(p, b.tree.labels[p]), b.tree.fetch())
}

func (b *treePage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return b, b.key(msg)
	case treeMsg:
		b.tree.onTree(msg, b.shared.Now())
		var cmds []tea.Cmd
		if b.goal != "" {
			if b.tree.selectPath(b.goal) {
				b.goal = ""
			} else if n, ok := b.shared.Tree.Get(path.Dir(b.goal)); ok && n.ChildrenLoaded && !contains(n.Children, path.Base(b.goal)) {
				cmds = append(cmds, failure(fmt.Errorf("%s does not exist", b.goal)))
				b.goal = ""
			}
		}
		cmds = append(cmds, b.detail.update(msg), b.selectionChanged())
		return b, tea.Batch(cmds...)
	case rowStatsMsg:
		b.tree.onStats(msg)
		return b, b.selectionChanged()
	case labelMsg:
		b.tree.onLabel(msg)
		return b, b.selectionChanged()
	case sessionMsg:
		if msg.State == zkview.Connected && msg.NewSession {
			// Everything read under the old session may be stale.
			b.tree.stats, b.tree.statErrs = map[string]*zk.Stat{}, map[string]error{}
			return b, tea.Batch(b.detail.update(msg), b.tree.fetch(), b.detail.readACL())
		}
		return b, b.detail.update(msg)
	case aclSetMsg:
		return b, tea.Batch(status(msg.text), b.detail.readACL())
	case editBeganMsg, editorDoneMsg, editSavedMsg:
		return b, b.onEdit(msg)
	case refreshMsg:
		b.tree.stats, b.tree.statErrs, b.tree.labelled = map[string]*zk.Stat{}, map[string]error{}, map[string]int64{}
		return b, tea.Batch(b.detail.update(msg), b.tree.fetch(), b.detail.readACL())
	}
	return b, b.detail.update(msg)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (b *treePage) key(msg tea.KeyPressMsg) tea.Cmd {
	n, d, a := b.shared.Keys.Nav, b.shared.Keys.Detail, b.shared.Keys.Action
	switch {
	case key.Matches(msg, n.Focus):
		b.focus = 1 - b.focus
		return nil
	case key.Matches(msg, d.NextTab):
		return b.detail.switchTab(1)
	case key.Matches(msg, d.PrevTab):
		return b.detail.switchTab(-1)
	case key.Matches(msg, d.History):
		if b.detail.tab == tabHistory {
			return b.detail.setTab(tabData)
		}
		return b.detail.setTab(tabHistory)
	case key.Matches(msg, d.Hex):
		b.detail.hex = !b.detail.hex
		return nil
	case key.Matches(msg, d.Decoder):
		b.detail.hex = false
		b.detail.decoder = nextDecoder(b.detail.decoder)
		return status("decoder: " + string(b.detail.decoder))
	}
	if b.focus == 1 {
		if cmd, ok := b.detailKey(msg); ok {
			return cmd
		}
	}
	switch {
	case key.Matches(msg, n.Up):
		b.tree.move(-1)
	case key.Matches(msg, n.Down):
		b.tree.move(1)
	case key.Matches(msg, n.PageUp):
		b.tree.move(-b.tree.height)
	case key.Matches(msg, n.PageDown):
		b.tree.move(b.tree.height)
	case key.Matches(msg, n.Top):
		b.tree.move(-len(b.tree.shown))
	case key.Matches(msg, n.Bottom):
		b.tree.move(len(b.tree.shown))
	case key.Matches(msg, n.Right):
		b.tree.expand(b.tree.selectedPath())
	case key.Matches(msg, n.Left):
		p := b.tree.selectedPath()
		if b.tree.expanded[p] && p != "/" {
			b.tree.collapse(p)
		} else if p != "/" {
			b.tree.selectPath(path.Dir(p))
		}
	case key.Matches(msg, b.shared.Keys.Tree.Find):
		return askFind(b.shared, b.tree.selectedPath())
	case key.Matches(msg, b.shared.Keys.Tree.Export):
		return b.exportFile()
	case key.Matches(msg, n.Enter):
		p := b.tree.selectedPath()
		if l := b.tree.labels[p]; l.kind != "" {
			return push(newRecipePage(b.shared, p))
		}
		if b.tree.expanded[p] && p != "/" {
			b.tree.collapse(p)
		} else {
			b.tree.expand(p)
		}
	case b.shared.Writer == nil:
		return nil // read-only: no action exists
	case key.Matches(msg, a.Create):
		return b.create()
	case key.Matches(msg, a.Edit):
		return b.edit()
	case key.Matches(msg, a.Delete):
		return b.remove()
	case key.Matches(msg, a.DeleteTree):
		return b.removeTree()
	case key.Matches(msg, b.shared.Keys.Tree.Import):
		return b.importFile()
	case key.Matches(msg, b.shared.Keys.Tree.Copy):
		return b.copyOrMove(false)
	case key.Matches(msg, b.shared.Keys.Tree.Move):
		return b.copyOrMove(true)
	case key.Matches(msg, b.shared.Keys.Tree.SetACL):
		return b.setACL()
	default:
		return nil
	}
	return b.selectionChanged()
}

// detailKey scrolls the detail pane when it has the focus.
func (b *treePage) detailKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	n := b.shared.Keys.Nav
	if b.detail.tab == tabRecipe && b.detail.recipe != nil {
		t := b.detail.recipe.tbl
		switch {
		case key.Matches(msg, n.Up):
			t.Move(-1)
		case key.Matches(msg, n.Down):
			t.Move(1)
		case key.Matches(msg, n.Enter):
			return push(newRecipePage(b.shared, b.detail.path)), true
		default:
			return nil, false
		}
		return nil, true
	}
	switch {
	case key.Matches(msg, n.Up):
		b.detail.scrollBy(-1)
	case key.Matches(msg, n.Down):
		b.detail.scrollBy(1)
	case key.Matches(msg, n.PageUp):
		b.detail.scrollBy(-b.detail.height)
	case key.Matches(msg, n.PageDown):
		b.detail.scrollBy(b.detail.height)
	case key.Matches(msg, n.Top):
		b.detail.scroll = 0
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

func (b *treePage) Mouse(msg tea.MouseMsg) tea.Cmd {
	m := msg.Mouse()
	inTree := b.narrow() && b.focus == 0 || !b.narrow() && m.X < b.leftWidth()
	switch msg.(type) {
	case tea.MouseClickMsg:
		if !inTree {
			b.focus = 1
			return nil
		}
		b.focus = 0
		i := b.tree.offset + m.Y
		if m.Y >= 0 && i < len(b.tree.shown) {
			b.tree.cursor = i
			b.tree.clamp()
		}
	case tea.MouseWheelMsg:
		step := 3
		if m.Button == tea.MouseWheelUp {
			step = -3
		}
		if !inTree {
			b.detail.scrollBy(step)
			return nil
		}
		b.tree.move(step)
	}
	return b.selectionChanged()
}

func (b *treePage) View() string {
	now := b.shared.Now()
	if b.narrow() {
		if b.focus == 1 {
			return b.detail.view(true)
		}
		return b.tree.view(true, now)
	}
	left := strings.Split(b.tree.view(b.focus == 0, now), "\n")
	right := strings.Split(b.detail.view(b.focus == 1), "\n")
	sep := b.shared.Styles.Border.Render(" │ ")
	var out strings.Builder
	for i := 0; i < b.height; i++ {
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

func (b *treePage) remove() tea.Cmd {
	p := b.tree.selectedPath()
	if err := protected(p); err != nil {
		return failure(err)
	}
	st := b.tree.stats[p]
	if n, ok := b.shared.Tree.Get(p); ok && n.Stat != nil {
		st = n.Stat
	}
	if st == nil {
		return failure(fmt.Errorf("the stat of %s is not read yet", p))
	}
	if st.NumChildren > 0 {
		return failure(fmt.Errorf("%s has %d children: D deletes it with everything below", p, st.NumChildren))
	}
	version := st.Version
	w, ctx := b.shared.Writer, b.shared.Ctx
	body := []string{"Delete " + display.Line(p) + fmt.Sprintf(" (version %d)?", version)}
	if st.EphemeralOwner != 0 {
		body = append(body, "", b.shared.Styles.Warning.Render(fmt.Sprintf("It is an ephemeral node of session %s: its owner is not told.", display.Hex(st.EphemeralOwner))))
	}
	return openDialog(widget.Confirm("Delete", body, func() tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, requestTimeout)
			defer cancel()
			if err := w.Delete(ctx, p, version); err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: "deleted " + p}
		}
	}))
}

func (b *treePage) removeTree() tea.Cmd {
	p := b.tree.selectedPath()
	if err := protected(p); err != nil {
		return failure(err)
	}
	w, ctx := b.shared.Writer, b.shared.Ctx
	d := widget.Ask("Delete a whole subtree", []string{
		"Delete " + display.Line(p) + " and everything below it?",
		b.shared.Styles.Warning.Render("This cannot be undone. Ephemeral owners and lock holders are not told."),
		"Type the path to go ahead:"}, "path> ", "", func(string) tea.Cmd {
		return tea.Batch(status("deleting "+p+"…"), func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			defer cancel()
			if err := w.DeleteRecursive(ctx, p); err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: "deleted " + p + " and everything below it"}
		})
	})
	d.MustType = p
	return openDialog(d)
}
