package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

func newFakeSessions(t *testing.T) (*pageRunner, *sessionsPage, *fakeSource, *listsClock) {
	t.Helper()
	clock := &listsClock{now: listsEpoch}
	f := &fakeSource{snapshot: fakeIntrospection(clock.now)}
	p := newSessionsPageFrom(listsShared(t, clock), f.source())
	return newPageRunner(t, p, 120, 40), p, f, clock
}

// TestSessionsPollOnlyOnTop: the servers' tables have no watches: the page
// asks again every pollEvery while it is on top — the app tells it when it
// comes on top and when it leaves (focusMsg, blurMsg) — never while it is
// not.
func TestSessionsPollOnlyOnTop(t *testing.T) {
	t.Parallel()
	r, p, f, clock := newFakeSessions(t)
	p.poll.refresh.after = holdTimer
	if _, _, n := f.counts(); n != 1 {
		t.Fatalf("asked %d times on opening", n)
	}
	// Below another page (never told it is on top): time passes, frames
	// come (the top one animates), nothing is read.
	clock.advance(time.Minute)
	r.send(frameMsg(clock.now))
	if _, _, n := f.counts(); n != 1 || len(r.held) != 0 {
		t.Fatalf("a page not on top asked again (%d), %d ticks", n, len(r.held))
	}
	// On top, its tables overdue: it asks at once.
	r.send(focusMsg{})
	if len(r.held) != 1 || r.held[0].after != time.Millisecond {
		t.Fatalf("ticks %v on coming on top, want one at once", r.held)
	}
	r.release()
	if _, _, n := f.counts(); n != 2 {
		t.Fatalf("asked %d times, want 2", n)
	}
	// The answer sets the next tick, pollEvery later.
	if len(r.held) != 1 || r.held[0].after != pollEvery {
		t.Fatalf("ticks %v after an answer, want one in %v", r.held, pollEvery)
	}
	// Covered before it is due: the tick asks nothing, and sets none.
	r.send(blurMsg{})
	clock.advance(pollEvery)
	r.release()
	if _, _, n := f.counts(); n != 2 || len(r.held) != 0 {
		t.Errorf("a covered page asked (%d), %d ticks", n, len(r.held))
	}
	// ctrl+r and a session change ask at once.
	r.send(refreshMsg{})
	r.send(sessionMsg{State: zkview.Connected})
	if _, _, n := f.counts(); n != 4 {
		t.Errorf("asked %d times, want 4", n)
	}
}

func TestSessionsEnterOpensDetail(t *testing.T) {
	t.Parallel()
	r, p, f, clock := newFakeSessions(t)
	r.send(listKey("down"))
	r.send(listKey("enter"))
	if len(r.pushed) != 1 {
		t.Fatalf("pushed %d pages", len(r.pushed))
	}
	d := r.pushed[0].(*sessionPage)
	if d.Title() != "session 0x1000000000000a2" {
		t.Errorf("title %q", d.Title())
	}
	// The detail shows the list's answer at once, without asking.
	dr := newPageRunner(t, d, 100, 20)
	if _, _, n := f.counts(); n != 1 {
		t.Errorf("the detail asked again at once (%d)", n)
	}
	v := dr.current.View()
	for _, want := range []string{"0x1000000000000a2 · connected · from 10.0.0.6:40112 to zk2:2181", "ephemeral  /app/locks/orders/_c_", "watch      /app/locks/orders/_c_"} {
		if !strings.Contains(v, want) {
			t.Errorf("detail lacks %q:\n%s", want, v)
		}
	}
	// The session goes: the page says so and keeps its last rows.
	gone := fakeIntrospection(clock.now)
	gone.Sessions = gone.Sessions[:1]
	f.snapshot = gone
	dr.send(refreshMsg{})
	v = dr.current.View()
	if !strings.Contains(v, "session 0x1000000000000a2 is no longer in the servers' tables") || !strings.Contains(v, "ephemeral") {
		t.Errorf("gone session:\n%s", v)
	}
	_ = p
}

func TestSessionsFailure(t *testing.T) {
	t.Parallel()
	clock := &listsClock{now: listsEpoch}
	f := &fakeSource{snapshotErr: errors.New("no member answered:\nzk1: refused")}
	p := newSessionsPageFrom(listsShared(t, clock), f.source())
	r := newPageRunner(t, p, 100, 20)
	if v := p.View(); !strings.Contains(v, "✗ the servers did not answer: no member answered …") {
		t.Errorf("failure not shown:\n%s", v)
	}
	if len(r.status) != 1 || !r.status[0].err {
		t.Errorf("status %+v", r.status)
	}
	// A later failure keeps the earlier answer, and says so.
	f.snapshotErr, f.snapshot = nil, fakeIntrospection(clock.now)
	r.send(refreshMsg{})
	f.snapshotErr = errors.New("timeout")
	r.send(refreshMsg{})
	if v := p.View(); !strings.Contains(v, "the last ask failed, showing the one before: timeout") || !strings.Contains(v, "0x1000000000000a1") {
		t.Errorf("second failure:\n%s", v)
	}
}

func TestServerPageMonitorFollowsSelectionAndFilter(t *testing.T) {
	t.Parallel()
	clock := &listsClock{now: listsEpoch}
	f := &fakeSource{snapshot: fakeIntrospection(clock.now)}
	p := newServerPageFrom(listsShared(t, clock), f.source())
	r := newPageRunner(t, p, 120, 40)
	if v := p.View(); !strings.Contains(v, "mntr of zk1:2181") || !strings.Contains(v, "server_state               leader") {
		t.Fatalf("mntr of the leader not shown:\n%s", v)
	}
	flt, _ := widget.ParseFilter("latency")
	p.SetFilter(flt)
	v := p.View()
	if !strings.Contains(v, "3 of 16 keys match latency") || strings.Contains(v, "packets_sent") || !strings.Contains(v, "avg_latency") {
		t.Errorf("filtered mntr:\n%s", v)
	}
	p.SetFilter(widget.Filter{})
	r.send(listKey("down"))
	if v := p.View(); !strings.Contains(v, "mntr of zk2:2181") || !strings.Contains(v, "follower") {
		t.Errorf("mntr does not follow the selection:\n%s", v)
	}
	r.send(listKey("down"))
	if v := p.View(); !strings.Contains(v, "mntr of zk3:2181") || !strings.Contains(v, "connection refused") {
		t.Errorf("unreachable member:\n%s", v)
	}
	// The wheel and clicks move through the members.
	p.Mouse(mouseClick(3, p.headLines()+1))
	if sel, _ := p.tbl.Selected(); sel.Key != "zk1:2181" {
		t.Errorf("click selected %q", sel.Key)
	}
}

func TestShortVersion(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"3.8.0-5a02a05eddb59aee6ac762f7ea82e92a68eb9c0f, built on 2022-02-25 08:49 UTC": "3.8.0",
		"3.9.2":                            "3.9.2",
		"":                                 "",
		"3.8.0-zkx-embedded, built on n/a": "3.8.0-zkx-embedded",
		"3.8.0-${mvngit.commit.id}, built on 2023-10-01 12:00 UTC": "3.8.0",
	} {
		if got := shortVersion(in); got != want {
			t.Errorf("shortVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSessionsRefusedTables: servers that refuse cons and dump list no
// session; the page reads the tree's ephemeral nodes instead and lists the
// sessions they name, says what is unknown and how to let zkx read it, and
// never says "0 sessions".
func TestSessionsRefusedTables(t *testing.T) {
	t.Parallel()
	clock := &listsClock{now: listsEpoch}
	in := &introspect.Snapshot{At: clock.now,
		Members: []introspect.Member{{Addr: "zk1:2181", Mode: introspect.ModeStandalone, TablesFrom: introspect.TablesRefused,
			AdminNote: "no AdminServer at http://zk1:8080/commands: connection refused"}},
		Refused: []introspect.Refusal{{Member: "zk1:2181", Command: "cons"}, {Member: "zk1:2181", Command: "wchc"},
			{Member: "zk1:2181", Command: "wchp"}, {Member: "zk1:2181", Command: "dump"}},
	}
	f := &fakeSource{snapshot: in}
	src := f.source()
	walks := 0
	src.ephemerals = func(context.Context) (map[int64][]string, int, error) {
		walks++
		return map[int64][]string{0x1000000000000b2: {"/app/locks/orders/lock-0000000001"}, 0x1000000000000b1: {"/app/members/web-1", "/app/leader"}}, 42, nil
	}
	p := newSessionsPageFrom(listsShared(t, clock), src)
	r := newPageRunner(t, p, 120, 40)
	v := r.current.View()
	for _, want := range []string{
		"2 sessions · 2 known only from their ephemeral nodes (a read of 42 nodes): their clients, connections and watches are",
		"connections unknown",
		"To read them: add cons, wchc, wchp, dump to 4lw.commands.whitelist on every server, or give zkx the members'",
		":admin http://HOST:PORT/commands",
		"0x1000000000000b1  ?       ?       ?         ?  2  /app/members/web-1",
		"0x1000000000000b2",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the page lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "0 sessions") {
		t.Errorf("0 sessions:\n%s", v)
	}
	// A poll does not walk the tree again; ctrl+r does.
	clock.advance(time.Minute)
	p.poll.refresh.after = holdTimer
	r.send(focusMsg{})
	r.release()
	if walks != 1 {
		t.Errorf("%d walks after a poll, want 1", walks)
	}
	r.send(refreshMsg{})
	if walks != 2 {
		t.Errorf("%d walks after ctrl+r, want 2", walks)
	}
}
