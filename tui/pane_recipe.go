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
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipePane is the live picture of one recipe directory: a lock's wait
// chain (holder ← waiter ← waiter, with sessions, clients, durations and
// who watches whom), a queue's items in order, an election's candidates
// with the leader marked. It follows the directory's children through
// the live tree and recognises it again when they change; the servers'
// tables (client addresses, observed watches) are asked again at most
// once a second while things change, never while nothing does.
type recipePane struct {
	ctx  *Shared
	path string

	recipe   recognize.Recipe // nil: not (or no longer) a recipe
	err      error
	gone     bool // the directory does not exist (a container goes with its last child)
	loaded   bool
	loading  bool
	dirty    bool // changed while a load was running
	tables   *introspect.Snapshot
	tablesAt time.Time
	tablesOK bool

	followed map[string]bool // directories expanded in the tree
	tbl      *widget.Table
	width    int
	height   int
}

// tablesEvery is the least time between two rounds of server questions.
const tablesEvery = time.Second

func newRecipePane(ctx *Shared, p string) *recipePane {
	return &recipePane{ctx: ctx, path: p, followed: map[string]bool{}, tbl: widget.NewTable()}
}

func (v *recipePane) init() tea.Cmd {
	v.follow(v.path)
	return v.load()
}

func (v *recipePane) follow(dir string) {
	if !v.followed[dir] {
		v.followed[dir] = true
		v.ctx.expand(dir)
	}
}

func (v *recipePane) close() {
	for dir := range v.followed {
		v.ctx.collapse(dir)
	}
	v.followed = map[string]bool{}
}

// load recognises the directory again in a command.
func (v *recipePane) load() tea.Cmd {
	if v.loading {
		v.dirty = true
		return nil
	}
	v.loading, v.dirty = true, false
	c, ctx, p := v.ctx.Client, v.ctx.Ctx, v.path
	tables, at := v.tables, v.tablesAt
	fresh := v.tablesOK && v.ctx.Now().Sub(at) < tablesEvery
	askOpts := v.ctx.Introspect
	opts := v.ctx.scanOptions(nil) // tables and clock set below, once read
	now := v.ctx.Now
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, introspectRequestTimeout)
		defer cancel()
		if !fresh {
			if in, err := introspect.Ask(ctx, c.Target(), askOpts); err == nil {
				tables, at = in, now()
			}
		}
		opts.Tables, opts.Now = tables.Tables(), now()
		r, err := recognize.Dir(ctx, c, p, opts)
		return recipeMsg{path: p, recipe: r, err: err, tables: tables, tablesAt: at}
	}
}

func (v *recipePane) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case recipeMsg:
		if msg.path != v.path {
			return nil
		}
		v.loading, v.loaded = false, true
		if msg.recipe == nil && msg.err == nil && v.recipe != nil {
			// Emptied, not another thing: still that recipe, in that
			// format, to whoever joins it next.
			msg.recipe = v.recipe.Emptied()
		}
		v.recipe, v.err, v.gone = msg.recipe, msg.err, zkview.IsNoNode(msg.err)
		if v.gone {
			v.err = nil
		}
		if msg.tables != nil {
			v.tables, v.tablesAt, v.tablesOK = msg.tables, msg.tablesAt, true
		}
		for _, dir := range v.dirs() {
			v.follow(dir)
		}
		v.tbl.Cols = v.columns()
		v.tbl.SetRows(v.rows(), v.ctx.Now())
		if v.dirty {
			return v.load()
		}
		return nil
	case treeMsg:
		for _, p := range msg {
			if v.followed[p] {
				return v.load()
			}
		}
	case sessionMsg:
		if msg.State == zkview.Connected {
			return v.load()
		}
	case refreshMsg:
		v.tablesOK = false
		return v.load()
	case frameMsg:
		if v.loaded {
			v.tbl.SetRows(v.rows(), v.ctx.Now()) // durations move on
		}
	}
	return nil
}

// dirs are the directories whose children make up the recipe: its own,
// and those its members live in (a semaphore's locks/ and leases/, a
// Kazoo semaphore's sibling lock directory, a locking queue's entries/
// and taken/).
func (v *recipePane) dirs() []string {
	if v.recipe == nil {
		return []string{v.path}
	}
	return v.recipe.Dirs()
}

func (v *recipePane) setSize(w, h int) {
	v.width, v.height = w, h
	v.tbl.SetSize(w, max(h-len(v.summary()), 2))
}

// contenders returns the rows of a lock or an election in queue order.
func (v *recipePane) contenders() (roles []string, cs []recognize.Contender) {
	switch r := v.recipe.(type) {
	case *recognize.Lock:
		for _, c := range r.Holders {
			role := "holder"
			if c.Kind != "" {
				role += " (" + c.Kind + ")"
			}
			roles, cs = append(roles, role), append(cs, c)
		}
		for i, c := range r.Waiters {
			role := fmt.Sprintf("waiter %d", i+1)
			if c.Kind != "" {
				role += " (" + c.Kind + ")"
			}
			roles, cs = append(roles, role), append(cs, c)
		}
	case *recognize.Election:
		for i, c := range electionOrder(r) {
			role := fmt.Sprintf("candidate %d", i)
			if r.Leader != nil && c.Node == r.Leader.Node {
				role = "leader"
			}
			roles, cs = append(roles, role), append(cs, c)
		}
	case *recognize.Barrier:
		for _, c := range r.Participants {
			roles, cs = append(roles, "participant"), append(cs, c)
		}
	case *recognize.Group:
		for _, c := range r.Members {
			roles, cs = append(roles, "member"), append(cs, c)
		}
	}
	return roles, cs
}

func (v *recipePane) columns() []widget.Column {
	if _, ok := v.recipe.(*recognize.Queue); ok {
		return []widget.Column{{Title: "#", Width: 5, Right: true}, {Title: "NODE", Width: 22}, {Title: "PRIORITY", Width: 8, Drop: 1},
			{Title: "DATA", Min: 10}, {Title: "", Width: 6, Drop: 2}}
	}
	return []widget.Column{{Title: "ROLE", Width: 15}, {Title: "NODE", Width: 20}, {Title: "SESSION", Width: 18, Drop: 2},
		{Title: "CLIENT", Width: 15, Drop: 4}, {Title: "FOR", Width: 7, Right: true}, {Title: "WAITS FOR", Width: 16, Drop: 1},
		{Title: "WATCH", Width: 5, Drop: 3}, {Title: "DATA", Min: 8, Drop: 5}}
}

// rows builds the table; each row's key is its node, so the cursor and
// flashes follow nodes.
func (v *recipePane) rows() []widget.TableRow {
	st := v.ctx.Styles
	now := v.ctx.Now()
	if q, ok := v.recipe.(*recognize.Queue); ok {
		rows := make([]widget.TableRow, 0, len(q.Items))
		for i, it := range q.Items {
			prio := ""
			if it.Priority != nil {
				prio = fmt.Sprint(*it.Priority)
			}
			taken := ""
			if it.Taken {
				taken = "taken"
			}
			rows = append(rows, widget.TableRow{Key: it.Node, Cells: []string{fmt.Sprint(i + 1), tailName(it.Node, 22), prio, it.Data, taken}})
		}
		return rows
	}
	roles, cs := v.contenders()
	rows := make([]widget.TableRow, 0, len(cs))
	for i, c := range cs {
		role := roles[i]
		if v.ctx.you(c.SessionID) {
			role += " (you)"
		}
		watch := ""
		switch c.Watch {
		case recognize.WatchObserved:
			watch = "✓"
		case recognize.WatchInferred:
			watch = "?"
		}
		dur := ""
		if !c.Created.IsZero() {
			dur = display.Duration(now.Sub(c.Created))
		}
		var style *lipgloss.Style
		switch {
		case v.ctx.you(c.SessionID):
			style = &st.You
		case strings.HasPrefix(roles[i], "holder"), roles[i] == "leader":
			style = &st.Holder
		}
		sig := strings.Join([]string{roles[i], c.Session, c.ClientText(), c.WaitsFor, c.Watch, c.Data}, "\x00")
		key := c.Node
		if key == "" {
			key = c.Session // a herd's waiters have no node, only a session
		}
		rows = append(rows, widget.TableRow{Key: key, Style: style, Sig: sig, Cells: []string{
			role, tailName(relativeNode(c.Node), 20), c.Session, display.Line(c.ClientText()), dur, tailName(relativeNode(c.WaitsFor), 16), watch, c.Data}})
	}
	return rows
}

// summary is the lines above the table: what the recipe is, the chain
// drawn in one line, warnings, and what the servers would not tell.
func (v *recipePane) summary() []string {
	st := v.ctx.Styles
	switch {
	case v.err != nil:
		return []string{st.Error.Render(v.err.Error()), ""}
	case !v.loaded:
		return []string{st.Dim.Render("recognising " + display.Line(v.path) + "…"), ""}
	case v.gone:
		return []string{st.Title.Render("(free)") + st.Dim.Render(" · the directory is gone: recipes keep lock directories as"+
			" containers, which ZooKeeper removes with their last child; it comes back with the next contender"), ""}
	case v.recipe == nil:
		return []string{st.Dim.Render("not a recipe zkx recognises (no lock, queue, election or barrier layout, no known system's node)"), ""}
	}
	var lines []string
	var warnings []string
	switch r := v.recipe.(type) {
	case *recognize.Lock:
		head := fmt.Sprintf("%s · %s · %d holding · %d waiting", r.Recipe, r.Format, len(r.Holders), len(r.Waiters))
		if r.MaxLeases > 0 {
			head += fmt.Sprintf(" · at most %d leases", r.MaxLeases)
		}
		lines = append(lines, st.Title.Render(head), v.chainLine(r.Holders, r.Waiters), watchLegend(st))
		warnings = r.Warnings
	case *recognize.Election:
		head := fmt.Sprintf("election · %s · %d in line behind the leader", r.Format, len(r.Candidates))
		if r.Leader != nil {
			head += " · leader " + r.Leader.Session
		}
		var leader, rest []recognize.Contender
		for _, c := range electionOrder(r) {
			if r.Leader != nil && c.Node == r.Leader.Node {
				leader = append(leader, c)
			} else {
				rest = append(rest, c)
			}
		}
		lines = append(lines, st.Title.Render(head), v.chainLine(leader, rest), watchLegend(st))
		warnings = r.Warnings
	case *recognize.Queue:
		head := fmt.Sprintf("queue · %s · %d items", r.Format, r.Length)
		if len(r.Items) < r.Length {
			head += fmt.Sprintf(" (first %d shown)", len(r.Items))
		}
		lines = append(lines, st.Title.Render(head), st.Dim.Render("taken from the top, in this order"))
		warnings = r.Warnings
	case *recognize.Barrier:
		head := fmt.Sprintf("%s · %s · %d participants", r.Kind, r.Format, len(r.Participants))
		if r.Ready {
			head += " · ready"
		}
		lines = append(lines, st.Title.Render(head))
		warnings = r.Warnings
	case *recognize.Group:
		lines = append(lines, st.Title.Render(fmt.Sprintf("members · %s · %d live", r.Format, len(r.Members))),
			st.Dim.Render("one ephemeral node per live member: it goes when the member's session does"))
		warnings = r.Warnings
	}
	if info := v.recipe.Info(); info.System != "" {
		// Whose it is first: what the system calls it, and where the system is.
		sys := st.Label.Render(info.System+" "+info.Role) + st.Dim.Render(" · "+display.Line(info.SystemRoot))
		lines = append([]string{sys}, lines...)
	}
	for _, w := range warnings {
		lines = append(lines, st.Warning.Render("⚠ "+w))
	}
	if line := v.tables.SourcesLine(); line != "" {
		lines = append(lines, st.Dim.Render(line))
	}
	return append(lines, "")
}

func watchLegend(st theme.Styles) string {
	return st.Dim.Render("← waits for · FOR: held or waiting · WATCH ✓ in the server's watch table, ? inferred from the protocol")
}

// chainLine draws holders ← waiter ← waiter in one line, eliding the
// middle of long queues.
func (v *recipePane) chainLine(holders, waiters []recognize.Contender) string {
	st := v.ctx.Styles
	herd := len(holders) == 1 && len(waiters) > 0
	for _, w := range waiters {
		herd = herd && w.Node == "" && w.WaitsFor == holders[0].Node
	}
	name := func(c recognize.Contender, s lipgloss.Style) string {
		label := "#" + fmt.Sprint(c.Seq) + " " + shortSession(c.SessionID)
		if herd {
			label = shortSession(c.SessionID) // one node, no sequence: sessions say who
		}
		if v.ctx.you(c.SessionID) {
			return st.You.Render(label + " (you)")
		}
		return s.Render(label)
	}
	var parts []string
	if len(holders) == 0 {
		parts = append(parts, st.Dim.Render("(free)"))
	} else {
		var hs []string
		for _, h := range holders {
			hs = append(hs, name(h, st.Holder))
		}
		parts = append(parts, strings.Join(hs, ", "))
	}
	const show = 6
	for i, w := range waiters {
		if len(waiters) > show+1 && i == show-1 {
			parts = append(parts, st.Dim.Render(fmt.Sprintf("… %d more", len(waiters)-show)))
			parts = append(parts, name(waiters[len(waiters)-1], st.Waiter))
			break
		}
		parts = append(parts, name(w, st.Waiter))
	}
	if herd {
		// Every waiter watches the one node: a release wakes them all.
		return parts[0] + st.Dim.Render(" ⇐ ") + strings.Join(parts[1:], st.Dim.Render(", ")) + st.Dim.Render("  (a herd: every release wakes all)")
	}
	return strings.Join(parts, st.Dim.Render(" ← "))
}

func (v *recipePane) view(focused bool) string {
	sum := v.summary()
	if v.tbl.Height != max(v.height-len(sum), 2) {
		v.tbl.SetSize(v.width, max(v.height-len(sum), 2))
	}
	lines := append([]string{}, sum...)
	if v.recipe != nil {
		lines = append(lines, widget.SplitLines(v.tbl.View(v.ctx.Styles, focused, v.ctx.Now()))...)
	}
	return widget.Block(lines, v.width, v.height)
}

// animates reports whether durations or flashes are on screen.
func (v *recipePane) animates() bool {
	_, cs := v.contenders()
	return len(cs) > 0 || v.tbl.Flashing(v.ctx.Now())
}

// selected returns the contender under the cursor, if any.
func (v *recipePane) selected() (recognize.Contender, bool) {
	r, ok := v.tbl.Selected()
	if !ok {
		return recognize.Contender{}, false
	}
	_, cs := v.contenders()
	for _, c := range cs {
		if c.Node == r.Key {
			return c, true
		}
	}
	return recognize.Contender{}, false
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

// electionOrder is the leader, then the candidates in line.
func electionOrder(e *recognize.Election) []recognize.Contender {
	out := make([]recognize.Contender, 0, len(e.Candidates)+1)
	if e.Leader != nil {
		out = append(out, *e.Leader)
	}
	for _, c := range e.Candidates {
		if e.Leader == nil || c.Node != e.Leader.Node {
			out = append(out, c)
		}
	}
	return out
}

// tailName keeps the end of a long node name, where its sequence number
// is: _c_3f2a…-lock-0000000003 → …-lock-0000000003.
func tailName(name string, width int) string {
	name = display.Line(name)
	r := []rune(name)
	if len(r) <= width || width < 2 {
		return name
	}
	return "…" + string(r[len(r)-width+1:])
}
