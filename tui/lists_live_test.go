package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The list pages against a server, embedded and real: recipes made with
// the recipes package show, and change through the watches.

// liveRunner runs pages as app would: commands in goroutines, their
// messages and the live tree's reports back through every page's Update
// (app broadcasts data messages) on the test's goroutine.
type liveRunner struct {
	test   *testing.T
	shared *sharedState
	pages  []page
	msgs   chan tea.Msg
	pushed []page
}

// newLiveRunner forwards shared's tree reports and its live models'
// changes; one per sharedState, as the tree has one reader.
func newLiveRunner(t *testing.T, shared *sharedState) *liveRunner {
	t.Helper()
	r := &liveRunner{test: t, shared: shared, msgs: make(chan tea.Msg, 4096)}
	go func() {
		for {
			select {
			case paths := <-shared.Tree.Updates():
				r.msgs <- treeMsg(paths)
			case <-shared.live:
				r.msgs <- liveMsg{}
			case <-shared.Ctx.Done():
				return
			}
		}
	}()
	return r
}

// open starts a page at 120x40 and returns it.
func (r *liveRunner) open(p page) page {
	r.pages = append(r.pages, p)
	p.SetSize(120, 40)
	r.run(p.Init())
	return p
}

func (r *liveRunner) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		select {
		case r.msgs <- msg:
		case <-r.shared.Ctx.Done():
		}
	}()
}

func (r *liveRunner) deliver(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil, statusMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			r.run(c)
		}
	case pushMsg:
		r.pushed = append(r.pushed, msg.page)
	default:
		for i, p := range r.pages {
			np, cmd := p.Update(msg)
			r.pages[i] = np
			r.run(cmd)
		}
	}
}

// key sends a key to page p only, as app sends keys to the top page.
func (r *liveRunner) key(p page, msg tea.KeyPressMsg) {
	_, cmd := p.Update(msg)
	r.run(cmd)
}

// waitFor delivers messages until cond holds.
func (r *liveRunner) waitFor(what string, p page, cond func(view string) bool) string {
	r.test.Helper()
	deadline := time.After(30 * time.Second)
	for {
		v := p.View()
		if cond(v) {
			return v
		}
		select {
		case msg := <-r.msgs:
			r.deliver(msg)
		case <-deadline:
			r.test.Fatalf("waiting for %s; the page shows:\n%s", what, v)
		}
	}
}

// rowWith is the line of the view holding every one of parts.
func rowWith(view string, parts ...string) (string, bool) {
	for _, line := range strings.Split(view, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return line, true
		}
	}
	return "", false
}

// liveShared is what the pages share, connected to connect.
func liveShared(t *testing.T, connect string) *sharedState {
	t.Helper()
	dial, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c, err := zkview.Dial(dial, connect)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tree := zkview.NewTree(c, frameInterval)
	t.Cleanup(tree.Close)
	return &sharedState{Ctx: t.Context(), Client: c, Tree: tree, Styles: theme.Plain(), Keys: newKeyMap(false), Now: time.Now,
		Scan: recognize.Options{HeldTooLong: 10 * time.Minute}, Introspect: introspect.Options{Timeout: 5 * time.Second},
		live: make(chan struct{}, 1)}
}

func recipeSession(t *testing.T, connect string) *recipes.Session {
	t.Helper()
	s, err := recipes.Dial([]string{connect})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func hexID(id int64) string { return fmt.Sprintf("0x%x", uint64(id)) }

func TestLocksPageLive(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		shared := liveShared(t, connect)
		base := zktest.Path(t)
		s1, s2 := recipeSession(t, connect), recipeSession(t, connect)
		orders := base + "/locks/orders"
		ordersRow := "/locks/orders  " // the path's end: the start is cut to fit
		m1 := recipes.NewMutex(s1, orders)
		if err := m1.Lock(t.Context()); err != nil {
			t.Fatal(err)
		}
		waiting := make(chan error, 1)
		go func() { waiting <- recipes.NewMutex(s2, orders).Lock(t.Context()) }()
		// The explorer's own session holds a Kazoo lock: "you".
		mine, err := newRecipeSession(shared.Client)
		if err != nil {
			t.Fatal(err)
		}
		if err := recipes.NewMutex(mine, base+"/locks/kz", recipes.WithFormat(recipes.Kazoo)).Lock(t.Context()); err != nil {
			t.Fatal(err)
		}

		p := newRecipeListPage(shared, kindLocks, base).(*recipeListPage)
		r := newLiveRunner(t, shared)
		r.open(p)
		v := r.waitFor("the orders lock held by s1 with one waiter", p, func(v string) bool {
			line, ok := rowWith(v, ordersRow, "#0 "+hexID(s1.ID()), "127.0.0.1:")
			return ok && strings.HasSuffix(strings.TrimRight(line, " "), "1")
		})
		if _, ok := rowWith(v, "/locks/kz  ", "kazoo", "#0 you"); !ok {
			t.Errorf("the explorer's own lock is not \"you\":\n%s", v)
		}
		for _, dir := range []string{orders, base + "/locks/kz"} {
			if n := shared.expandedBy(dir); n != 1 {
				t.Errorf("%s expanded by %d pages, want 1", dir, n)
			}
		}

		// Release: the waiter holds, seen through the child watch.
		if err := m1.Unlock(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := <-waiting; err != nil {
			t.Fatal(err)
		}
		r.waitFor("the handoff to s2", p, func(v string) bool {
			line, ok := rowWith(v, ordersRow, "#1 "+hexID(s2.ID()))
			return ok && strings.HasSuffix(strings.TrimRight(line, " "), "0")
		})

		// Another page (the tree page) follows one of the directories: it
		// stays followed when the list closes.
		shared.expand(orders)
		p.Close()
		if n := shared.expandedBy(orders); n != 1 {
			t.Errorf("after Close, %s is expanded by %d, want 1 (the other page's)", orders, n)
		}
		if n := shared.expandedBy(base + "/locks/kz"); n != 0 {
			t.Errorf("after Close, the kz lock is still expanded by %d", n)
		}
		shared.collapse(orders)
	})
}

func TestQueuesAndElectionsPagesLive(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		shared := liveShared(t, connect)
		base := zktest.Path(t)
		s1, s2 := recipeSession(t, connect), recipeSession(t, connect)
		q := recipes.NewQueue(s1, base+"/jobs")
		for _, item := range []string{"job-1", "job-2"} {
			if _, err := q.Put(t.Context(), []byte(item)); err != nil {
				t.Fatal(err)
			}
		}
		e1 := recipes.NewElection(s1, base+"/leader")
		if err := e1.Campaign(t.Context()); err != nil {
			t.Fatal(err)
		}
		campaign := make(chan error, 1)
		go func() { campaign <- recipes.NewElection(s2, base+"/leader").Campaign(t.Context()) }()

		r := newLiveRunner(t, shared)
		queues := r.open(newRecipeListPage(shared, kindQueues, base))
		elections := r.open(newRecipeListPage(shared, kindElections, base))
		r.waitFor("two jobs", queues, func(v string) bool {
			_, ok := rowWith(v, "/jobs  ", "zookeeper-recipes", " 2  ", "  qn-0000000000: job-1")
			return ok
		})
		r.waitFor("s1 leading two candidates", elections, func(v string) bool {
			line, ok := rowWith(v, "/leader  ", "zkx", "#0 "+hexID(s1.ID()))
			return ok && strings.Contains(line, " 1 ") // one candidate besides the leader
		})

		if _, err := q.Take(t.Context()); err != nil {
			t.Fatal(err)
		}
		r.waitFor("one job left", queues, func(v string) bool {
			_, ok := rowWith(v, "/jobs  ", " 1  ", "  qn-0000000001: job-2")
			return ok
		})
		if err := e1.Resign(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := <-campaign; err != nil {
			t.Fatal(err)
		}
		r.waitFor("s2 leading", elections, func(v string) bool {
			_, ok := rowWith(v, "/leader  ", "#1 "+hexID(s2.ID()))
			return ok
		})
	})
}

func TestSessionsAndServerPagesLive(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		shared := liveShared(t, connect)
		base := zktest.Path(t)
		s1 := recipeSession(t, connect)
		if err := recipes.NewMutex(s1, base+"/lock").Lock(t.Context()); err != nil {
			t.Fatal(err)
		}
		r := newLiveRunner(t, shared)
		sessions := r.open(newSessionsPage(shared))
		v := r.waitFor("our session and s1's", sessions, func(v string) bool {
			_, mine := rowWith(v, hexID(shared.Client.SessionID())+" you", "yes")
			_, theirs := rowWith(v, hexID(s1.ID()), "127.0.0.1:", "yes", "1  /zkt-")
			return mine && theirs
		})
		if strings.Contains(v, "refused") {
			t.Errorf("a server allowing every word refused one:\n%s", v)
		}
		// Enter on s1 opens its detail with its lock node.
		sp := sessions.(*sessionsPage)
		for range sp.tbl.Rows {
			if sel, _ := sp.tbl.Selected(); strings.HasPrefix(sel.Cells[0], hexID(s1.ID())) {
				break
			}
			r.key(sp, listKey("down"))
		}
		r.key(sp, listKey("enter"))
		r.waitFor("enter to open the session", sp, func(string) bool { return len(r.pushed) == 1 })
		detail := r.open(r.pushed[0])
		r.waitFor("s1's lock node", detail, func(v string) bool {
			_, ok := rowWith(v, "ephemeral", base+"/lock/_c_")
			return ok
		})

		server := r.open(newServerPage(shared))
		flt, _ := widget.ParseFilter("znode")
		server.(filterable).SetFilter(flt)
		r.waitFor("the server standalone, and its mntr", server, func(v string) bool {
			_, row := rowWith(v, "standalone", "3.8.0")
			_, count := rowWith(v, "znode_count")
			return row && count && strings.Contains(v, "mntr of ")
		})
	})
}
