package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
)

// detailTab is one tab of the detail pane.
type detailTab int

const (
	tabData detailTab = iota
	tabStat
	tabACL
	tabHistory
	tabRecipe
)

func (t detailTab) String() string { return [...]string{"Data", "Stat", "ACL", "History", "Recipe"}[t] }

// detailPane shows the selected node: its data decoded (live through a
// data watch), stat, ACL, the changes seen of it (History), and the
// recipe when the node is a recognised recipe directory.
type detailPane struct {
	shared *sharedState
	path   string
	tab    detailTab
	scroll int
	width  int
	height int

	decoder decode.Decoder
	hex     bool
	// decoded caches the data's lines for the version it was decoded at,
	// so drawing never decodes.
	decodedFor  string
	decoded     decode.Result
	decodedLine []string

	acl     []zk.ACL
	aclStat *zk.Stat // the stat read with the ACL (all we get without READ)
	aclErr  error
	aclFor  string
	aclVer  int32

	recipe *recipePane // when the Recipe tab has been shown for path
	label  dirLabel

	// quota is the quota covering quotaFor (pane_detail_quota.go).
	quota    *zkview.Quota
	quotaErr error
	quotaFor string

	// historyChildren is the node whose children the pane follows for the
	// History tab ("" for none).
	historyChildren string
}

func newDetailPane(shared *sharedState) *detailPane {
	return &detailPane{shared: shared, decoder: decode.Auto}
}

// show switches the pane to path, letting go of the previous node's
// watch and recipe view.
func (d *detailPane) show(path string, label dirLabel) tea.Cmd {
	if path == d.path {
		d.label = label
		return nil
	}
	d.release()
	d.path, d.label, d.scroll = path, label, 0
	d.acl, d.aclStat, d.aclErr, d.aclFor = nil, nil, nil, ""
	d.quota, d.quotaErr, d.quotaFor = nil, nil, ""
	if d.tab == tabRecipe && label.kind == "" {
		d.tab = tabData
	}
	if path == "" {
		return nil
	}
	d.shared.Tree.Watch(path)
	d.followHistoryChildren()
	cmds := []tea.Cmd{d.readACL()}
	switch d.tab {
	case tabRecipe:
		cmds = append(cmds, d.openRecipe())
	case tabStat:
		cmds = append(cmds, d.readQuota())
	}
	return tea.Batch(cmds...)
}

// release lets go of what the pane follows for its node.
func (d *detailPane) release() {
	if d.path != "" {
		d.shared.Tree.Unwatch(d.path)
	}
	if d.historyChildren != "" {
		d.shared.collapse(d.historyChildren)
		d.historyChildren = ""
	}
	if d.recipe != nil {
		d.recipe.close()
		d.recipe = nil
	}
}

func (d *detailPane) readACL() tea.Cmd {
	c, p := d.shared.Client, d.path
	return withTimeout(d.shared.Ctx, requestTimeout, func(ctx context.Context) tea.Msg {
		acl, st, err := c.ACL(ctx, p)
		return aclMsg{path: p, acl: acl, stat: st, err: err}
	})
}

func (d *detailPane) openRecipe() tea.Cmd {
	if d.recipe != nil || d.label.kind == "" {
		return nil
	}
	d.recipe = newRecipePane(d.shared, d.path)
	d.recipe.setSize(d.width, d.height-2)
	return d.recipe.init()
}

func (d *detailPane) tabs() []detailTab {
	if d.label.kind != "" {
		return []detailTab{tabData, tabStat, tabACL, tabRecipe, tabHistory}
	}
	return []detailTab{tabData, tabStat, tabACL, tabHistory}
}

// switchTab moves to the next (+1) or previous (-1) tab.
func (d *detailPane) switchTab(step int) tea.Cmd {
	tabs := d.tabs()
	i := 0
	for j, t := range tabs {
		if t == d.tab {
			i = j
		}
	}
	return d.setTab(tabs[(i+step+len(tabs))%len(tabs)])
}

// setTab shows tab t.
func (d *detailPane) setTab(t detailTab) tea.Cmd {
	d.tab = t
	d.scroll = 0
	d.followHistoryChildren()
	switch d.tab {
	case tabRecipe:
		return d.openRecipe()
	case tabStat:
		return d.readQuota()
	}
	return nil
}

func (d *detailPane) setSize(w, h int) {
	d.width, d.height = w, h
	if d.recipe != nil {
		d.recipe.setSize(w, h-2)
	}
}

// update takes data messages meant for the pane.
func (d *detailPane) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case quotaMsg:
		if msg.path == d.path {
			d.quota, d.quotaErr, d.quotaFor = msg.quota, msg.err, msg.path
		}
		return nil
	case refreshMsg:
		var cmds []tea.Cmd
		if d.tab == tabStat {
			cmds = append(cmds, d.readQuota())
		}
		if d.recipe != nil {
			cmds = append(cmds, d.recipe.update(msg))
		}
		return tea.Batch(cmds...)
	case aclMsg:
		if msg.path != d.path {
			return nil
		}
		d.acl, d.aclStat, d.aclErr, d.aclFor = msg.acl, msg.stat, msg.err, msg.path
		if msg.stat != nil {
			d.aclVer = msg.stat.Aversion
		}
		return nil
	case treeMsg:
		var cmds []tea.Cmd
		for _, p := range msg {
			if p != d.path {
				continue
			}
			d.followHistoryChildren() // the child count may have come or grown
			// ZooKeeper has no ACL watches: read the ACL again when the
			// stat says it changed.
			if n, ok := d.shared.Tree.Get(p); ok && n.Stat != nil && d.aclFor == p && n.Stat.Aversion != d.aclVer {
				d.aclVer = n.Stat.Aversion
				cmds = append(cmds, d.readACL())
			}
		}
		if d.recipe != nil {
			cmds = append(cmds, d.recipe.update(msg))
		}
		return tea.Batch(cmds...)
	}
	switch msg.(type) {
	case focusMsg, blurMsg:
		// The Recipe tab asks the servers again when its recipe changes,
		// not on a timer: only a recipe's own page polls.
		return nil
	}
	if d.recipe != nil {
		return d.recipe.update(msg)
	}
	return nil
}

// lines returns the current tab's content lines (the data's are cached).
func (d *detailPane) lines() []string {
	st := d.shared.Styles
	if d.path == "" {
		return []string{st.Dim.Render("nothing selected")}
	}
	n, _ := d.shared.Tree.Get(d.path)
	stat := n.Stat
	if stat == nil {
		stat = d.aclStat
	}
	switch d.tab {
	case tabStat:
		if stat == nil {
			return []string{d.missing(n)}
		}
		return fieldLines(st, zkview.FormatStat(stat, d.shared.Now()), d.quotaFields()...)
	case tabACL:
		switch {
		case d.aclFor != d.path:
			return []string{st.Dim.Render("reading…")}
		case zkview.IsNoAuth(d.aclErr):
			return fieldLines(st, zkview.FormatACL(nil)[:0], zkview.Field{Name: "acl", Value: zkview.NoAccessText})
		case d.aclErr != nil:
			return []string{st.Error.Render(firstLine(d.aclErr.Error()))}
		}
		lines := fieldLines(st, zkview.FormatACL(d.acl))
		if d.shared.Writer != nil {
			lines = append(lines, "", st.Dim.Render("A sets the ACL (scheme:id:perms,…)"))
		}
		return lines
	case tabHistory:
		return d.historyLines()
	case tabRecipe:
		return nil // drawn by the recipe view
	}
	return d.dataLines(n, stat)
}

func (d *detailPane) missing(n zkview.NodeState) string {
	st := d.shared.Styles
	switch {
	case n.Err != nil && zkview.IsNoNode(n.Err):
		return st.Error.Render("this node no longer exists")
	case n.Err != nil && zkview.IsConnectionLoss(n.Err):
		return st.Warning.Render(firstLine(n.Err.Error())) + st.Dim.Render(": read again once reconnected")
	case n.Err != nil && !zkview.IsNoAuth(n.Err):
		return st.Error.Render(firstLine(n.Err.Error()))
	}
	return st.Dim.Render("reading…")
}

func (d *detailPane) dataLines(n zkview.NodeState, stat *zk.Stat) []string {
	st := d.shared.Styles
	if zkview.IsNoAuth(n.Err) {
		return []string{st.Warning.Render(zkview.NoAccessText) + st.Dim.Render(": the ACL grants this session no READ (try --auth)")}
	}
	if !n.DataLoaded {
		return []string{d.missing(n)}
	}
	with := d.decoder
	if d.hex {
		with = decode.Hex
	}
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%s", d.path, n.Stat.Mzxid, len(n.Data), with)
	if key != d.decodedFor {
		d.decoded = decode.DataAt(d.path, n.Data, with)
		d.decodedLine = strings.Split(d.decoded.Text, "\n")
		d.decodedFor = key
	}
	head := []string{st.Label.Render(string(d.decoded.Decoder)) + st.Dim.Render(fmt.Sprintf(" · %s · version %d · modified %s",
		byteSize(len(n.Data)), stat.Version, ago(d.shared.Now(), time.UnixMilli(stat.Mtime))))}
	if d.decoded.Note != "" {
		head = append(head, st.Warning.Render(d.decoded.Note))
	}
	head = append(head, "")
	return append(head, d.decodedLine...)
}

func fieldLines(st theme.Styles, fields []zkview.Field, extra ...zkview.Field) []string {
	fields = append(fields, extra...)
	w := 0
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = display.Line(f.Name) // an ACL entry's id is the server's text
		w = max(w, len(names[i]))
	}
	out := make([]string, 0, len(fields))
	for i, f := range fields {
		out = append(out, st.HeaderLabel.Render(fmt.Sprintf("%-*s", w, names[i]))+"  "+f.Value)
	}
	return out
}

func (d *detailPane) scrollBy(delta int) {
	d.scroll = max(d.scroll+delta, 0)
}

func (d *detailPane) view(focused bool) string {
	st := d.shared.Styles
	var tabs []string
	for _, t := range d.tabs() {
		if t == d.tab {
			tabs = append(tabs, st.TabActive.Render(t.String()))
		} else {
			tabs = append(tabs, st.TabInactive.Render(t.String()))
		}
	}
	title := strings.Join(tabs, " ")
	if d.path != "" {
		title += "  " + st.Dim.Render(display.Line(d.path))
	}
	lines := []string{widget.Fit(title, d.width), st.Border.Render(strings.Repeat("─", max(d.width, 0)))}
	body := d.height - 2
	if d.tab == tabRecipe && d.recipe != nil {
		return widget.Block(append(lines, widget.SplitLines(d.recipe.view(focused))...), d.width, d.height)
	}
	content := d.lines()
	d.scroll = min(d.scroll, max(len(content)-body, 0))
	end := min(d.scroll+body, len(content))
	lines = append(lines, content[d.scroll:end]...)
	return widget.Block(lines, d.width, d.height)
}
