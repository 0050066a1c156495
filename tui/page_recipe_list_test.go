package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/live"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// rowCells returns the shown cells of the row with key, joined by "|".
func rowCells(p *recipeListPage, key string) (string, bool) {
	for _, r := range p.tbl.Rows {
		if r.Key == key {
			return strings.Join(r.Cells, "|"), true
		}
	}
	return "", false
}

func TestRecipeListEnterPushesRecipePage(t *testing.T) {
	t.Parallel()
	r, p, _, _ := newFakeList(t, kindLocks, 120, 40)
	r.send(listKey("down"))
	r.send(listKey("enter"))
	if len(r.pushed) != 1 {
		t.Fatalf("pushed %d pages, want 1", len(r.pushed))
	}
	if got := r.pushed[0].Title(); !strings.Contains(got, "/app/locks/billing") {
		t.Errorf("pushed %q, want the page of /app/locks/billing", got)
	}
	// A click on the selected row opens it too; on another row selects.
	r.pushed = nil
	top := p.tableTop() + 1 // the table's title row, then its rows
	r.do(p.Mouse(mouseClick(0, top+2)))
	if sel, _ := p.tbl.Selected(); sel.Key != "/app/locks/pool" || len(r.pushed) != 0 {
		t.Errorf("click selected %q and pushed %d", sel.Key, len(r.pushed))
	}
	r.do(p.Mouse(mouseClick(0, top+2)))
	if len(r.pushed) != 1 {
		t.Errorf("second click pushed %d pages, want 1", len(r.pushed))
	}
}

func TestRecipeListFilterNarrows(t *testing.T) {
	t.Parallel()
	_, p, _, _ := newFakeList(t, kindLocks, 120, 40)
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"kazoo", []string{"/app/locks/billing"}},
		{"/^/app/locks/(free|pool)/", []string{"/app/locks/pool", "/app/locks/free"}},
		{"0x1000000000000d1", []string{"/app/locks/stale"}},
		{"", []string{"/app/locks/orders", "/app/locks/billing", "/app/locks/pool", "/app/locks/stale", "/app/locks/free"}},
	} {
		f, err := widget.ParseFilter(tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		p.SetFilter(f)
		var got []string
		for _, i := range p.tbl.Table.Shown {
			got = append(got, p.tbl.Table.All[i].Key)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("filter %q shows %v, want %v", tc.filter, got, tc.want)
		}
		if p.Filter().Text != tc.filter {
			t.Errorf("Filter() = %q", p.Filter().Text)
		}
	}
	p.SetFilter(widget.Filter{Text: "nothing-like-this"})
	if v := p.View(); !strings.Contains(v, "nothing matches the filter") {
		t.Errorf("an empty filter result says nothing:\n%s", v)
	}
}

func TestRecipeListLiveRows(t *testing.T) {
	t.Parallel()
	r, p, f, clock := newFakeList(t, kindLocks, 120, 40)
	now := clock.now
	orders := fakeLocks(now)[0]

	// The first holder let go; the first waiter holds.
	next := orders
	next.Holders = []recognize.Contender{orders.Waiters[0]}
	next.Waiters = orders.Waiters[1:]
	f.dirs["/app/locks/orders"] = &next
	f.recognized = nil // the scan's look at its root
	r.send(treeMsg{"/app/locks/orders", "/elsewhere"})
	if got := strings.Join(f.recognized, " "); got != "/app/locks/orders" {
		t.Fatalf("recognised %q, want only the listed directory that changed", got)
	}
	cells, _ := rowCells(p, "/app/locks/orders")
	if !strings.Contains(cells, "#4 0x1000000000000a2") || !strings.Contains(cells, "|1|") {
		t.Errorf("row after the handoff: %s", cells)
	}
	if _, flashing := p.tbl.Table.Flashes["/app/locks/orders"]; !flashing {
		t.Error("the changed row does not flash")
	}
	if _, flashing := p.tbl.Table.Flashes["/app/locks/billing"]; flashing {
		t.Error("an unchanged row flashes")
	}
	if d := p.nextFrame(); d <= 0 || d > widget.FlashFor {
		t.Errorf("nextFrame %v while a row flashes", d)
	}

	// Time alone changes the held column, without a flash or a read.
	reads := len(f.recognized)
	clock.advance(widget.FlashFor)
	r.send(frameMsg(clock.now))
	if d := p.tbl.Table.NextFlash(clock.now); d != 0 {
		t.Errorf("a row flashes %v after a frame", d)
	}
	cells, _ = rowCells(p, "/app/locks/billing")
	if !strings.Contains(cells, "2h03m") {
		t.Errorf("billing held: %s", cells)
	}
	clock.advance(time.Minute)
	r.send(frameMsg(clock.now))
	if cells, _ = rowCells(p, "/app/locks/billing"); !strings.Contains(cells, "2h04m") {
		t.Errorf("the held column did not follow the clock: %s", cells)
	}
	if len(f.recognized) != reads {
		t.Error("a frame read the server")
	}

	// The last holder left and nothing replaced it: free, still listed.
	f.dirs["/app/locks/orders"] = nil
	r.send(treeMsg{"/app/locks/orders"})
	if cells, _ = rowCells(p, "/app/locks/orders"); !strings.Contains(cells, "(free)") {
		t.Errorf("emptied lock: %s", cells)
	}

	// A read that fails keeps the row and says why.
	f.errs["/app/locks/pool"] = errors.New("connection lost\nmore")
	r.send(treeMsg{"/app/locks/pool/leases"})
	if cells, _ = rowCells(p, "/app/locks/pool"); !strings.Contains(cells, "✗ connection lost …") || !strings.Contains(cells, "#1") {
		t.Errorf("failed read: %s", cells)
	}

	// The directory went: the row drops out.
	f.errs["/app/locks/stale"] = &zkview.PathError{Op: "children", Path: "/app/locks/stale", Err: zk.ErrNoNode}
	r.send(treeMsg{"/app/locks/stale"})
	if _, ok := rowCells(p, "/app/locks/stale"); ok {
		t.Error("a lock whose directory went is still listed")
	}
	if !strings.Contains(p.summary(), "4 locks under /app") {
		t.Errorf("summary: %s", p.summary())
	}
}

func TestRecipeListIntrospectsAtMostOncePerSecond(t *testing.T) {
	t.Parallel()
	r, _, f, clock := newFakeList(t, kindLocks, 120, 40)
	_, _, intros := f.counts()
	if intros != 1 {
		t.Fatalf("the scan asked the servers %d times, want 1", intros)
	}
	lock := fakeLocks(clock.now)[0]
	f.dirs["/app/locks/orders"] = &lock

	// A change right after the scan's question: put off to a second
	// after it.
	r.send(treeMsg{"/app/locks/orders"})
	if len(clock.held) != 1 || clock.held[0].after != live.TablesEvery {
		t.Fatalf("held %v, want one introspection a second after the last", clock.heldAfters())
	}
	// More changes while one is put off add none (the recipe's next
	// reading is put off by its own pace).
	clock.advance(live.RecognizeEvery)
	r.send(treeMsg{"/app/locks/orders"})
	if n := clock.heldCount(live.TablesEvery); n != 1 {
		t.Fatalf("%d introspections held", n)
	}
	clock.advance(live.TablesEvery)
	clock.runHeld(live.RecognizeEvery) // the recipe's reading put off
	recognitions := len(f.recognized)
	clock.runHeld(live.TablesEvery)
	r.send(liveMsg{})
	if _, _, intros = f.counts(); intros != 2 {
		t.Fatalf("asked %d times, want 2", intros)
	}
	// The changed recipe is read again with the new tables.
	if len(f.recognized) != recognitions+1 {
		t.Errorf("read %d recipes after the tables came, want 1", len(f.recognized)-recognitions)
	}
	// Idle: frames and time ask nothing.
	clock.advance(time.Hour)
	r.send(frameMsg(clock.now))
	if _, _, intros = f.counts(); intros != 2 || len(clock.held) != 0 {
		t.Errorf("idle page asked %d times, %d timers", intros, len(clock.held))
	}
	// A change long after asks a little later (its watch to settle).
	r.send(treeMsg{"/app/locks/orders"})
	if len(clock.held) != 1 || clock.held[0].after != live.TablesSettle {
		t.Fatalf("held %v, want one introspection %v after the change", clock.heldAfters(), live.TablesSettle)
	}
	// Queues ask as the others do: their items in flight have consumers.
	rq, _, fq, cq := newFakeList(t, kindQueues, 120, 40)
	rq.send(treeMsg{"/app/jobs"})
	if _, _, n := fq.counts(); n != 1 || len(cq.held) != 1 {
		t.Errorf("a queue list asked the servers %d times, %d timers, want its scan's, and one to come after the change", n, len(cq.held))
	}
}

func TestRecipeListScanProgressAndPartial(t *testing.T) {
	t.Parallel()
	clock := &listsClock{now: listsEpoch}
	release, visited := make(chan struct{}), make(chan struct{})
	f := &fakeSource{}
	src := f.source()
	src.scan = func(_ context.Context, root string, o recognize.Options, _ recognize.EphemeralList) (recognize.Result, error) {
		for i := 0; i < 1234; i++ {
			o.Visit(zkview.WalkNode{Path: fmt.Sprint(root, i)})
		}
		close(visited)
		<-release
		res := recognize.Result{Locks: fakeLocks(clock.now)[:2], Partial: true}
		return res, errors.New("scan /app: 2 nodes could not be read:\n/app/secret: not authenticated\n/app/gone: node does not exist")
	}
	p := newRecipeListPageFrom(listsShared(t, clock), kindLocks, "/app", src)
	p.SetSize(100, 20)
	cmd := p.Init()
	var wg sync.WaitGroup
	var msg any
	wg.Add(1)
	go func() { defer wg.Done(); msg = cmd() }()
	<-visited
	if v := p.View(); !strings.Contains(v, "scanning /app for locks… 1,234 nodes") {
		t.Errorf("no progress while scanning:\n%s", v)
	}
	if d := p.nextFrame(); d <= 0 {
		t.Error("no frames while scanning")
	}
	close(release)
	wg.Wait()
	r := &pageRunner{test: t, current: p}
	r.send(msg)
	v := p.View()
	for _, want := range []string{"⚠ partial scan, showing what was found: scan /app: 2 nodes could not be read …", "/app/locks/orders", "/app/locks/billing"} {
		if !strings.Contains(v, want) {
			t.Errorf("page lacks %q:\n%s", want, v)
		}
	}
	if len(r.status) != 1 || !r.status[0].err || strings.Contains(r.status[0].text, "\n") {
		t.Errorf("status %+v, want the error on one line", r.status)
	}
	if d := p.nextFrame(); d <= 0 {
		t.Error("a held lock's duration does not tick") // 1m35s on screen
	}

	// A rescan that fails outright keeps what was found.
	src.scan = func(context.Context, string, recognize.Options, recognize.EphemeralList) (recognize.Result, error) {
		return recognize.Result{}, errors.New("scan /app: connection lost")
	}
	p.src = src
	r.send(refreshMsg{})
	if _, ok := rowCells(p, "/app/locks/orders"); !ok {
		t.Error("a failed rescan lost the rows")
	}
	if v := p.View(); !strings.Contains(v, "✗ scan /app: connection lost") {
		t.Errorf("failed rescan not shown:\n%s", v)
	}
}

func TestRecipeListClosesWhatItFollows(t *testing.T) {
	t.Parallel()
	_, p, _, _ := newFakeList(t, kindLocks, 120, 40)
	want := map[string]bool{"/app/locks/orders": true, "/app/locks/pool": true, "/app/locks/pool/leases": true, "/app/locks/pool/locks": true}
	followed := p.model.Followed()
	for dir := range want {
		if !slices.Contains(followed, dir) {
			t.Errorf("%s not followed (%v)", dir, followed)
		}
	}
	p.Close()
	if f := p.model.Followed(); len(f) != 0 {
		t.Errorf("still following %v", f)
	}
	if p.pageCtx.Err() == nil {
		t.Error("Close left the page's reads running")
	}
}

func TestBareNames(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000003": "lock-0000000003",
		"leases/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lease-01": "leases/lease-01",
		"_c_9f1c2b3a4d5e6f708192a3b4c5d6e7f8-lock-0000000001":     "lock-0000000001",
		"9f1c2b3a4d5e6f708192a3b4c5d6e7f8__lock__0000000002":      "__lock__0000000002",
		"_c_not-a-uuid-lock-0000000003":                           "_c_not-a-uuid-lock-0000000003",
		"qn-0000000001":                                           "qn-0000000001",
	} {
		if got := recognize.BareName(in); got != want {
			t.Errorf("BareName(%q) = %q, want %q", in, got, want)
		}
	}
}

func mouseClick(x, y int) tea.MouseClickMsg {
	return tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}
}
