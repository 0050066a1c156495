package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/testkit/hostile"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// hostileOpen says how the hostile-text test opens each command of the
// registry and what escaped text shows it read the scene: every command
// must have a row, so a new page is not left out.
var hostileOpen = map[string]struct {
	arg   string // the argument after the name
	shows string // on the screen once the page has read the scene; "" for nothing to wait for
}{
	"tree":      {"", ""},
	"locks":     {hostile.Base, `zero\u200bwidth  #1`},
	"queues":    {hostile.Base, `\u200bwidth`},
	"elections": {hostile.Base, `\u200bwidth`},
	"systems":   {hostile.Base, `hbase`},
	"recipes":   {hostile.Base, `\u200bwidth`},
	"alarms":    {hostile.Base, `\u200bwidth`},
	"sessions":  {"", `op\x1b`},
	"admin":     {hostile.Text("admin"), ""},
	"server":    {"", `member\x1b[8m`},
	"demo":      {"", ""},
	"cd":        {hostile.Dir, `dir\u202eevi`},
	"ctx":       {"", `ctx-ok\x1b[8m`},
	"q":         {"", ""},
}

// hostileCrawls shares the registry's commands among explorers that crawl
// side by side: each crawls its commands in this order, then the pages
// named after it. A command's crawl may start from what the ones before it
// left — :admin from the tree's node the session pages went to, :server
// with :admin's setting, :q back in the context :ctx switched to — so
// those stay together, in the order one explorer crawled them all.
var hostileCrawls = []struct {
	commands []string
	// paths are tree nodes crawled after the commands.
	paths []string
}{
	{commands: []string{"tree", "locks", "queues"}},
	{commands: []string{"elections", "systems"}},
	{commands: []string{"recipes", "alarms"}},
	{commands: []string{"sessions", "admin", "server", "demo"}},
	// More of the tree: names that only list, the locks' directory, an
	// ACL, text and JSON to edit.
	{commands: []string{"cd", "ctx", "q"}, paths: []string{hostile.Base + "/listed", hostile.Base + "/locks", hostile.Dir + "/acl", hostile.Dir + "/text", hostile.Dir + "/json"}},
}

// hostileDialogs are the dialogs the issue names, each awaited: the crawl
// meets them too, but at the machine's pace.
var hostileDialogs = []struct {
	start string
	steps []string // a key, then what it must show, …
}{
	{"locks " + hostile.Base, []string{"enter", "holding", "F", "Force-release"}},
	{"locks " + hostile.Base, []string{"enter", "holding", "r", "Revoke"}},
	{"locks " + hostile.Base, []string{"enter", "holding", "w", "Warnings on"}},
	{"locks " + hostile.Base, []string{"enter", "holding", "!", "Messages and notes"}},
	{"cd " + hostile.Dir + "/json", []string{"e", "Not JSON any more"}},
	{"cd " + hostile.Dir, []string{"n", "New node under"}},
	{"cd " + hostile.Dir + "/acl", []string{"]", "cZxid", "]", `digest:user\x1b`, "A", "Set the ACL"}},
	{"cd " + hostile.Dir, []string{"?", "any key closes"}},
}

// TestHostileTextNeverReachesTheTerminal opens every page of the
// explorer's registry on a scene full of hostile text (hostile.Serve: node
// names, data, recipes, systems, ACLs, the servers' answers, the contexts,
// the session's own credentials), presses every key each page offers —
// the dialogs they open, the help, the pages they lead to — and scans
// every frame drawn on the way, before and after the explorer's last
// guard (theme.Clean): no byte a terminal would act on may be in it but
// the styles' own SGR sequences.
//
// The crawl mostly waits for what each key brings, so it is shared among
// explorers (hostileCrawls, and one for the dialogs) that crawl at once,
// as subtests run side by side without taking the package's parallel
// slots; a page two of them reach is crawled once, as by one explorer.
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	t.Parallel() // what the edits that fail leave goes to the package's TMPDIR (TestMain)
	connect := hostile.Serve(t).Addr
	// Every command is crawled, once.
	crawls := map[string]int{}
	for _, crawl := range hostileCrawls {
		for _, name := range crawl.commands {
			crawls[name]++
		}
	}
	for _, c := range commands {
		if _, ok := hostileOpen[c.name]; !ok {
			t.Errorf(":%s is not in hostileOpen: add how the hostile-text test opens it", c.name)
		}
		if crawls[c.name] != 1 {
			t.Errorf(":%s is in %d of hostileCrawls: put it in the one its page hangs on, or in one of its own", c.name, crawls[c.name])
		}
		delete(crawls, c.name)
	}
	for name := range crawls {
		t.Errorf("hostileCrawls names :%s, which is not a command", name)
	}
	for _, styled := range []bool{false, true} {
		name := "plain"
		if styled {
			name = "styled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			scan := &frameScanner{styled: styled, found: map[string]map[string]bool{}}
			pages := &crawledPages{crawled: map[string]bool{}}
			presses := make([]int, len(hostileCrawls)+1)
			var crawls sync.WaitGroup
			for i, crawl := range hostileCrawls {
				crawls.Go(func() {
					t.Run(strings.Join(crawl.commands, ","), func(t *testing.T) {
						d := hostileExplorer(t, connect, styled, scan)
						crawlCommands(t, d, pages, crawl.commands, crawl.paths)
						presses[i] = d.presses
					})
				})
			}
			crawls.Go(func() {
				t.Run("dialogs", func(t *testing.T) {
					d := hostileExplorer(t, connect, styled, scan)
					awaitDialogs(t, d)
					presses[len(hostileCrawls)] = d.presses
				})
			})
			crawls.Wait()
			var pressed int
			for _, n := range presses {
				pressed += n
			}
			scan.report(t, pressed, 600) // about 718 when every page is reached
		})
	}
}

// crawlCommands opens each command's page on d, awaits what shows it read
// the scene, and crawls it; then each tree node of paths.
func crawlCommands(t *testing.T, d *driver, pages *crawledPages, names, paths []string) {
	for _, name := range names {
		open := hostileOpen[name]
		line := name
		if open.arg != "" {
			line += " " + open.arg
		}
		cr := &crawler{t: t, driver: d, start: line, crawled: pages}
		began := time.Now()
		cr.reach(nil)
		if open.shows != "" && !cr.await(open.shows) {
			t.Errorf(":%s: %q never showed; the screen:\n%s", line, open.shows, d.screen())
		}
		cr.crawl(nil, 0)
		t.Logf(":%s crawled in %v", name, time.Since(began).Round(time.Millisecond))
	}
	for _, p := range paths {
		cr := &crawler{t: t, driver: d, start: "cd " + p, crawled: pages}
		cr.reach(nil)
		cr.crawl(nil, 0)
	}
}

// awaitDialogs opens each of hostileDialogs on d, pressing its keys and
// awaiting what each must show.
func awaitDialogs(t *testing.T, d *driver) {
	for _, s := range hostileDialogs {
		cr := &crawler{t: t, driver: d, start: s.start}
		cr.reach(nil)
		// The page has read the scene: a list its rows, the tree the
		// node it went to.
		kind, arg, _ := strings.Cut(s.start, " ")
		ready := func(screen string) bool { return strings.Contains(screen, hostileOpen[kind].shows) }
		if kind == "cd" {
			ready = func(screen string) bool {
				return d.app.selectedPath() == arg && strings.Contains(screen, " · version ")
			}
		}
		if !cr.awaitScreen(ready) {
			t.Errorf("%q: the page never showed the scene (selected %q):\n%s", s.start, d.app.selectedPath(), d.screen())
			continue
		}
		for i := 0; i+1 < len(s.steps); i += 2 {
			d.key(s.steps[i])
			if !cr.await(s.steps[i+1]) {
				t.Errorf("%q, then %v: %q never showed; the screen:\n%s", s.start, s.steps[:i+1], s.steps[i+1], d.screen())
				break
			}
		}
	}
}

// hostileExplorer opens an explorer on connect with hostile credentials,
// connect string and contexts; scan scans every frame it draws.
func hostileExplorer(t *testing.T, connect string, styled bool, scan *frameScanner) *driver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(ctx context.Context) (*zkview.Client, error) {
		return zkview.Dial(ctx, connect, zkview.WithAuth("digest", []byte(hostile.DigestUser+":"+hostile.Password)))
	}
	c, err := dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	styles := theme.Plain()
	if styled {
		styles = theme.New(true)
	}
	contexts := Contexts{
		List: func() ([]ContextInfo, error) {
			return []ContextInfo{{Name: hostile.Text("ctx-ok"), Server: hostile.Text("server")}, {Name: hostile.Text("ctx-fail"), Server: hostile.Text("server")}}, nil
		},
		Open: func(ctx context.Context, name string) (Connection, error) {
			if strings.HasPrefix(name, "ctx-fail") {
				return Connection{}, fmt.Errorf("dial %s: the server said %s", name, hostile.Text("refusal"))
			}
			c, err := dial(ctx)
			return Connection{Client: c, Connect: hostile.Text("connect again"), ContextName: name}, err
		},
	}
	app := newApp(Config{Client: c, Connect: hostile.Text("connect"), ContextName: hostile.Text("context"), Styles: &styles,
		Contexts: contexts, Now: func() time.Time { return fixedTime.Add(90 * time.Second) }})
	// The editor writes hostile text, and JSON that is not JSON.
	app.shared.Exec = func(c *exec.Cmd, done tea.ExecCallback) tea.Cmd {
		return func() tea.Msg {
			return done(os.WriteFile(c.Args[len(c.Args)-1], []byte(`{"broken": "`+hostile.UTF8("edited")), 0o600))
		}
	}
	d := newDriver(t, app, 120, 40)
	d.onFrame = func() { scan.frame(app) }
	d.waitText("hostile")
	return d
}

// crawler presses every key a page offers, and goes down the pages they
// open, from a command line.
type crawler struct {
	t      *testing.T
	driver *driver
	start  string // the command line that opens the first page
	// crawled are the pages crawled already, by this crawler or another.
	crawled *crawledPages
}

// crawledPages are the pages crawled already, by type, title and the node
// selected, shared by the crawlers that crawl side by side.
type crawledPages struct {
	mu      sync.Mutex
	crawled map[string]bool
}

// claim says whether the page id is still to crawl, and from now on that
// it is not.
func (p *crawledPages) claim(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.crawled[id] {
		return false
	}
	p.crawled[id] = true
	return true
}

// await delivers messages until the screen shows text, for at most 20 s.
func (cr *crawler) await(text string) bool {
	return cr.awaitScreen(func(screen string) bool { return strings.Contains(screen, text) })
}

// awaitScreen delivers messages until cond holds for the screen, for at
// most 20 s.
func (cr *crawler) awaitScreen(cond func(screen string) bool) bool {
	deadline := time.After(20 * time.Second)
	for !cond(cr.driver.screen()) {
		select {
		case msg := <-cr.driver.msgs:
			cr.driver.send(msg)
		case <-deadline:
			return false
		}
	}
	return true
}

// settle delivers what arrives until every command the keys started that
// answers has (driver.answered) — the reads, the pages pushed, the
// dialogs opened, and what those started in turn — and nothing more has
// for a moment, or for at most 20 s: what a tick or a change on the
// servers brings may come with a later key. The crawl's coverage does not
// hang on it: every frame on the way is scanned, and what each page must
// show is awaited.
func (cr *crawler) settle() {
	d := cr.driver
	deadline := time.After(20 * time.Second)
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-d.returned:
		case <-time.After(20 * time.Millisecond):
			// Every answer is queued before its command counts as done,
			// so none can come between these two looks.
			if done, _ := d.answered(); done && len(d.msgs) == 0 {
				return
			}
		case <-deadline:
			// A machine too busy to be quiet for 20 ms, or a command
			// that waits and is not in waitingCmds.
			_, running := d.answered()
			cr.t.Logf("%q: settling still after 20 s, running %s", cr.start, strings.Join(running, ", "))
			return
		}
	}
}

// maxCrawlDepth bounds how many pages deep the crawl goes below a
// command's page.
const maxCrawlDepth = 2

// reach opens the command's page afresh and presses keys, as the crawl
// came down.
func (cr *crawler) reach(keys []string) {
	a := cr.driver.app
	a.dialog, a.help, a.input = nil, false, nil
	a.popTo(0)
	if tp, ok := a.pages[0].(*treePage); ok {
		tp.detail.setTab(tabData) // as the crawl came down: from the data
	}
	cr.driver.run(a.run(cr.start))
	if cr.driver.onFrame != nil {
		cr.driver.onFrame()
	}
	cr.settle()
	// :cd selects the node as the tree's changes bring its ancestors,
	// which settle does not wait for.
	if tp, ok := a.top().(*treePage); ok && strings.HasPrefix(cr.start, "cd ") {
		if !cr.awaitScreen(func(string) bool { return tp.goal == "" }) {
			cr.t.Errorf("%q: the tree never went there (selected %q)", cr.start, a.selectedPath())
		}
		cr.settle()
	}
	for _, k := range keys {
		cr.driver.key(k)
		cr.settle()
	}
}

// crawl presses each key the page on top offers (keys is how it was
// reached), closing what they open and going down the pages they push.
func (cr *crawler) crawl(keys []string, depth int) {
	a := cr.driver.app
	top := a.top()
	id := fmt.Sprintf("%T %s %s", top, top.Title(), a.selectedPath())
	if !cr.crawled.claim(id) {
		return
	}
	var presses [][]string
	for _, b := range top.Keys() {
		if !b.Enabled() || len(b.Keys()) == 0 {
			continue
		}
		k := b.Keys()[0]
		if key.Matches(keyPress(k), a.shared.Keys.Global.Back) || k == "ctrl+c" {
			continue
		}
		presses = append(presses, []string{k})
	}
	// The explorer's own keys on every page, and the rows below the first.
	presses = append(presses, []string{"!"}, []string{"w"}, []string{"?"}, []string{"j", "enter"}, []string{"j", "j", "enter"})
	for _, p := range presses {
		cr.driver.send(keyPress(p[0]))
		cr.settle()
		for _, k := range p[1:] {
			cr.driver.key(k)
			cr.settle()
		}
		here := append(slices.Clone(keys), p...)
		cr.t.Logf("%q %s: %q", cr.start, strings.Join(here, " "), cr.outcome(top))
		switch {
		case a.dialog != nil || a.help || a.input != nil:
			cr.driver.key("esc")
			cr.settle()
		case a.top() != top && slices.Contains(a.pages, top):
			if depth < maxCrawlDepth {
				cr.crawl(here, depth+1)
			}
		}
		if a.top() != top {
			cr.reach(keys)
			top = a.top()
		}
	}
}

// outcome says what the last keys did, for the log: a dialog, the help,
// a page, a message.
func (cr *crawler) outcome(top page) string {
	a := cr.driver.app
	switch {
	case a.dialog != nil:
		return "a dialog: " + strings.TrimSpace(strings.SplitN(strings.TrimLeft(a.dialog.View(theme.Plain(), 100, 40), " \n╭┌─"), "\n", 3)[1])
	case a.help:
		return "the help"
	case a.input != nil:
		return "the input line " + a.input.Prompt
	case a.top() != top:
		return fmt.Sprintf("the page %q", a.top().Title())
	case a.message.text != "":
		return "the message " + a.message.text
	}
	return "-"
}

// frameScanner checks every frame the explorers draw for what a terminal
// would act on; they may draw at once.
type frameScanner struct {
	styled bool
	mu     sync.Mutex
	frames int
	// found is what was found, by where and the line it was on: the
	// kinds of control found on it.
	found map[string]map[string]bool
}

// frame scans what the app draws now: the screen as its views made it
// (before theme.Clean), what View hands Bubble Tea, and the window title.
func (s *frameScanner) frame(a *app) {
	raw := a.render()
	v := a.View()
	type finding struct{ where, what string }
	var found []finding
	if cleaned := theme.Clean(raw); cleaned != raw {
		// Something theme.Clean had to escape: a view forgot, or the
		// guard mistook the styles' own for it.
		raws, cleans := strings.Split(raw, "\n"), strings.Split(cleaned, "\n")
		for i := range min(len(raws), len(cleans)) {
			if raws[i] != cleans[i] {
				line := strings.TrimSpace(cleans[i])
				found = append(found, finding{fmt.Sprintf("theme.Clean changed the line %q", line[:min(len(line), 90)]), "escaped by the guard"})
				break
			}
		}
	}
	for what, text := range map[string]string{"the screen": raw, "View": v.Content, "the window title": v.WindowTitle} {
		for _, f := range hostile.Controls(text, hostile.Allow{SGR: s.styled && what != "the window title"}) {
			found = append(found, finding{what + ": " + f.Line, f.What})
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames++
	for _, f := range found {
		if s.found[f.where] == nil {
			s.found[f.where] = map[string]bool{}
		}
		s.found[f.where][f.what] = true
	}
}

// report fails the test for every line a control was found on, saying
// which, and when the crawl pressed fewer than atLeast keys: then it
// stopped early. (Keys, not frames: the frames between two keys depend on
// what arrives when, the keys a crawl presses do not.)
func (s *frameScanner) report(t *testing.T, presses, atLeast int) {
	t.Helper()
	t.Logf("%d frames scanned, %d keys pressed", s.frames, presses)
	if presses < atLeast {
		t.Errorf("only %d keys pressed: the crawl did not get far", presses)
	}
	for _, where := range sortedKeys(s.found) {
		t.Errorf("%s\n\t%s", where, strings.Join(sortedKeys(s.found[where]), ", "))
	}
}

// sortedKeys is for messages.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestHostileTextNeverReachesThePastsScreen steps an explorer on a data
// directory's past through transactions and audit events full of hostile
// text — paths, users, addresses, the directory's own name, a step's
// error — and scans every frame, as the test above does.
func TestHostileTextNeverReachesThePastsScreen(t *testing.T) {
	t.Parallel()
	connect := hostile.Serve(t).Addr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := zkview.Dial(ctx, connect, zkview.WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	plain := theme.Plain()
	app := newApp(Config{Client: c, Connect: hostile.Text("connect"), ReadOnly: true, Styles: &plain, Past: &hostilePast{}, Path: hostile.Dir})
	scan := &frameScanner{found: map[string]map[string]bool{}}
	d := newDriver(t, app, 120, 40)
	d.onFrame = func() { scan.frame(app) }
	cr := &crawler{t: t, driver: d, start: "cd " + hostile.Dir, crawled: &crawledPages{crawled: map[string]bool{}}}
	cr.reach(nil)
	d.key(">")
	if !cr.await(`auditor\x1b[8m`) {
		t.Errorf("the audit log's user never showed; the screen:\n%s", d.screen())
	}
	for _, k := range []string{">", ">", ">", "<", "{", "}", "?", "esc", "!", "esc"} {
		d.key(k)
		cr.settle()
		cr.t.Logf("%s: %q", k, cr.outcome(app.top()))
	}
	cr.crawl(nil, 0)
	scan.report(t, d.presses, 30) // 35 when every page is reached
}

// hostilePast is a past whose transactions and audit events are full of
// hostile text; it steps through them without a server, the explorer
// reading the hostile scene meanwhile.
type hostilePast struct{ at int }

func (p *hostilePast) positions() []forensics.Position {
	ip := hostile.UTF8("ip")
	return []forensics.Position{
		{Zxid: 0x100, Time: fixedTime, Approximate: true, Snapshot: hostile.Text("snapshot.100")},
		{Zxid: 0x101, Time: fixedTime, Txn: &forensics.Transaction{Zxid: 0x101, Type: "setData", Path: hostile.Dir + "/" + hostile.Text("txn"), Session: hostile.Holder},
			Who: &forensics.Who{Match: forensics.MatchEvent, Client: forensics.Client{User: hostile.Text("auditor") + "," + ip, IP: ip},
				Operation: hostile.Text("op"), Znode: hostile.Text("znode"), Result: hostile.Text("result")}},
		{Zxid: 0x102, Time: fixedTime, Txn: &forensics.Transaction{Zxid: 0x102, Type: "closeSession", Session: hostile.Waiter, ByServer: true,
			Removed: []string{hostile.CuratorLock + "/" + hostile.Text("removed")}, RemovedKnown: true},
			Who: &forensics.Who{ByServer: true, Client: forensics.Client{User: hostile.Text("server user")}, Session: &forensics.Client{User: hostile.Text("owner"), IP: ip}}},
		{Zxid: 0x103, Time: fixedTime, Txn: &forensics.Transaction{Zxid: 0x103, Type: "create", Path: hostile.Base + "/" + hostile.Text("created"), Session: hostile.Kazoo},
			Who: &forensics.Who{Match: forensics.MatchSession, Client: forensics.Client{User: hostile.Text("session user"), IP: ip}}},
	}
}

func (p *hostilePast) Position() forensics.Position { return p.positions()[p.at] }

func (p *hostilePast) Step(back bool, touching string) (forensics.Position, error) {
	if touching != "" {
		return p.Position(), fmt.Errorf("no transaction touches %s: the log says %s", touching, hostile.Text("why"))
	}
	next := p.at + 1
	if back {
		next = p.at - 1
	}
	if next < 0 || next >= len(p.positions()) {
		return p.Position(), forensics.ErrNoMore
	}
	p.at = next
	return p.Position(), nil
}

func (p *hostilePast) Where() string    { return "/var/lib/" + hostile.Text("data") + "/version-2" }
func (p *hostilePast) Clock() time.Time { return fixedTime }
