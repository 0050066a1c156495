package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The list pages' unit tests feed them canned server answers through a
// fake source and run their commands synchronously.

// listsEpoch is the fake clock's start.
var listsEpoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// listsClock is a clock tests move by hand.
// listsClock is the fake clock of the pages' tests, and the timers of
// their live models (zkview/live), which run when the test says.
type listsClock struct {
	now  time.Time
	held []heldFunc
}

// heldFunc is a live model's timer: f, due after after.
type heldFunc struct {
	after time.Duration
	fire  func()
}

func (c *listsClock) Now() time.Time          { return c.now }
func (c *listsClock) advance(d time.Duration) { c.now = c.now.Add(d) }

// hold keeps a live model's timer until the test runs it.
func (c *listsClock) hold(d time.Duration, f func()) {
	c.held = append(c.held, heldFunc{after: d, fire: f})
}

// runHeld runs the timers held for d, in order (their work runs at once).
func (c *listsClock) runHeld(d time.Duration) {
	var run []func()
	kept := c.held[:0]
	for _, h := range c.held {
		if h.after == d {
			run = append(run, h.fire)
		} else {
			kept = append(kept, h)
		}
	}
	c.held = kept
	for _, f := range run {
		f()
	}
}

// heldCount counts the timers held for d.
func (c *listsClock) heldCount(d time.Duration) int {
	n := 0
	for _, h := range c.held {
		if h.after == d {
			n++
		}
	}
	return n
}

func (c *listsClock) heldAfters() []time.Duration {
	var out []time.Duration
	for _, h := range c.held {
		out = append(out, h.after)
	}
	return out
}

// listsShared is what the pages share without a server: plain styles, the fake
// clock, no tree (pages follow nothing).
func listsShared(t *testing.T, clock *listsClock) *sharedState {
	return &sharedState{Ctx: t.Context(), Styles: theme.Plain(), Keys: newKeyMap(false), Now: clock.Now,
		Scan: recognize.Options{HeldTooLong: 10 * time.Minute},
		Go:   func(f func()) { f() }, After: clock.hold, Pace: clock.Now}
}

// fakeSource answers as a server would, from fields a test sets.
type fakeSource struct {
	mu      sync.Mutex
	res     recognize.Result
	scanErr error
	nodes   int // the scan reports this many nodes to Visit
	// dirs answers recognize.Dir: a recipe, nil, or an error.
	dirs        map[string]recognize.Recipe
	errs        map[string]error
	snapshot    *introspect.Snapshot
	snapshotErr error

	scans, recognitions, introspections int
	recognized                          []string
}

func (f *fakeSource) source() source {
	return source{
		scan: func(_ context.Context, root string, o recognize.Options, _ recognize.EphemeralList) (recognize.Result, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.scans++
			for i := 0; i < f.nodes; i++ {
				if o.Visit != nil {
					o.Visit(zkview.WalkNode{Path: fmt.Sprintf("%s/n%d", root, i), Stat: &zk.Stat{}})
				}
			}
			return f.res, f.scanErr
		},
		recognize: func(_ context.Context, dir string, _ recognize.Options) (recognize.Recipe, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.recognitions++
			f.recognized = append(f.recognized, dir)
			if err := f.errs[dir]; err != nil {
				return nil, err
			}
			return f.dirs[dir], nil
		},
		introspect: func(context.Context) (*introspect.Snapshot, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.introspections++
			return f.snapshot, f.snapshotErr
		},
	}
}

func (f *fakeSource) counts() (scans, recognitions, introspections int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.scans, f.recognitions, f.introspections
}

// heldMsg is a message a page's timer would deliver later; the runner
// holds it until the test releases it.
type heldMsg struct {
	after time.Duration
	msg   tea.Msg
}

func holdTimer(d time.Duration, msg tea.Msg) tea.Cmd {
	return func() tea.Msg { return heldMsg{after: d, msg: msg} }
}

// pageRunner runs a page's commands to completion on the test's
// goroutine and delivers their messages, as app would (minus app).
type pageRunner struct {
	test    *testing.T
	current page
	held    []heldMsg
	pushed  []page
	status  []statusMsg
}

func newPageRunner(t *testing.T, p page, w, h int) *pageRunner {
	t.Helper()
	p.SetSize(w, h)
	r := &pageRunner{test: t, current: p}
	r.do(p.Init())
	return r
}

// do runs cmd and everything its messages lead to.
func (r *pageRunner) do(cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case heldMsg:
			r.held = append(r.held, msg)
		case pushMsg:
			r.pushed = append(r.pushed, msg.page)
		case statusMsg:
			r.status = append(r.status, msg)
		default:
			np, next := r.current.Update(msg)
			r.current = np
			queue = append(queue, next)
		}
	}
}

// send delivers one message and runs what it leads to.
func (r *pageRunner) send(msg tea.Msg) {
	np, cmd := r.current.Update(msg)
	r.current = np
	r.do(cmd)
}

// release delivers the held timer messages.
func (r *pageRunner) release() {
	held := r.held
	r.held = nil
	for _, h := range held {
		r.send(h.msg)
	}
}

func listKey(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// The canned state: sessions, contenders, recipes, an introspection.
const (
	fakeUUID = "0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11"
	fakeHex  = "9f1c2b3a4d5e6f708192a3b4c5d6e7f8"
)

func fakeContender(node string, session int64, client string, age time.Duration, now time.Time) recognize.Contender {
	c := recognize.Contender{Node: node, SessionID: session, Client: client, Created: now.Add(-age)}
	if len(node) >= 10 {
		if seq, err := strconv.ParseInt(node[len(node)-10:], 10, 32); err == nil {
			c.Seq = int32(seq)
		}
	}
	if session != 0 {
		c.Session = fmt.Sprintf("0x%x", uint64(session))
	}
	return c
}

func curatorNode(kind string, seq int) string {
	return fmt.Sprintf("_c_%s-%s-%010d", fakeUUID, kind, seq)
}

func fakeLocks(now time.Time) []recognize.Lock {
	return []recognize.Lock{
		{Path: "/app/locks/orders", Recipe: "mutex", Format: "curator",
			Holders: []recognize.Contender{fakeContender(curatorNode("lock", 3), 0x1000000000000a1, "10.0.0.5:51234", 95*time.Second, now)},
			Waiters: []recognize.Contender{
				fakeContender(curatorNode("lock", 4), 0x1000000000000a2, "10.0.0.6:40112", 30*time.Second, now),
				fakeContender(curatorNode("lock", 5), 0x1000000000000a3, "10.0.0.7:40900", 3*time.Second, now),
			}},
		{Path: "/app/locks/billing", Recipe: "mutex", Format: "kazoo",
			Holders:  []recognize.Contender{fakeContender(fakeHex+"__lock__0000000000", 0x1000000000000b1, "10.0.0.8:33010", 2*time.Hour+3*time.Minute, now)},
			Warnings: []string{"holder session 0x1000000000000b1 (" + fakeHex + "__lock__0000000000) has held for 2h3m0s, longer than 10m0s"}},
		{Path: "/app/locks/pool", Recipe: "semaphore", Format: "zkx", MaxLeases: 3,
			Holders: []recognize.Contender{
				fakeContender("leases/"+curatorNode("lease", 1), 0x1000000000000c1, "10.0.0.9:41000", 12*time.Minute, now),
				fakeContender("leases/"+curatorNode("lease", 2), 0x1000000000000c2, "10.0.0.9:41001", 4*time.Minute, now),
			}},
		{Path: "/app/locks/stale", Recipe: "mutex", Format: "generic",
			Holders: []recognize.Contender{fakeContender("lock-0000000007", 0x1000000000000d1, "", 40*time.Minute, now)},
			Warnings: []string{
				"holder session 0x1000000000000d1 has no live connection (lock-0000000007): no server lists it, and its node stays until the session expires",
				"holder session 0x1000000000000d1 (lock-0000000007) has held for 40m0s, longer than 10m0s",
			}},
		{Path: "/app/locks/free", Recipe: "mutex", Format: "curator"},
	}
}

func fakeQueues() []recognize.Queue {
	return []recognize.Queue{
		{Path: "/app/jobs", Format: "zookeeper-recipes", Length: 3, Items: []recognize.QueueItem{
			{Node: "qn-0000000017", Data: "resize image 42"}, {Node: "qn-0000000018", Data: "resize image 43"}, {Node: "qn-0000000019", Data: "{\"id\":44}"}}},
		{Path: "/app/mail", Format: "kazoo", Length: 0},
		{Path: "/app/work", Format: "kazoo", Length: 1, Items: []recognize.QueueItem{{Node: "entries/entry-100-0000000004", Data: "send report", Taken: true}},
			Warnings: []string{"taken/entry-100-0000000003 marks no item: the entry was consumed or never existed"}},
	}
}

func fakeElections(now time.Time) []recognize.Election {
	// Candidates are those besides the leader.
	leader := fakeContender(curatorNode("latch", 0), 0x1000000000000e1, "10.0.1.1:50000", 3*time.Hour, now)
	return []recognize.Election{
		{Path: "/app/leader", Format: "curator", Leader: &leader, Candidates: []recognize.Contender{
			fakeContender(curatorNode("latch", 1), 0x1000000000000e2, "10.0.1.2:50001", time.Hour, now),
			fakeContender(curatorNode("latch", 2), 0x1000000000000e3, "10.0.1.3:50002", time.Minute, now)}},
		{Path: "/app/scheduler", Format: "zookeeper-recipes"},
	}
}

func fakeScanResult(now time.Time) recognize.Result {
	res := fakeOtherRecipes(now)
	res.Locks, res.Queues, res.Elections = fakeLocks(now), append(fakeQueues(), fakeDelayQueue(now)), fakeElections(now)
	return res
}

func fakeIntrospection(now time.Time) *introspect.Snapshot {
	monitor := func(mode string, nodes int) map[string]string {
		return map[string]string{
			"server_state": mode, "version": "3.8.0-5a02a05eddb59aee6ac762f7ea82e92a68eb9c0f, built on 2022-02-25 08:49 UTC",
			"avg_latency": "0.4", "max_latency": "12", "min_latency": "0", "packets_received": "10234", "packets_sent": "10301",
			"num_alive_connections": "4", "outstanding_requests": "0", "znode_count": fmt.Sprint(nodes), "watch_count": "7",
			"ephemerals_count": "6", "approximate_data_size": "48210", "open_file_descriptor_count": "61",
			"max_file_descriptor_count": "524288", "uptime": "86400123",
		}
	}
	stats := func(mode introspect.MemberMode, zxid int64) *introspect.ServerStats {
		return &introspect.ServerStats{Version: "3.8.0-5a02a05eddb59aee6ac762f7ea82e92a68eb9c0f, built on 2022-02-25 08:49 UTC",
			Mode: mode, Zxid: zxid, NodeCount: 12345, Connections: 4, Outstanding: 0, LatencyMin: 0, LatencyAvg: 0.4, LatencyMax: 12}
	}
	return &introspect.Snapshot{
		At: now,
		Members: []introspect.Member{
			{Addr: "zk1:2181", Mode: introspect.ModeLeader, Stats: stats(introspect.ModeLeader, 0x200000a1c), Monitor: monitor("leader", 12345), TablesFrom: introspect.TablesFromFourLetter},
			{Addr: "zk2:2181", Mode: introspect.ModeFollower, Stats: stats(introspect.ModeFollower, 0x200000a1b), Monitor: monitor("follower", 12345), TablesFrom: introspect.TablesPartial},
			{Addr: "zk3:2181", Mode: introspect.ModeUnreachable, Error: "connection refused", TablesFrom: string(introspect.ModeUnreachable)},
		},
		Sessions: []introspect.Session{
			{ID: 0x1000000000000a1, Hex: "0x1000000000000a1", Client: "10.0.0.5:51234", Server: "zk1:2181", Connected: true,
				Ephemerals: []string{"/app/locks/orders/" + curatorNode("lock", 3), "/app/members/web-1"}, Watches: []string{"/app/config"},
				WatchCount: 1, Timeout: 10 * time.Second, LastOp: "PING", Established: now.Add(-time.Hour), Expires: now.Add(8 * time.Second)},
			{ID: 0x1000000000000a2, Hex: "0x1000000000000a2", Client: "10.0.0.6:40112", Server: "zk2:2181", Connected: true,
				Ephemerals: []string{"/app/locks/orders/" + curatorNode("lock", 4)}, Watches: []string{"/app/locks/orders/" + curatorNode("lock", 3)},
				WatchCount: 1, Timeout: 10 * time.Second, LastOp: "GETD"},
			{ID: 0x1000000000000d1, Hex: "0x1000000000000d1", Server: "", Connected: false,
				Ephemerals: []string{"/app/locks/stale/lock-0000000007"}, Timeout: 30 * time.Second},
			{ID: 0x1000000000000f1, Hex: "0x1000000000000f1", Client: "10.0.2.1:60000", Server: "zk1:2181", Connected: true,
				WatchCount: 12, Timeout: 4 * time.Second, LastOp: "CREA"},
		},
		Refused:  []introspect.Refusal{{Member: "zk2:2181", Command: "wchc", Missing: "watches cannot be confirmed"}},
		Problems: []introspect.Problem{{Member: "zk3:2181", Command: "srvr", Err: errors.New("connection refused")}},
	}
}

// newFakeList opens a recipe list of kind on the canned state.
func newFakeList(t *testing.T, kind recipeKind, w, h int) (*pageRunner, *recipeListPage, *fakeSource, *listsClock) {
	t.Helper()
	clock := &listsClock{now: listsEpoch}
	f := &fakeSource{res: fakeScanResult(clock.now), nodes: 12345, snapshot: fakeIntrospection(clock.now),
		dirs: map[string]recognize.Recipe{}, errs: map[string]error{}}
	p := newRecipeListPageFrom(listsShared(t, clock), kind, "/app", f.source())
	r := newPageRunner(t, p, w, h)
	return r, p, f, clock
}
