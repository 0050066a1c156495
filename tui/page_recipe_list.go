package tui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/live"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipeListPage is :locks, :queues or :elections: the recipes of one
// kind at and under a root, found by a scan and then kept live (see
// page_recipe_list_live.go).
type recipeListPage struct {
	shared *sharedState
	kind   recipeKind
	root   string
	src    source
	// pageCtx ends the page's reads when it closes.
	pageCtx context.Context
	cancel  context.CancelFunc

	tbl *widget.ListTable
	// The recipes in the scan's order, by path; errs holds a listed
	// recipe's last failed read.
	order   []string
	recipes map[string]recognize.Recipe
	errs    map[string]error
	// deadlocks are the cycles of sessions among the locks listed, as of
	// the last rebuild.
	deadlocks []recognize.Deadlock
	// redrawAt is when a live duration on screen next changes.
	redrawAt time.Time

	scan scanState
	// model keeps the listed recipes live (page_recipe_list_live.go);
	// drawn is the version of it on screen, tables the servers' tables it
	// read the recipes with.
	model     *live.Model
	drawn     uint64
	tables    *introspect.Snapshot
	tablesErr error

	width, height int
}

// scanState is the scan in flight and what the last one said.
type scanState struct {
	gen     int
	running bool
	cancel  context.CancelFunc
	nodes   *atomic.Int64 // listed so far, written by the scan
	started time.Time
	took    time.Duration
	done    bool // a scan finished at least once
	err     error
	partial bool
	found   int64 // nodes the last finished scan listed
	// foundBy is how the last finished scan found the recipes: a walk, or
	// the directories of the servers' ephemeral nodes.
	foundBy string
}

func newRecipeListPage(shared *sharedState, kind recipeKind, root string) page {
	return newRecipeListPageFrom(shared, kind, root, clientSource(shared))
}

// newRecipeListPageFrom builds the page on any source (tests give canned
// answers).
func newRecipeListPageFrom(shared *sharedState, kind recipeKind, root string, src source) *recipeListPage {
	ctx, cancel := context.WithCancel(shared.Ctx)
	p := &recipeListPage{
		shared: shared, kind: kind, root: root, src: src, pageCtx: ctx, cancel: cancel,
		recipes: map[string]recognize.Recipe{}, errs: map[string]error{},
	}
	p.model = newLiveModel(shared, src, kind.tables(), func(path string, r recognize.Recipe) bool {
		return kind.is(r) && r.Info().Path == path
	})
	p.scan.nodes = new(atomic.Int64)
	p.tbl = widget.NewListTable(recipeColumns(kind)...)
	return p
}

func (p *recipeListPage) Init() tea.Cmd { return p.rescan() }

func (p *recipeListPage) Title() string { return string(p.kind) + " " + display.Line(p.root) }

func (p *recipeListPage) Keys() []key.Binding {
	k := p.shared.Keys
	open := k.Nav.Enter
	open.SetHelp(open.Help().Key, "open the "+p.kind.singular())
	rescan := k.Global.Refresh
	rescan.SetHelp(rescan.Help().Key, "scan again (finds new ones)")
	return []key.Binding{open, rescan, k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom}
}

func (p *recipeListPage) SetFilter(f widget.Filter) { p.tbl.SetFilter(f) }
func (p *recipeListPage) Filter() widget.Filter     { return p.tbl.Filter }

// Close stops the scan and lets go of every directory the page follows.
func (p *recipeListPage) Close() {
	p.cancel()
	p.model.Close()
}

// rescan starts a scan; rows already found stay on screen (and live)
// until it ends.
func (p *recipeListPage) rescan() tea.Cmd {
	if p.scan.cancel != nil {
		p.scan.cancel()
	}
	ctx, cancel := context.WithCancel(p.pageCtx)
	p.scan.gen++
	p.scan.running, p.scan.cancel = true, cancel
	p.scan.nodes = new(atomic.Int64)
	p.scan.started = p.shared.Now()
	gen, nodes, owner := p.scan.gen, p.scan.nodes, p
	src, root, withTables, contended := p.src, p.root, p.kind.tables(), p.kind.contended()
	opts := p.shared.scanOptions(nil)
	return func() tea.Msg {
		defer cancel()
		msg := scanMsg{owner: owner, gen: gen, pzxid: map[string]int64{}}
		var late *introspect.Pending
		if withTables {
			// The servers are asked while the tree is walked; the
			// recognisers wait for the answer only when they need it.
			late = introspect.NewPending()
			opts.Tables = late
			go func() { late.Set(src.introspect(ctx)) }()
		}
		opts.Visit = func(n zkview.WalkNode) {
			nodes.Add(1)
			if n.Stat != nil && n.Stat.NumChildren > 0 {
				msg.pzxid[n.Path] = n.Stat.Pzxid
			}
		}
		var list recognize.EphemeralList
		if late != nil && contended {
			list = late // locks and elections: found from the servers' ephemerals when they list them
		}
		msg.res, msg.err = scanRoot(ctx, src, root, opts, list)
		msg.nodes = nodes.Load()
		if late != nil {
			msg.snapshot, msg.snapshotErr = late.Wait()
		}
		return msg
	}
}

// scanRoot scans root. A root that is a component of a recipe (a Curator
// semaphore's leases/, a Kazoo semaphore's lock directory) gives the
// recipe it belongs to, as `zkx locks PATH` does.
func scanRoot(ctx context.Context, src source, root string, opts recognize.Options, list recognize.EphemeralList) (recognize.Result, error) {
	if root != "/" {
		if v, err := src.recognize(ctx, root, opts); err == nil && v != nil && v.Info().Path != root {
			return recognize.ResultOf(v), nil
		}
	}
	return src.scan(ctx, root, opts, list) // its errors name root
}

func (p *recipeListPage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p, p.key(msg)
	case scanMsg:
		if msg.owner != p || msg.gen != p.scan.gen {
			return p, nil
		}
		return p, p.scanned(msg)
	case liveMsg:
		p.pull()
		return p, nil
	case treeMsg:
		p.model.TreeChanged(msg)
		p.pull() // what the model did at once (it does its reads in the background)
		return p, nil
	case refreshMsg:
		return p, p.rescan()
	case sessionMsg:
		// A new session changes which rows are "you".
		p.rebuild()
	case frameMsg:
		if now := p.shared.Now(); !p.redrawAt.IsZero() && !now.Before(p.redrawAt) {
			p.rebuild()
		}
	}
	return p, nil
}

func (p *recipeListPage) key(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, p.shared.Keys.Nav.Enter) {
		return p.open()
	}
	if widget.Navigate(p.tbl.Table, p.shared.Keys.Nav, msg) {
		p.scheduleRedraw()
	}
	return nil
}

// open pushes the live view of the selected recipe.
func (p *recipeListPage) open() tea.Cmd {
	r, ok := p.tbl.Selected()
	if !ok {
		return nil
	}
	if p.kind == kindAlarms {
		return p.openAlarm(r.Key)
	}
	return push(newRecipePage(p.shared, r.Key))
}

// Mouse selects the clicked row (a second click opens it) and scrolls
// with the wheel.
func (p *recipeListPage) Mouse(msg tea.MouseMsg) tea.Cmd {
	open := widget.MouseTable(p.tbl.Table, msg, p.tableTop())
	p.scheduleRedraw()
	if open {
		return p.open()
	}
	return nil
}

// rebuild makes the table's rows from the recipes.
func (p *recipeListPage) rebuild() {
	now := p.shared.Now()
	rows := make([]widget.TableRow, 0, len(p.order))
	shown, deadlocks := p.deadlocked()
	p.deadlocks = deadlocks
	if p.kind == kindAlarms {
		rows = p.alarmRows(shown)
	} else {
		for _, path := range p.order {
			rows = append(rows, p.recipeRow(shown[path], now))
		}
	}
	p.tbl.SetSize(p.width, p.tableHeight()) // the notes above may have changed
	p.tbl.SetRows(rows, now)
	p.scheduleRedraw()
}

// scheduleRedraw finds when a duration on screen next changes: how long
// a holder has held (or its node's age), and how long ago its server
// last heard from it.
func (p *recipeListPage) scheduleRedraw() {
	now := p.shared.Now()
	p.redrawAt = time.Time{}
	var tables []time.Time
	if in := p.tables; p.kind.tables() && in != nil {
		tables = append(tables, in.At)
	}
	for _, r := range append(p.tbl.Visible(), widget.TableRow{}) {
		times := tables
		if r.Key != "" {
			times = shownTimes(p.recipes[r.Key])
		}
		for _, t := range times {
			at := now.Add(display.DurationStep(now.Sub(t)))
			if p.redrawAt.IsZero() || at.Before(p.redrawAt) {
				p.redrawAt = at
			}
		}
	}
}

// shownTimes are the moments a recipe's row counts from: its holder's
// (or leader's) start or node's creation, and when it was last heard.
func shownTimes(r recognize.Recipe) []time.Time {
	if r == nil {
		return nil // a row of no recipe (:alarms' members)
	}
	h := r.Holding()
	if len(h) == 0 {
		return nil
	}
	var out []time.Time
	for _, t := range []time.Time{h[0].HeldSince, h[0].Created, h[0].Liveness.Heard} {
		if !t.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

// nextFrame asks for frames while a scan runs (its progress), while a
// row flashes, and when a duration on screen changes; none when idle.
func (p *recipeListPage) nextFrame() time.Duration {
	now := p.shared.Now()
	var scanning, redraw time.Duration
	if p.scan.running {
		scanning = 100 * time.Millisecond
	}
	if !p.redrawAt.IsZero() {
		redraw = max(p.redrawAt.Sub(now), time.Millisecond)
	}
	return soonest(scanning, p.tbl.NextFlash(now), redraw)
}

func (p *recipeListPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.tbl.SetSize(w, p.tableHeight())
	p.scheduleRedraw()
}

// View draws a summary line, notes (errors, refusals), the table, and a
// hint line.
func (p *recipeListPage) View() string {
	st := p.shared.Styles
	lines := p.head()
	lines = lines[:min(len(lines), p.headLines())]
	if th := p.tableHeight(); th > 0 {
		lines = append(lines, widget.SplitLines(p.tbl.View(st, true, p.shared.Now()))...)
	}
	if p.height >= 6 {
		lines = append(lines, st.Dim.Render("rows stay live · ctrl+r scans again for new "+string(p.kind)+" · enter opens one · ! shows the notes in full"))
	}
	return widget.Block(lines, p.width, p.height)
}

// head is the summary and the notes, wrapped to the page's width; the
// notes take at most a third of the page, the rest behind !.
func (p *recipeListPage) head() []string {
	w := max(p.width, 20)
	return append(widget.Wrap(p.summary(), w), wrapNotes(p.shared.Styles, p.notes(), w, max(p.height/3-1, 1))...)
}

// headLines is how many lines go above the table, fewer on a short
// screen.
func (p *recipeListPage) headLines() int {
	n := len(p.head())
	if p.height < 10 {
		n = 1
	}
	return min(n, max(p.height, 0))
}

// Notes implements noter: ! shows them in full.
func (p *recipeListPage) Notes() []string { return p.notes() }

func (p *recipeListPage) tableTop() int { return p.headLines() }

func (p *recipeListPage) tableHeight() int {
	h := p.height - p.headLines()
	if p.height >= 6 {
		h-- // the hint
	}
	return max(h, 0)
}

// summary says what the list holds, or how far the scan is.
func (p *recipeListPage) summary() string {
	st := p.shared.Styles
	root := display.Line(p.root)
	if !p.scan.done {
		return st.Title.Render(fmt.Sprintf("scanning %s for %s… %s nodes", root, p.kind, display.Count(p.scan.nodes.Load())))
	}
	n := len(p.order)
	many := string(p.kind)
	switch p.kind {
	case kindSystems:
		many = "system objects"
	case kindAlarms:
		many = "recipes"
	}

	s := fmt.Sprintf("%d %s under %s", n, plural(n, p.kind.singular(), many), root)
	var parts []string
	switch p.kind {
	case kindLocks:
		held, waiting := 0, 0
		for _, v := range p.recipes {
			if l, ok := v.(*recognize.Lock); ok {
				if len(l.Holders) > 0 {
					held++
				}
				waiting += len(l.Waiters)
			}
		}
		parts = append(parts, fmt.Sprintf("%d held", held), fmt.Sprintf("%d waiting", waiting))
		if n := len(p.deadlocks); n > 0 {
			parts = append(parts, st.Error.Render(fmt.Sprintf("%d %s", n, plural(n, "deadlock", "deadlocks"))))
		}
	case kindQueues:
		items := 0
		for _, v := range p.recipes {
			if q, ok := v.(*recognize.Queue); ok {
				items += q.Length
			}
		}
		parts = append(parts, fmt.Sprintf("%d %s", items, plural(items, "item", "items")))
	case kindElections:
		led := 0
		for _, v := range p.recipes {
			if e, ok := v.(*recognize.Election); ok && e.Leader != nil {
				led++
			}
		}
		parts = append(parts, fmt.Sprintf("%d with a leader", led))
	case kindSystems:
		systems := map[[2]string]bool{}
		for _, v := range p.recipes {
			i := v.Info()
			systems[[2]string{i.System, i.SystemRoot}] = true
		}
		parts = append(parts, fmt.Sprintf("%d %s", len(systems), plural(len(systems), "system", "systems")))
	case kindRecipes:
		parts = append(parts, p.classCounts()...)
	case kindAlarms:
		parts = append(parts, p.alarmCount())
	}
	warned := 0
	for _, v := range p.recipes {
		if len(v.Info().Warnings) > 0 {
			warned++
		}
	}
	if warned > 0 {
		parts = append(parts, st.Warning.Render(fmt.Sprintf("%d with warnings", warned)))
	}
	scanned := fmt.Sprintf("scanned %s nodes in %s", display.Count(p.scan.found), humanDuration(p.scan.took))
	if p.scan.foundBy == recognize.FoundByEphemerals {
		scanned = fmt.Sprintf("read the %s directories of the servers' ephemeral nodes in %s, no walk", display.Count(p.scan.found), humanDuration(p.scan.took))
	}
	if p.scan.running {
		scanned = fmt.Sprintf("scanning again… %s nodes", display.Count(p.scan.nodes.Load()))
	}
	parts = append(parts, st.Dim.Render(scanned))
	if in := p.tables; p.kind.tables() && in != nil {
		// HEARD is as of this read: the list asks again only when a
		// recipe changes (a recipe's own page asks every few seconds).
		parts = append(parts, st.Dim.Render("server tables "+display.Duration(p.shared.Now().Sub(in.At))+" old"))
	}
	return st.Title.Render(s) + st.Dim.Render(" · ") + strings.Join(parts, st.Dim.Render(" · "))
}

// notes are what the page must say before the rows: a failed or partial
// scan, and what the servers would not tell.
func (p *recipeListPage) notes() []string {
	st := p.shared.Styles
	var out []string
	for _, d := range p.deadlocks {
		out = append(out, st.Error.Render("✗ "+display.Line(d.Text())))
	}
	if err := p.scan.err; err != nil {
		text := firstLine(err.Error())
		if p.scan.partial {
			out = append(out, st.Warning.Render("⚠ partial scan, showing what was found: "+text))
		} else {
			out = append(out, st.Error.Render("✗ "+text))
		}
	}
	if !p.kind.tables() {
		return out
	}
	in, err := p.tables, p.tablesErr
	if err != nil && in == nil {
		out = append(out, st.Warning.Render("⚠ no server tables ("+firstLine(err.Error())+"): client addresses and watches unknown"))
	}
	return append(out, introspectionNotes(p.shared, in, err)...)
}
