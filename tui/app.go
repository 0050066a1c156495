package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// renderFPS caps how often Bubble Tea draws; 30 is smooth enough for the
// flashes and the demo's lanes. Its renderer would wake this often even
// when nothing changed: the framePacer stops it while no view comes.
const renderFPS = 30

// frameInterval is how often the live tree may report changes: one frame.
const frameInterval = time.Second / renderFPS

// Config is what the explorer starts with.
type Config struct {
	Client *zkview.Client
	// Connect is the connect string as the user gave it, for the header.
	Connect string
	// ContextName is the named context the connect string came from (the
	// contexts file), for the header; "" for none.
	ContextName string
	ReadOnly    bool
	// Path is where the tree page starts (default "/").
	Path string
	// Demo lanes, when started by `zkx demo`: the demo page opens first.
	Demo []*demo.Lane
	// DemoLimit caps the demo's contenders per lane below its own limit
	// (zero: no cap), e.g. to what the server's connection limit allows.
	DemoLimit demo.ContenderLimit
	// HeldTooLong is when a holder is reported as stuck (default 10m).
	HeldTooLong time.Duration
	// QueueStale, PartitionSettle and SemaphoreMax are what recipes are
	// judged by (recognize.Options; zero: its defaults).
	QueueStale, PartitionSettle time.Duration
	SemaphoreMax                map[string]recognize.SemaphoreMax
	Introspect                  introspect.Options
	// Styles overrides the palette (tests use theme.Plain); nil picks one
	// for the terminal, plain when NO_COLOR is set.
	Styles *theme.Styles
	// Now is the clock (tests fix it); nil means time.Now, or the moment
	// shown on the past.
	Now func() time.Time
	// Contexts lists and opens the named contexts for :ctx (zero: none).
	Contexts Contexts

	// Past, when set, is the data directory's past the explorer shows
	// (Client reads it): keys step through it (timetravel.go).
	Past TimeTravel
}

// app is the root model.
type app struct {
	shared *sharedState
	cancel context.CancelFunc
	header header
	pages  []page
	demo   []*demo.Lane

	width, height int
	styled        bool // styles follow the terminal's background

	message   statusMsg         // the last message, shown on the status line
	input     *widget.LineInput // the `:` or `/` line when open
	inputKind rune
	dialog    *widget.Dialog
	help      bool

	frameQueued bool
	// The screen is drawn at most once per frameInterval (holdView):
	// Bubble Tea asks for it after every message, and under churn messages
	// come faster than its renderer (renderFPS) shows them. view is the screen last
	// drawn, at viewAt (pace clock); while viewHeld, View gives it again
	// and a redrawMsg on its way (the earliest due at redrawAt) draws the
	// screen when the interval is up, if a message was held since the
	// last screen (undrawn): a screen drawn meanwhile (a key, a frame)
	// makes it moot.
	view          tea.View
	viewAt        time.Time
	viewHeld      bool
	redrawAt      time.Time
	undrawn       bool
	userAt        time.Time // the last key or click (userDrawsFor)
	userWaits     bool      // a key or click not drawn yet: its screen is shown at once
	serverAskedAt time.Time // when srvr was last asked, for the header
	// members asks the members again for the header every membersEvery
	// after their last answer (the header is always shown: always on top).
	members refresher
	// focused is the page last told it is on top (focusMsg).
	focused page

	pacer *framePacer // nil outside Run (tests draw without a program)

	contexts Contexts
	// owned are the clients the explorer opened itself (:ctx): it closes
	// them at the end; the first is the caller's.
	owned []*zkview.Client

	// travel moves through a data directory's past; nil on a live server.
	travel *timeTravel
}

// newApp builds the explorer on a connected client. The caller closes the
// client after Run returns.
func newApp(cfg Config) *app {
	now := cfg.Now
	if now == nil && cfg.Past != nil {
		now = pastClock(cfg.Past)
	}
	if now == nil {
		now = time.Now
	}
	held := cfg.HeldTooLong
	if held <= 0 {
		held = 10 * time.Minute
	}
	root, cancel := context.WithCancel(context.Background())
	shared := &sharedState{
		Ctx: root, Client: cfg.Client, Tree: zkview.NewTree(cfg.Client, frameInterval, zkview.TreeClock(now)),
		Keys: newKeyMap(cfg.ReadOnly), ReadOnly: cfg.ReadOnly, Now: now,
		Scan:       recognize.Options{HeldTooLong: held, QueueStale: cfg.QueueStale, PartitionSettle: cfg.PartitionSettle, SemaphoreMax: cfg.SemaphoreMax},
		Introspect: cfg.Introspect, DemoLimit: cfg.DemoLimit,
		Holds: recognize.NewHoldClock(),
		Exec:  tea.ExecProcess,
		live:  make(chan struct{}, 1),
	}
	a := &app{shared: shared, cancel: cancel, demo: cfg.Demo, contexts: cfg.Contexts}
	a.members = refresher{every: membersEvery}
	a.members.focus()
	if cfg.Past != nil {
		shared.Past = true
		a.travel = newTimeTravel(cfg.Past)
		a.message = a.travel.opened()
	}
	switch {
	case cfg.Styles != nil:
		shared.Styles = *cfg.Styles
	case os.Getenv("NO_COLOR") != "":
		shared.Styles = theme.Plain()
	default:
		shared.Styles, a.styled = theme.New(true), true
	}
	if !cfg.ReadOnly {
		if w, err := cfg.Client.Writer(); err == nil {
			shared.Writer = w
			shared.Actor = newActor(cfg.Client)
		}
	}
	a.header = header{connect: cfg.Connect, context: cfg.ContextName, readOnly: cfg.ReadOnly, state: cfg.Client.State(),
		session: cfg.Client.SessionID(), server: cfg.Client.Server()}
	start := cfg.Path
	if start == "" {
		start = "/"
	}
	a.pages = []page{newTreePage(shared, start)}
	if len(cfg.Demo) > 0 {
		a.pages = append(a.pages, newDemoPage(shared, cfg.Demo))
	}
	return a
}

// Run shows the explorer until the user quits or ctx ends.
func Run(ctx context.Context, cfg Config, opts ...tea.ProgramOption) error {
	a := newApp(cfg)
	defer a.Close()
	opts = append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(renderFPS)}, opts...)
	p := tea.NewProgram(a, opts...)
	a.pacer = newFramePacer(p, renderFPS)
	_, err := p.Run()
	if errors.Is(err, tea.ErrInterrupted) || errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // SIGINT or SIGTERM (through ctx): a normal end
	}
	return err
}

// Close stops the live tree and lets go of what the explorer holds.
func (a *app) Close() {
	for _, p := range a.pages {
		if c, ok := p.(closer); ok {
			c.Close()
		}
	}
	if a.shared.Actor != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		a.shared.Actor.Close(ctx)
		cancel()
	}
	a.shared.Tree.Close()
	a.cancel()
	for _, c := range a.owned {
		c.Close()
	}
}

func (a *app) top() page { return a.pages[len(a.pages)-1] }

func (a *app) Init() tea.Cmd {
	cmds := []tea.Cmd{a.waitSession(a.shared.Client, a.shared.Client.Events()), a.waitTree(), a.waitLive(), a.askServer()}
	if a.styled {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	for _, p := range a.pages {
		cmds = append(cmds, p.Init())
	}
	return tea.Batch(append(cmds, a.refocus())...)
}

// waitSession delivers the next session event of the current client,
// then waits again.
func (a *app) waitSession(client *zkview.Client, events <-chan zkview.SessionEvent) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-events
		if !ok {
			return nil
		}
		return sessionEventMsg{ev: ev, events: events, client: client}
	}
}

func (a *app) waitTree() tea.Cmd {
	tree := a.shared.Tree
	updates := tree.Updates()
	done, closed := a.shared.Ctx.Done(), tree.Done()
	return func() tea.Msg {
		select {
		case paths := <-updates:
			return treeUpdateMsg{tree: tree, paths: paths}
		case <-done:
			return nil
		case <-closed: // left for another context's
			return nil
		}
	}
}

// waitLive delivers the next change of the pages' live models, at most
// one a frame however often they change.
func (a *app) waitLive() tea.Cmd {
	changed, done := a.shared.live, a.shared.Ctx.Done()
	return func() tea.Msg {
		select {
		case <-changed:
		case <-done:
			return nil
		}
		time.Sleep(frameInterval) // what changes in the frame comes in one message
		select {
		case <-changed:
		default:
		}
		return liveWakeMsg{}
	}
}

// askServer asks every member for srvr at once, for the header: the
// connected member's mode and znode count, and the members that do not
// answer, named.
func (a *app) askServer() tea.Cmd {
	addr := a.shared.Client.Server()
	if addr == "" {
		return nil
	}
	a.serverAskedAt = a.shared.Now()
	ctx, how, servers := a.shared.Ctx, a.shared.Introspect, a.shared.Client.Servers()
	return func() tea.Msg {
		return serverStatusMsg{addr: addr, members: introspect.Statuses(ctx, servers, how)}
	}
}

// membersEvery is how often the header asks the members again while
// nothing else makes it ask: a member that freezes while the explorer
// idles is named within it.
const membersEvery = 15 * time.Second

// chrome is the header line, the breadcrumb line and the status line.
const chrome = 3

func (a *app) resize() {
	a.shared.Width, a.shared.Height = a.width, max(a.height-chrome, 1)
	for _, p := range a.pages {
		p.SetSize(a.shared.Width, a.shared.Height)
	}
}

func (a *app) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := a.update(msg)
	return a, tea.Batch(cmd, a.refocus(), a.scheduleFrame(), a.holdView(msg))
}

// changesDrawEvery is the least time between two screens drawn for what
// the servers changed: a few a second. Under churn a screen is mostly new
// (rows come and go, History grows), and drawing it — the View and Bubble
// Tea's diff of the cells — was most of what was left of the explorer's
// CPU at ten a second (zkview.ReadEvery, the pace the Tree reads a busy
// node at, which keeps History's entries that fine). A lone change is
// drawn at once: only one that comes less than this after the last screen
// waits. What the user does, and the frames an animating page asks for,
// are drawn by the frame (frameInterval).
const changesDrawEvery = 250 * time.Millisecond

// userDrawsFor is how long after a key or a click the servers' changes are
// drawn every userChangesDrawEvery: what the user asked for (the node
// selected, its data read) shows as soon as the Tree reads it, not at the
// changes' slower pace.
const (
	userDrawsFor         = time.Second
	userChangesDrawEvery = zkview.ReadEvery
)

// holdView says whether the next View may give the screen last drawn: it
// does when that was drawn less than a frame ago (changesDrawEvery ago for
// a change from the servers, userChangesDrawEvery just after a key), and
// then a redrawMsg comes when the time is up, so that what changed
// meanwhile is drawn; one that needs a redraw sooner than the one due gets
// its own. A key or a click is drawn at once: it never waits for the
// renderer's frame to come round twice.
func (a *app) holdView(msg tea.Msg) tea.Cmd {
	if r, ok := msg.(redrawMsg); ok && r.at.Equal(a.redrawAt) {
		a.redrawAt = time.Time{} // it came
	}
	now := a.shared.pace()
	every := changesDrawEvery
	switch msg.(type) {
	case tea.KeyPressMsg, tea.MouseMsg:
		every, a.userAt = 0, now // drawn at once
		a.userWaits = true       // and shown at once (framePacer)
	case tea.WindowSizeMsg, frameMsg, redrawMsg:
		every = frameInterval
	default:
		if now.Sub(a.userAt) < userDrawsFor {
			every = userChangesDrawEvery
		}
	}
	since := now.Sub(a.viewAt)
	a.viewHeld = !a.viewAt.IsZero() && since >= 0 && since < every
	if _, redraw := msg.(redrawMsg); redraw && !a.undrawn {
		// Nothing came since the last screen: it stands.
		a.viewHeld = !a.viewAt.IsZero()
		return nil
	}
	if !a.viewHeld {
		return nil
	}
	a.undrawn = true
	due := a.viewAt.Add(every)
	if !a.redrawAt.IsZero() && !a.redrawAt.After(due) {
		return nil // one comes in time
	}
	// A later one still on its way finds the screen drawn (undrawn
	// false) and keeps it.
	a.redrawAt = due
	return tea.Tick(due.Sub(now), func(time.Time) tea.Msg { return redrawMsg{at: due} })
}

// refocus tells the page on top that it is, and the one it covered that it
// no longer is, when the top changed (a page pushed, popped, the demo
// brought back): pages that ask again what has no watch do so only on top.
func (a *app) refocus() tea.Cmd {
	top := a.top()
	if top == a.focused {
		return nil
	}
	var cmds []tea.Cmd
	for i, p := range a.pages {
		if p == a.focused { // still on the stack, under the new top
			np, cmd := p.Update(blurMsg{})
			a.pages[i] = np
			cmds = append(cmds, cmd)
		}
	}
	a.focused = top
	np, cmd := top.Update(focusMsg{})
	a.pages[len(a.pages)-1] = np
	a.focused = np
	return tea.Batch(append(cmds, cmd)...)
}

func (a *app) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.resize()
		return nil
	case tea.BackgroundColorMsg:
		if a.styled {
			a.shared.Styles = theme.New(msg.IsDark())
		}
		return nil
	case tea.KeyPressMsg:
		return a.key(msg)
	case tea.MouseMsg:
		return a.mouse(msg)
	case sessionEventMsg:
		if msg.client != a.shared.Client {
			return a.waitSession(msg.client, msg.events) // a context left: drain until its client closes
		}
		cmd := a.session(msg.ev)
		return tea.Batch(cmd, a.broadcast(sessionMsg(msg.ev)), a.waitSession(msg.client, msg.events))
	case contextsMsg:
		if msg.err != nil {
			return failure(msg.err)
		}
		if len(msg.list) == 0 {
			return failure(fmt.Errorf("the contexts file has no contexts (zkx context --help shows the format)"))
		}
		return push(newContextsPage(a, msg.list))
	case contextSwitchedMsg:
		if msg.err != nil {
			return failure(fmt.Errorf("context %s: %w (still on %s)", msg.name, msg.err, a.header.connect))
		}
		return a.useConnection(msg.conn)
	case treeUpdateMsg:
		if msg.tree != a.shared.Tree {
			return nil // of a context left
		}
		paths := treeMsg(msg.paths)
		for _, p := range paths {
			if n, ok := a.shared.Tree.Get(p); ok && n.Stat != nil {
				a.header.seeZxid(max(n.Stat.Mzxid, n.Stat.Pzxid))
			}
		}
		var cmds []tea.Cmd
		// Refresh the znode count now and then while things change; an
		// idle explorer asks nothing.
		if a.shared.Now().Sub(a.serverAskedAt) > 5*time.Second {
			cmds = append(cmds, a.askServer())
		}
		return tea.Batch(append(cmds, a.broadcast(paths), a.waitTree())...)
	case liveWakeMsg:
		return tea.Batch(a.broadcast(liveMsg{}), a.waitLive())
	case serverStatusMsg:
		a.header.seeMembers(msg.addr, msg.members)
		return a.members.schedule(membersEvery)
	case refreshDueMsg:
		if msg.owner == &a.members {
			if a.members.due(msg) {
				return a.askServer()
			}
			return nil
		}
	case introspectionMsg:
		// A page's answer names the members that do not answer too.
		a.header.seeSnapshot(msg.snapshot)
		return a.broadcast(msg)
	case statusMsg:
		// One line, and nothing a terminal would act on: errors can
		// carry several lines and names from the server. The whole of it
		// stays for ! to show.
		first, _, _ := strings.Cut(msg.text, "\n")
		msg.full = msg.text
		msg.text = display.Line(first)
		a.message = msg
		return nil
	case pushMsg:
		msg.page.SetSize(a.shared.Width, a.shared.Height)
		a.pages = append(a.pages, msg.page)
		return msg.page.Init()
	case openDialogMsg:
		a.dialog = msg.dialog
		return nil
	case goToMsg:
		tree, ok := a.pages[0].(*treePage)
		if !ok {
			return nil
		}
		a.popTo(0)
		return tree.goTo(msg.path)
	case redrawMsg:
		return nil // Update drew it (holdView)
	case frameMsg:
		a.frameQueued = false
		return a.broadcast(msg)
	case pastMovedMsg:
		return a.pastMoved(msg)
	}
	return a.broadcast(msg)
}

// session follows the explorer's session into the header.
func (a *app) session(ev zkview.SessionEvent) tea.Cmd {
	a.header.state = ev.State
	if ev.SessionID != 0 {
		a.header.session = ev.SessionID
	}
	switch ev.State {
	case zkview.Connected:
		a.header.server = ev.Server
		if ev.NewSession {
			a.header.reconnect++
			a.message = statusMsg{text: "the session expired; a new one is open and every view reads again", err: true}
		}
		return a.askServer()
	case zkview.Suspended:
		a.message = statusMsg{text: "connection lost: reconnecting (what is on screen may be stale)", err: true}
	case zkview.Expired:
		a.message = statusMsg{text: "session expired: its ephemeral nodes and locks are gone; opening a new one", err: true}
	}
	return nil
}

// broadcast hands a data message to every page, so a page is current
// when the user goes back to it.
func (a *app) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for i, p := range a.pages {
		np, cmd := p.Update(msg)
		a.pages[i] = np
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// animator pages draw durations or flashes and want a frame now and then
// while they do.
type animator interface{ nextFrame() time.Duration }

// scheduleFrame keeps one frame tick pending while the top page animates;
// an idle explorer has none.
func (a *app) scheduleFrame() tea.Cmd {
	if a.frameQueued {
		return nil
	}
	an, ok := a.top().(animator)
	if !ok {
		return nil
	}
	d := an.nextFrame()
	if d <= 0 {
		return nil
	}
	a.frameQueued = true
	return tea.Tick(d, func(t time.Time) tea.Msg { return frameMsg(t) })
}

func (a *app) key(msg tea.KeyPressMsg) tea.Cmd {
	g := a.shared.Keys.Global
	if a.dialog != nil {
		cmd, done := a.dialog.Update(msg)
		if done {
			a.dialog = nil
		}
		return cmd
	}
	if a.help {
		a.help = false
		return nil
	}
	if a.input != nil {
		return a.inputKey(msg)
	}
	switch {
	case key.Matches(msg, g.Quit):
		return tea.Quit
	case key.Matches(msg, g.Help):
		a.help = true
		return nil
	case key.Matches(msg, g.Command):
		a.message = statusMsg{}
		a.input, a.inputKind = &widget.LineInput{Prompt: ":", Complete: a.completeCommand, Limit: 4096}, ':'
		return nil
	case key.Matches(msg, g.Filter):
		f, ok := a.top().(filterable)
		if !ok {
			a.message = statusMsg{text: "this page has nothing to filter", err: true}
			return nil
		}
		a.message = statusMsg{}
		a.input, a.inputKind = &widget.LineInput{Prompt: "/", Value: f.Filter().Text, Limit: 1024}, '/'
		return nil
	case key.Matches(msg, g.Notices):
		return a.showNotices()
	case key.Matches(msg, g.Refresh):
		a.shared.Tree.Refresh()
		a.message = statusMsg{text: "reading everything on screen again"}
		return tea.Batch(a.askServer(), a.broadcast(refreshMsg{}))
	case key.Matches(msg, g.Back):
		if f, ok := a.top().(filterable); ok && f.Filter().Active() && msg.String() == "esc" {
			f.SetFilter(widget.Filter{})
			return nil
		}
		return a.back()
	}
	if a.travel != nil {
		if cmd, ok := a.travel.key(msg, a.selectedPath); ok {
			return cmd
		}
	}
	a.message = statusMsg{}
	np, cmd := a.top().Update(msg)
	a.pages[len(a.pages)-1] = np
	return cmd
}

// back pops the top page; on the first page it quits.
func (a *app) back() tea.Cmd {
	if len(a.pages) == 1 {
		return tea.Quit
	}
	if c, ok := a.top().(closer); ok {
		c.Close()
	}
	a.pages = a.pages[:len(a.pages)-1]
	return nil
}

func (a *app) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	in, kind := a.input, a.inputKind
	res := in.Update(msg)
	if kind == '/' && res != widget.InputCancel {
		// The filter follows every keystroke.
		f, err := widget.ParseFilter(in.Value)
		if err == nil {
			if fp, ok := a.top().(filterable); ok {
				fp.SetFilter(f)
			}
		}
	}
	switch res {
	case widget.InputCancel:
		a.input = nil
		if kind == '/' {
			if fp, ok := a.top().(filterable); ok {
				fp.SetFilter(widget.Filter{})
			}
		}
	case widget.InputSubmit:
		a.input = nil
		if kind == ':' {
			return a.run(in.Value)
		}
		if _, err := widget.ParseFilter(in.Value); err != nil {
			a.message = statusMsg{text: err.Error(), err: true}
		}
	}
	return nil
}

// run executes a `:` command through the registry (commands.go).
func (a *app) run(line string) tea.Cmd {
	pc, err := parseCommand(line)
	if err != nil {
		a.message = statusMsg{text: err.Error(), err: true}
		return nil
	}
	return pc.cmd.open(a, pc.arg)
}

// noter is a page with notes above its rows (what the servers would not
// tell, a failed scan): ! shows them in full with the last message.
type noter interface{ Notes() []string }

// showNotices opens the last status message and the page's notes in
// full, wrapped: nothing on the screen's single lines is lost.
func (a *app) showNotices() tea.Cmd {
	var body []string
	if a.message.full != "" {
		for _, l := range strings.Split(a.message.full, "\n") {
			body = append(body, display.Line(l))
		}
	}
	if n, ok := a.top().(noter); ok {
		for _, note := range n.Notes() {
			if len(body) > 0 {
				body = append(body, "")
			}
			body = append(body, note)
		}
	}
	if len(body) == 0 {
		a.message = statusMsg{text: "no message and no notes on this page"}
		return nil
	}
	a.dialog = widget.Show("Messages and notes", body)
	return nil
}

// admin runs :admin (admin.go) and has the pages ask the servers again
// when it changed where they are asked.
func (a *app) admin(arg string) tea.Cmd {
	msg, changed := setAdmin(a.shared, arg)
	a.message = msg
	if !changed {
		return nil
	}
	return a.broadcast(refreshMsg{})
}

// cd goes to path in the tree page.
func (a *app) cd(path string) tea.Cmd {
	a.popTo(0)
	return a.pages[0].(*treePage).goTo(path)
}

// openDemo brings the demo page back, or opens it when the explorer was
// started by zkx demo.
func (a *app) openDemo(string) tea.Cmd {
	if len(a.demo) == 0 {
		a.message = statusMsg{text: "no demo is running: start one with zkx demo", err: true}
		return nil
	}
	for i, p := range a.pages {
		if _, ok := p.(*demoPage); ok {
			a.popTo(i)
			return nil
		}
	}
	return push(newDemoPage(a.shared, a.demo))
}

// popTo closes every page above index i.
func (a *app) popTo(i int) {
	for len(a.pages) > i+1 {
		if c, ok := a.top().(closer); ok {
			c.Close()
		}
		a.pages = a.pages[:len(a.pages)-1]
	}
}

// completeCommand completes `:` lines; paths come from children the tree
// has loaded, and asking loads the directory for the next tab.
func (a *app) completeCommand(line string) []string {
	return completeCommand(a, line, func(dir string) []string {
		n, ok := a.shared.Tree.Get(dir)
		if !ok || !n.ChildrenLoaded {
			a.shared.Tree.Expand(dir)
			return nil
		}
		return n.Children
	})
}

func (a *app) mouse(msg tea.MouseMsg) tea.Cmd {
	if a.dialog != nil || a.help || a.input != nil {
		return nil
	}
	t, ok := a.top().(mouseTarget)
	if !ok {
		return nil
	}
	m := msg.Mouse()
	m.Y -= chrome - 1 // the page starts below the header and the breadcrumbs
	switch msg := msg.(type) {
	case tea.MouseClickMsg:
		return t.Mouse(tea.MouseClickMsg(m))
	case tea.MouseWheelMsg:
		return t.Mouse(tea.MouseWheelMsg(m))
	default:
		_ = msg
	}
	return nil
}

func (a *app) View() tea.View {
	defer func() {
		a.pacer.framed(a.userWaits)
		a.userWaits = false
	}()
	if a.viewHeld {
		return a.view
	}
	// Every frame passes here: the last guard against text a view forgot
	// to escape (theme.Clean).
	v := tea.NewView(theme.Clean(a.render()))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "zkx " + display.Line(a.header.connect)
	a.view, a.viewAt, a.undrawn = v, a.shared.pace(), false
	return v
}

// render draws the whole screen; split out so tests read it as text.
func (a *app) render() string {
	if a.width == 0 || a.height == 0 {
		return "starting…"
	}
	st := a.shared.Styles
	var body string
	switch {
	case a.help:
		var notes []string
		if n, ok := a.top().(helpNoter); ok {
			notes = n.HelpNotes()
		}
		if a.travel != nil {
			notes = append(notes, a.travel.notes()...)
		}
		body = helpView(st, helpGroups(a.shared.Keys, a.top().Title(), a.top().Keys()), notes, a.shared.Width, a.shared.Height)
	case a.dialog != nil:
		body = a.dialog.View(st, a.shared.Width, a.shared.Height)
	default:
		body = a.top().View()
	}
	head := a.header.view(st, a.width)
	if a.travel != nil {
		head = a.travel.header(st, a.width)
	}
	return head + "\n" + a.crumbs() + "\n" + body + "\n" + a.statusLine()
}

func (a *app) crumbs() string {
	st := a.shared.Styles
	line := ""
	for i, p := range a.pages {
		if i > 0 {
			line += st.Crumb.Render(" › ")
		}
		if i == len(a.pages)-1 {
			line += st.CrumbLast.Render(p.Title())
		} else {
			line += st.Crumb.Render(p.Title())
		}
	}
	if f, ok := a.top().(filterable); ok && f.Filter().Active() && a.input == nil {
		line += st.Dim.Render("  filter: ") + st.Match.Render(display.Line(f.Filter().Text))
	}
	return widget.Fit(line, a.width)
}

// statusLine is the open prompt, else the last message, else key hints.
func (a *app) statusLine() string {
	st := a.shared.Styles
	if a.input != nil {
		return a.input.View(st, a.width)
	}
	if a.message.text != "" {
		// Escaped here, where it is drawn: a page may set a message
		// without the statusMsg that escapes it.
		text := firstLine(a.message.text)
		more := st.Dim.Render(" … ! shows all")
		if a.message.err {
			return widget.FitWords(st.Error.Render("✗ ")+text, a.width, more)
		}
		return widget.FitWords(st.Info.Render("✓ ")+text, a.width, more)
	}
	right := keyHints(st, []key.Binding{a.shared.Keys.Global.Command, a.shared.Keys.Global.Help, a.shared.Keys.Global.Back})
	left := fitHints(st, enabled(a.top().Keys()), max(a.width-lipgloss.Width(right)-2, 0))
	return widget.Fit(left+"  "+right, a.width)
}

// fitHints writes as many whole hints as fit in width (? lists them all):
// a hint cut in the middle tells nothing.
func fitHints(st theme.Styles, keys []key.Binding, width int) string {
	var parts []string
	used := 0
	for _, b := range keys {
		hint := keyHint(st, b)
		w := lipgloss.Width(hint)
		if len(parts) > 0 {
			w += len(hintGap)
		}
		if used+w > width {
			break
		}
		parts, used = append(parts, hint), used+w
	}
	return widget.Fit(strings.Join(parts, hintGap), width)
}

// keyHints writes bindings as "key desc  key desc".
func keyHints(st theme.Styles, keys []key.Binding) string {
	parts := make([]string, 0, len(keys))
	for _, b := range keys {
		parts = append(parts, keyHint(st, b))
	}
	return strings.Join(parts, hintGap)
}

// hintGap stands between two key hints.
const hintGap = "  "

// keyHint is one binding as "key desc".
func keyHint(st theme.Styles, b key.Binding) string {
	h := b.Help()
	return st.HelpKey.Render(h.Key) + " " + st.HelpDesc.Render(shortHelp(h.Desc))
}

// shortHelp is a description up to its first parenthesis, for the
// status line; `?` shows it whole.
func shortHelp(desc string) string {
	if i := strings.Index(desc, " ("); i > 0 {
		return desc[:i]
	}
	return desc
}

// String names the app for debugging.
func (a *app) String() string { return fmt.Sprintf("zkx explorer on %s", a.header.connect) }
