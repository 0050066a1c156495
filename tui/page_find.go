package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
)

// findLimit is how many matches the page keeps; past it the walk stops
// and says so (zkx find prints them all).
const findLimit = 10000

// findSyntax is how the find dialog explains its query.
const findSyntax = "words: GLOB or /regex/ (the name), data=/regex/, ephemeral, owner=0x…, older=1h"

// parseFindQuery reads the explorer's find query: the same conditions as
// zkx find's flags, written as words.
func parseFindQuery(text string) (zkview.FindQuery, error) {
	var q zkview.FindQuery
	for _, w := range strings.Fields(text) {
		name, value, hasValue := strings.Cut(w, "=")
		var err error
		switch {
		case !hasValue && w == "ephemeral":
			q.Ephemeral = true
		case !hasValue, name == "name":
			if !hasValue {
				value = w
			}
			q.Name, err = zkview.ParseNamePattern(value)
		case name == "data":
			q.Data, err = zkview.ParseDataPattern(value)
		case name == "owner":
			q.Owner, err = zkview.ParseOwner(value)
		case name == "older":
			q.Older, err = time.ParseDuration(value)
			if err == nil && q.Older < 0 {
				err = fmt.Errorf("older=%s: a duration not below 0", value)
			}
		default:
			err = fmt.Errorf("%q: unknown condition (%s)", name, findSyntax)
		}
		if err != nil {
			return q, err
		}
	}
	return q, nil
}

// findPage lists the matches of a find under a node as the walk reaches
// them; Enter goes to one in the tree.
type findPage struct {
	shared  *sharedState
	root    string
	query   zkview.FindQuery
	tbl     *widget.ListTable
	rows    []widget.TableRow
	pageCtx context.Context
	cancel  context.CancelFunc

	visited int
	done    bool
	err     error
	capped  bool
	started time.Time
	elapsed time.Duration

	width, height int
}

// findBatchMsg carries the matches found since the last one.
type findBatchMsg struct {
	owner   *findPage
	matches []zkview.WalkNode
	visited int
	done    bool
	err     error
	capped  bool
	next    tea.Cmd
}

func newFindPage(shared *sharedState, root string, q zkview.FindQuery) *findPage {
	ctx, cancel := context.WithCancel(shared.Ctx)
	return &findPage{shared: shared, root: root, query: q, pageCtx: ctx, cancel: cancel,
		tbl: widget.NewListTable(
			widget.ListColumn{Title: "PATH", Weight: 1, Min: 20, Tail: true},
			widget.ListColumn{Title: "OWNER", Fit: true, Most: 18, Hide: 2},
			widget.ListColumn{Title: "BYTES", Fit: true, Most: 8, Right: true, Hide: 1},
			widget.ListColumn{Title: "MODIFIED", Fit: true, Most: 10, Right: true, Hide: 1},
		)}
}

func (p *findPage) Title() string { return "find " + display.Line(p.root) }
func (p *findPage) Close()        { p.cancel() }

func (p *findPage) Keys() []key.Binding {
	k := p.shared.Keys
	open := k.Nav.Enter
	open.SetHelp(open.Help().Key, "go to the node in the tree")
	return []key.Binding{open, k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom}
}

func (p *findPage) SetFilter(f widget.Filter) { p.tbl.SetFilter(f) }
func (p *findPage) Filter() widget.Filter     { return p.tbl.Filter }

// Init starts the walk. Matches travel through a channel that the page
// drains a frame's worth at a time, so a walk that finds thousands
// redraws a few times a second, not once a match.
func (p *findPage) Init() tea.Cmd {
	p.started = p.shared.Now()
	found := make(chan zkview.WalkNode, 256)
	result := make(chan findBatchMsg, 1)
	client, root, q, ctx := p.shared.Client, p.root, p.query, p.pageCtx
	counter := new(atomic.Int64)
	matched := 0
	go func() {
		defer close(found)
		var r zkview.Reader = client
		if bulk, err := client.DialBulk(ctx, 4); err == nil {
			defer bulk.Close()
			r = bulk
		}
		capped := false
		_, err := zkview.Find(ctx, r, root, q, zkview.WalkOptions{Concurrency: 64},
			func(zkview.WalkNode) { counter.Add(1) },
			func(n zkview.WalkNode) error {
				matched++
				if matched > findLimit {
					capped = true
					return errFindCapped
				}
				select {
				case found <- n:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		if capped {
			err = nil
		}
		result <- findBatchMsg{done: true, err: err, capped: capped}
	}()
	return p.drain(found, result, counter)
}

// errFindCapped stops a walk that found findLimit matches.
var errFindCapped = fmt.Errorf("find: %d matches", findLimit)

// drain waits for matches and hands over what arrived within a frame.
func (p *findPage) drain(found <-chan zkview.WalkNode, result <-chan findBatchMsg, counter *atomic.Int64) tea.Cmd {
	return func() tea.Msg {
		var batch []zkview.WalkNode
		tick := time.NewTimer(frameInterval * 3)
		defer tick.Stop()
		for {
			select {
			case n, ok := <-found:
				if !ok {
					res := <-result
					res.owner, res.matches, res.visited = p, batch, int(counter.Load())
					return res
				}
				batch = append(batch, n)
			case <-tick.C:
				return findBatchMsg{owner: p, matches: batch, visited: int(counter.Load()), next: p.drain(found, result, counter)}
			}
		}
	}
}

func (p *findPage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if key.Matches(msg, p.shared.Keys.Nav.Enter) {
			return p, p.open()
		}
		widget.Navigate(p.tbl.Table, p.shared.Keys.Nav, msg)
	case tea.MouseMsg:
		if widget.MouseTable(p.tbl.Table, msg, 1) {
			return p, p.open()
		}
	case findBatchMsg:
		if msg.owner != p {
			return p, nil
		}
		p.visited = msg.visited
		now := p.shared.Now()
		for _, n := range msg.matches {
			p.rows = append(p.rows, findRow(n, now))
		}
		if len(msg.matches) > 0 {
			p.tbl.SetRows(p.rows, time.Time{})
		}
		if msg.done {
			p.done, p.err, p.capped = true, msg.err, msg.capped
			p.elapsed = now.Sub(p.started)
			return p, nil
		}
		return p, msg.next
	}
	return p, nil
}

func (p *findPage) Mouse(msg tea.MouseMsg) tea.Cmd {
	_, cmd := p.Update(msg)
	return cmd
}

func findRow(n zkview.WalkNode, now time.Time) widget.TableRow {
	owner, size, mod := "", "", ""
	if n.Stat != nil {
		if zkview.IsSessionOwner(n.Stat.EphemeralOwner) {
			owner = display.Hex(n.Stat.EphemeralOwner)
		}
		size = strconv.Itoa(int(n.Stat.DataLength))
		mod = ago(now, time.UnixMilli(n.Stat.Mtime))
	}
	return widget.TableRow{Key: n.Path, Cells: []string{display.Line(n.Path), owner, size, mod}, Signature: n.Path}
}

// open goes to the selected match in the tree.
func (p *findPage) open() tea.Cmd {
	r, ok := p.tbl.Selected()
	if !ok {
		return nil
	}
	return goTo(r.Key)
}

func (p *findPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.tbl.SetSize(w, max(h-1, 1))
}

func (p *findPage) head() string {
	st := p.shared.Styles
	what := st.Label.Render(p.query.String()) + st.Dim.Render(" under "+display.Line(p.root)+" · ")
	switch {
	case p.err != nil:
		return what + st.Error.Render(firstLine(p.err.Error()))
	case p.capped:
		return what + st.Warning.Render(fmt.Sprintf("stopped at the first %s matches of %s nodes (zkx find lists them all)",
			display.Count(findLimit), display.Count(p.visited)))
	case p.done:
		return what + st.Dim.Render(fmt.Sprintf("%s of %s nodes matched in %s",
			display.Count(len(p.rows)), display.Count(p.visited), display.Duration(p.elapsed)))
	}
	return what + st.Info.Render(fmt.Sprintf("searching… %s nodes read, %s matched", display.Count(p.visited), display.Count(len(p.rows))))
}

func (p *findPage) View() string {
	return widget.Fit(p.head(), p.width) + "\n" + p.tbl.View(p.shared.Styles, true, p.shared.Now())
}

// askFind asks for a find query under dir and opens its page.
func askFind(shared *sharedState, dir string) tea.Cmd {
	return openDialog(widget.Ask("Find under "+display.Line(dir), []string{
		"What to look for — every condition must hold (empty: every node):",
		findSyntax,
		"e.g.  lock-* older=1h    /^_c_/ ephemeral    data=/enabled.*false/"}, "find> ", "", func(text string) tea.Cmd {
		q, err := parseFindQuery(text)
		if err != nil {
			return failure(err)
		}
		return push(newFindPage(shared, dir, q))
	}))
}
