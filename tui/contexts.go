package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// Connection is one ensemble the explorer works on: its client and what
// the header and the pages need of it.
type Connection struct {
	Client *zkview.Client
	// Connect is the connect string as given, for the header.
	Connect string
	// ContextName is the named context it came from ("" for none).
	ContextName string
	ReadOnly    bool
	Introspect  introspect.Options
}

// ContextInfo is one context :ctx lists.
type ContextInfo struct {
	Name     string
	Server   string // connect string, chroot included
	ReadOnly bool
}

// Contexts is how the explorer lists and opens named contexts (:ctx);
// the CLI gives it from the contexts file.
type Contexts struct {
	// List lists the contexts, sorted by name.
	List func() ([]ContextInfo, error)
	// Open dials a context: its ensemble, credentials, TLS, SASL and
	// read-only, as zkx --context NAME would. The explorer closes the
	// client when it leaves it.
	Open func(ctx context.Context, name string) (Connection, error)
}

// contextSwitchedMsg is a context opened (or why not).
type contextSwitchedMsg struct {
	name string
	conn Connection
	err  error
}

// contextsMsg lists the contexts for :ctx without a name.
type contextsMsg struct {
	list []ContextInfo
	err  error
}

// openContextTimeout bounds dialling a context.
const openContextTimeout = 20 * time.Second

// openContext is :ctx [NAME]: without a name, the list; with one, switch.
func (a *app) openContext(name string) tea.Cmd {
	if a.contexts.List == nil || a.contexts.Open == nil {
		return failure(fmt.Errorf("no contexts here: %s", a.noContextsWhy()))
	}
	if name == "" {
		list := a.contexts.List
		return func() tea.Msg {
			l, err := list()
			return contextsMsg{list: l, err: err}
		}
	}
	if name == a.header.context {
		return status("already on context " + name)
	}
	open, ctx := a.contexts.Open, a.shared.Ctx
	return tea.Batch(status("connecting to context "+name+"…"), func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, openContextTimeout)
		defer cancel()
		conn, err := open(ctx, name)
		return contextSwitchedMsg{name: name, conn: conn, err: err}
	})
}

func (a *app) noContextsWhy() string {
	if len(a.demo) > 0 {
		return "the demo runs on its own ensemble (quit, then zkx --context NAME)"
	}
	return "the explorer was started without a contexts file"
}

// completeContexts offers the contexts' names for :ctx.
func completeContexts(a *app, prefix string) []string {
	if a.contexts.List == nil {
		return nil
	}
	list, err := a.contexts.List()
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range list {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c.Name)
		}
	}
	return out
}

// useConnection moves the whole explorer to another ensemble: every page,
// the live tree, the writer and the recipe actor of the old one are let go
// (what "you" held there is released in the background, then its session
// closed), and the tree page starts again on the new one.
func (a *app) useConnection(conn Connection) tea.Cmd {
	old, oldActor, oldTree := a.shared.Client, a.shared.Actor, a.shared.Tree
	for _, p := range a.pages {
		if c, ok := p.(closer); ok {
			c.Close()
		}
	}
	oldTree.Close()
	go func() {
		if oldActor != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			oldActor.Close(ctx)
			cancel()
		}
		old.Close()
	}()
	a.shared.Client, a.shared.ReadOnly, a.shared.Introspect = conn.Client, conn.ReadOnly, conn.Introspect
	// What was learnt of the old ensemble does not hold for the new one.
	a.shared.forgetAdmin()
	if a.shared.Holds != nil {
		a.shared.Holds = recognize.NewHoldClock()
	}
	a.shared.Tree = zkview.NewTree(conn.Client, frameInterval, zkview.TreeClock(a.shared.Now))
	a.shared.Keys = newKeyMap(conn.ReadOnly)
	a.shared.Writer, a.shared.Actor = nil, nil
	if !conn.ReadOnly {
		if w, err := conn.Client.Writer(); err == nil {
			a.shared.Writer, a.shared.Actor = w, newActor(conn.Client)
		}
	}
	a.owned = append(a.owned, conn.Client)
	a.header = header{connect: conn.Connect, context: conn.ContextName, readOnly: conn.ReadOnly,
		state: conn.Client.State(), session: conn.Client.SessionID(), server: conn.Client.Server()}
	a.pages = []page{newTreePage(a.shared, "/")}
	a.dialog, a.input = nil, nil
	a.resize()
	where := display.Line(conn.Connect)
	if conn.ReadOnly {
		where += ", read-only"
	}
	return tea.Batch(a.waitSession(conn.Client, conn.Client.Events()), a.waitTree(), a.askServer(), a.pages[0].Init(),
		status("context "+conn.ContextName+": "+where+"; every view reads again"))
}

// contextsPage is :ctx without a name: the contexts, the current one
// marked; enter switches.
type contextsPage struct {
	app           *app
	tbl           *widget.ListTable
	width, height int
}

func newContextsPage(a *app, list []ContextInfo) *contextsPage {
	p := &contextsPage{app: a, tbl: widget.NewListTable(
		widget.ListColumn{Title: "", Fit: true, Most: 1},
		widget.ListColumn{Title: "CONTEXT", Fit: true, Most: 30},
		widget.ListColumn{Title: "SERVER", Weight: 1, Min: 20},
		widget.ListColumn{Title: "", Fit: true, Most: 9},
	)}
	rows := make([]widget.TableRow, len(list))
	for i, c := range list {
		mark, ro := "", ""
		if c.Name == a.header.context {
			mark = "*"
		}
		if c.ReadOnly {
			ro = "read-only"
		}
		rows[i] = widget.TableRow{Key: c.Name, Cells: []string{mark, display.Line(c.Name), display.Line(c.Server), ro}}
	}
	p.tbl.SetRows(rows, a.shared.Now())
	p.tbl.SelectKey(a.header.context)
	return p
}

func (p *contextsPage) Init() tea.Cmd { return nil }
func (p *contextsPage) Title() string { return "contexts" }

func (p *contextsPage) Keys() []key.Binding {
	k := p.app.shared.Keys
	open := k.Nav.Enter
	open.SetHelp(open.Help().Key, "switch to the context")
	return []key.Binding{open, k.Nav.Up, k.Nav.Down}
}

func (p *contextsPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.tbl.SetSize(w, max(h-2, 1))
}

func (p *contextsPage) Update(msg tea.Msg) (page, tea.Cmd) {
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		if key.Matches(msg, p.app.shared.Keys.Nav.Enter) {
			if r, ok := p.tbl.Selected(); ok {
				return p, p.app.openContext(r.Key)
			}
			return p, nil
		}
		widget.Navigate(p.tbl.Table, p.app.shared.Keys.Nav, msg)
	}
	return p, nil
}

func (p *contextsPage) View() string {
	st := p.app.shared.Styles
	head := st.Title.Render(fmt.Sprintf("%d contexts", len(p.tbl.All))) +
		st.Dim.Render(" · * is this one · enter switches: every view reads again, with its credentials and read-only")
	lines := []string{widget.Fit(head, p.width), ""}
	lines = append(lines, widget.SplitLines(p.tbl.View(st, true, p.app.shared.Now()))...)
	return widget.Block(lines, p.width, p.height)
}
