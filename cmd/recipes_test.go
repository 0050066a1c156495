package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// testDeadline bounds every wait for the servers or the recipes.
const testDeadline = 30 * time.Second

// contender is one participant of a recipe, in a session of its own.
type contender struct {
	session *recipes.Session
	node    string // its node's name in the recipe's directory
}

// startContender opens a session, builds a recipe on it with an observer
// (build returns the acquiring call: Lock, Campaign…), starts acquiring,
// and returns once the recipe reports it holds, or waits with its watches
// set. The acquiring call is cancelled, and the session closed, when the
// test ends.
func startContender(t *testing.T, connect string, build func(*recipes.Session, recipes.Option) func(context.Context) error) contender {
	t.Helper()
	s, err := recipes.Dial(strings.Split(connect, ","))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	events := make(chan lockstats.Event, 64)
	observe := func(ev lockstats.Event) {
		select {
		case events <- ev:
		default: // never block the recipe; the test only needs the first few
		}
	}
	acquire := build(s, lockstats.RecipeOption(lockstats.Instruments{Observer: observe}).(recipes.Option))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- acquire(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	c := contender{session: s}
	deadline := time.After(testDeadline)
	for {
		select {
		case ev := <-events:
			switch ev.Kind {
			case lockstats.Queued:
				c.node = ev.Node
			case lockstats.Waiting, lockstats.Acquired:
				if c.node == "" {
					t.Fatalf("%v before the node was queued", ev.Kind)
				}
				return c
			}
		case err := <-done:
			if err != nil {
				t.Fatalf("contender gave up: %v", err)
			}
			done <- nil // for the cleanup
			// Acquired: its events are all in the channel already.
			for len(events) > 0 {
				if ev := <-events; ev.Kind == lockstats.Queued {
					c.node = ev.Node
				}
			}
			return c
		case <-deadline:
			t.Fatalf("contender neither holds nor waits after %v", testDeadline)
		}
	}
}

// waitChildren waits, on child watches, until dir has n children.
func waitChildren(t *testing.T, c *zk.Conn, dir string, n int) []string {
	t.Helper()
	deadline := time.After(testDeadline)
	for {
		children, _, ch, err := c.ChildrenW(dir)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			t.Fatal(err)
		}
		if len(children) == n {
			slices.Sort(children)
			return children
		}
		if errors.Is(err, zk.ErrNoNode) {
			_, _, ch, err = c.ExistsW(dir)
			if err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s has %d children, want %d", dir, len(children), n)
		}
	}
}

func sessionHex(s *recipes.Session) string { return display.Hex(s.ID()) }

// seqOf parses the sequence number a node name ends with.
func seqOf(t *testing.T, node string) int32 {
	t.Helper()
	n, err := strconv.ParseInt(node[len(node)-10:], 10, 32)
	if err != nil {
		t.Fatalf("node %s: %v", node, err)
	}
	return int32(n)
}

// ownerData is what our recipes write by default: "host pid".
func ownerData(t *testing.T) string {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %d", host, os.Getpid())
}

// sessionClients maps session ids to client addresses, as zkx sessions
// reports them.
func sessionClients(t *testing.T, connect string) map[string]sessionJSON {
	t.Helper()
	out, errs, err := run(t, "--server", connect, "sessions", "-o", "json")
	if err != nil || errs != "" {
		t.Fatalf("zkx sessions: %v\n%s", err, errs)
	}
	var rows []sessionJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	m := map[string]sessionJSON{}
	for _, r := range rows {
		m[r.Session] = r
	}
	return m
}

// checkClients checks that every contender shows the client address zkx
// sessions gives for its session, and clears it for comparison.
func checkClients(t *testing.T, clients map[string]sessionJSON, cs []recognize.Contender) {
	t.Helper()
	seen := map[string]bool{}
	for i := range cs {
		c := &cs[i]
		want := clients[c.Session].Client
		if want == "" || c.Client != want || !strings.HasPrefix(c.Client, "127.0.0.1:") || seen[c.Client] {
			t.Errorf("%s: client %q, zkx sessions says %q", c.Node, c.Client, want)
		}
		seen[c.Client] = true
		// What the servers said of the session: connected, heard from a
		// moment ago (every contender pings or waits on a live session).
		if c.Connected == nil || !*c.Connected || c.LastHeardMs == nil || *c.LastHeardMs < 0 || c.Silent {
			t.Errorf("%s: connected %v last_heard_ms %v silent %v, want a live session heard from", c.Node, c.Connected, c.LastHeardMs, c.Silent)
		}
		if c.AgeMs < 0 || (c.HeldMs != nil && *c.HeldMs > c.AgeMs) {
			t.Errorf("%s: age_ms %d held_ms %v", c.Node, c.AgeMs, c.HeldMs)
		}
		if _, err := time.Parse(time.RFC3339, c.ExpiresBy); err != nil {
			t.Errorf("%s: expires_by %q: %v", c.Node, c.ExpiresBy, err)
		}
		c.Client, c.HeldMs, c.AgeMs, c.Connected, c.LastHeardMs, c.Liveness = "", nil, 0, nil, nil, zkview.Liveness{}
		c.ExpiresBy, c.ExpiresByAbout = "", false
	}
}

// runJSON runs zkx and decodes its JSON output into v.
func runJSON(t *testing.T, v any, args ...string) string {
	t.Helper()
	out, errs, err := run(t, args...)
	if err != nil {
		t.Fatalf("zkx %v: %v\n%s", args, err, errs)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("zkx %v: %v\n%s", args, err, out)
	}
	return out
}

// TestLocksCommand: a holder and two waiters, each in its own session, on
// a mutex in each of the layouts our recipes write.
func TestLocksCommand(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		for _, tc := range []struct {
			name   string
			opts   []recipes.Option
			format string
			view   string // the library rule zkx judges the contenders by
			data   string // "" for ownerData
		}{
			{"curator", []recipes.Option{recipes.WithFormat(recipes.Curator), recipes.WithData([]byte("10.0.0.5"))}, "curator", "Curator InterProcessMutex", "10.0.0.5"},
			// zkx's own nodes in Kazoo's layout are Kazoo's format (what zkx
			// writes to join), judged by zkx's rule.
			{"kazoo", []recipes.Option{recipes.WithFormat(recipes.Kazoo)}, "kazoo", "zkx Mutex (Kazoo layout)", ""},
			{"zkx", nil, "zkx", "zkx Mutex", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				base := zktest.Path(t)
				dir := base + "/locks/orders"
				mutex := func(s *recipes.Session, o recipes.Option) func(context.Context) error {
					return recipes.NewMutex(s, dir, slices.Concat(tc.opts, []recipes.Option{o})...).Lock
				}
				holder := startContender(t, connect, mutex)
				w1 := startContender(t, connect, mutex)
				w2 := startContender(t, connect, mutex)
				data := tc.data
				if data == "" {
					data = ownerData(t)
				}

				var locks []recognize.Lock
				raw := runJSON(t, &locks, "--server", connect, "locks", "-o", "json", base)
				if len(locks) != 1 {
					t.Fatalf("want one lock:\n%s", raw)
				}
				for _, list := range []string{`"holders": [`, `"waiters": [`, `"warnings": []`} {
					if !strings.Contains(raw, list) {
						t.Errorf("no %s in\n%s", list, raw)
					}
				}
				got := locks[0]
				clients := sessionClients(t, connect)
				// The holder's node is the oldest (times are in ms: all may be 0).
				if h, w := got.Holders[0].AgeMs, got.Waiters[1].AgeMs; h < w || w < 0 {
					t.Errorf("holder's age_ms %d, last waiter's age_ms %d", h, w)
				}
				checkClients(t, clients, got.Holders)
				checkClients(t, clients, got.Waiters)
				want := recognize.Lock{Path: dir, Recipe: "mutex", Format: tc.format,
					Holders: []recognize.Contender{{Node: holder.node, Seq: seqOf(t, holder.node), Format: tc.format, View: tc.view,
						Session: sessionHex(holder.session), Data: data, Next: []string{w1.node}}},
					Waiters: []recognize.Contender{
						{Node: w1.node, Seq: seqOf(t, w1.node), Format: tc.format, View: tc.view, Session: sessionHex(w1.session), Data: data, WaitsFor: holder.node, Watch: "observed"},
						{Node: w2.node, Seq: seqOf(t, w2.node), Format: tc.format, View: tc.view, Session: sessionHex(w2.session), Data: data, WaitsFor: w1.node, Watch: "observed"},
					},
					Warnings: []string{}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("zkx locks -o json:\n got %+v\nwant %+v\n%s", got, want, raw)
				}

				out, errs, err := run(t, "--server", connect, "locks", dir)
				if err != nil || errs != "" {
					t.Fatalf("zkx locks: %v\n%s", err, errs)
				}
				row := dir + "  mutex   " + tc.format
				holderCell := recognize.BareName(holder.node) + " " + sessionHex(holder.session) + " " + clients[sessionHex(holder.session)].Client
				if !strings.Contains(out, "PATH") || !strings.Contains(out, row) || !strings.Contains(out, holderCell) {
					t.Errorf("zkx locks: want a row %q with holder %q:\n%s", row, holderCell, out)
				}
				out, _, err = run(t, "--server", connect, "locks", "-l", dir)
				chain := "chain: " + recognize.BareName(holder.node) + " ← " + recognize.BareName(w1.node) + " ← " + recognize.BareName(w2.node)
				if err != nil || !strings.Contains(out, chain) || strings.Count(out, "observed") != 2 || strings.Count(out, " yes ") != 3 {
					t.Errorf("zkx locks -l: %v, want %q, 2 observed watches, 3 live sessions:\n%s", err, chain, out)
				}
			})
		}
	})
}

// TestLocksSemaphore: a Curator-layout semaphore of one lease, taken, and a
// second acquirer waiting; its locks/ directory names the semaphore.
func TestLocksSemaphore(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t) + "/sem"
		var leases []*recipes.Lease
		acquire := func(s *recipes.Session, _ recipes.Option) func(context.Context) error {
			sem := recipes.NewSemaphore(s, dir, 1, recipes.WithData([]byte("10.0.0.7")))
			return func(ctx context.Context) error {
				l, err := sem.Acquire(ctx)
				if err == nil {
					leases = append(leases, l)
				}
				return err
			}
		}
		holder := startContender(t, connect, acquire)
		if len(leases) != 1 {
			t.Fatal("no lease")
		}
		holderLease := leases[0].Token().Path[len(dir)+1:]
		// The semaphore tells no events: wait for the waiter's lease node.
		waiterSession, err := recipes.Dial([]string{connect})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { waiterSession.Close() })
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := recipes.NewSemaphore(waiterSession, dir, 1, recipes.WithData([]byte("10.0.0.7"))).Acquire(ctx)
			done <- err
		}()
		t.Cleanup(func() { cancel(); <-done })
		names := waitChildren(t, zktest.Conn(t, connect), dir+"/leases", 2)
		waiterLease := "leases/" + names[0]
		if waiterLease == holderLease {
			waiterLease = "leases/" + names[1]
		}

		for _, path := range []string{dir, dir + "/locks", dir + "/leases"} {
			var locks []recognize.Lock
			raw := runJSON(t, &locks, "--server", connect, "locks", "-o", "json", path)
			if len(locks) != 1 {
				t.Fatalf("locks %s: want the semaphore:\n%s", path, raw)
			}
			l := locks[0]
			if l.Path != dir || l.Recipe != "semaphore" || l.Format != "curator" ||
				len(l.Holders) != 1 || l.Holders[0].Node != holderLease || l.Holders[0].Session != sessionHex(holder.session) || l.Holders[0].Kind != "lease" ||
				len(l.Waiters) != 1 || l.Waiters[0].Node != waiterLease || l.Waiters[0].WaitsFor != "leases" || l.Waiters[0].Watch != "inferred" ||
				l.Waiters[0].Session != sessionHex(waiterSession) {
				t.Errorf("locks %s:\n%s", path, raw)
			}
		}
	})
}

func TestQueuesCommand(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		dir := base + "/jobs"
		s, err := recipes.Dial([]string{connect})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		q := recipes.NewQueue(s, dir)
		begun := time.Now()
		var nodes []string
		for _, item := range []string{"first", "second", "third", "fourth"} {
			node, err := q.Put(context.Background(), []byte(item))
			if err != nil {
				t.Fatal(err)
			}
			nodes = append(nodes, node)
		}
		var queues []recognize.Queue
		raw := runJSON(t, &queues, "--server", connect, "queues", "-o", "json", base)
		// Ages move with the clock: compared apart, bounded by the test's own.
		var ages []int64
		for i := range queues {
			for j := range queues[i].Items {
				ages = append(ages, queues[i].Items[j].AgeMs)
				queues[i].Items[j].AgeMs, queues[i].Items[j].WaitingMs = 0, nil
			}
		}
		want := []recognize.Queue{{Path: dir, Format: "zookeeper-recipes", Length: 4, Items: []recognize.QueueItem{
			{Node: nodes[0], Data: "first"}, {Node: nodes[1], Data: "second"}, {Node: nodes[2], Data: "third"}, {Node: nodes[3], Data: "fourth"},
		}, Warnings: []string{}}}
		oldest, longest := queues[0].OldestAgeMs, queues[0].LongestWaitMs
		queues[0].OldestAgeMs, queues[0].LongestWaitMs = nil, nil
		if !reflect.DeepEqual(queues, want) || !strings.Contains(raw, `"warnings": []`) {
			t.Errorf("zkx queues -o json:\n got %+v\nwant %+v", queues, want)
		}
		limit := time.Since(begun).Milliseconds()
		if oldest == nil || longest == nil || *oldest < ages[3] || *oldest > limit || *longest != ages[0] || !strings.Contains(raw, `"oldest_age_ms": `) {
			t.Errorf("oldest %v, longest wait %v, item ages %v (the test began %d ms ago)", oldest, longest, ages, limit)
		}
		out, errs, err := run(t, "--server", connect, "queues", base)
		if err != nil || errs != "" || !strings.Contains(out, dir+"  zookeeper-recipes  4       ") || !strings.Contains(out, "  0          0         first | second | third … (1 more)") {
			t.Errorf("zkx queues: %v %s\n%s", err, errs, out)
		}
		out, _, err = run(t, "--server", connect, "queues", "-l", dir)
		if err != nil || !strings.Contains(out, "length 4") || !strings.Contains(out, "4  "+nodes[3]) {
			t.Errorf("zkx queues -l: %v\n%s", err, out)
		}
		// The locks of the same tree: none, said on stderr.
		out, errs, err = run(t, "--server", connect, "locks", base)
		if err != nil || out != "" || !strings.Contains(errs, "no locks recognised at or under "+base) {
			t.Errorf("zkx locks over a queue: %v %q %q", err, out, errs)
		}
	})
}

func TestElectionsCommand(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		dir := base + "/leader"
		candidate := func(s *recipes.Session, o recipes.Option) func(context.Context) error {
			return recipes.NewElection(s, dir, recipes.WithData([]byte("node-a")), o).Campaign
		}
		leader := startContender(t, connect, candidate)
		c1 := startContender(t, connect, candidate)
		c2 := startContender(t, connect, candidate)

		var elections []recognize.Election
		raw := runJSON(t, &elections, "--server", connect, "elections", "-o", "json", base)
		if len(elections) != 1 || elections[0].Leader == nil {
			t.Fatalf("want one election with a leader:\n%s", raw)
		}
		got := elections[0]
		clients := sessionClients(t, connect)
		checkClients(t, clients, []recognize.Contender{*got.Leader})
		got.Leader.Client, got.Leader.HeldMs, got.Leader.AgeMs, got.Leader.Connected, got.Leader.LastHeardMs = "", nil, 0, nil, nil
		got.Leader.ExpiresBy, got.Leader.ExpiresByAbout = "", false
		checkClients(t, clients, got.Candidates)
		want := recognize.Election{Path: dir, Format: "curator",
			Leader: &recognize.Contender{Node: leader.node, Seq: seqOf(t, leader.node), Format: "curator", Session: sessionHex(leader.session), Data: "node-a"},
			Candidates: []recognize.Contender{
				{Node: c1.node, Seq: seqOf(t, c1.node), Format: "curator", Session: sessionHex(c1.session), Data: "node-a", WaitsFor: leader.node, Watch: "observed"},
				{Node: c2.node, Seq: seqOf(t, c2.node), Format: "curator", Session: sessionHex(c2.session), Data: "node-a", WaitsFor: c1.node, Watch: "observed"},
			},
			Warnings: []string{}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("zkx elections -o json:\n got %+v\nwant %+v\n%s", got, want, raw)
		}
		out, errs, err := run(t, "--server", connect, "elections", dir)
		if err != nil || errs != "" || !strings.Contains(out, recognize.BareName(leader.node)+" "+sessionHex(leader.session)) || !strings.Contains(out, "LEADER") {
			t.Errorf("zkx elections: %v %s\n%s", err, errs, out)
		}
		out, _, err = run(t, "--server", connect, "elections", "-l", dir)
		if err != nil || !strings.Contains(out, "chain: "+recognize.BareName(leader.node)+" ← "+recognize.BareName(c1.node)+" ← "+recognize.BareName(c2.node)) {
			t.Errorf("zkx elections -l: %v\n%s", err, out)
		}
	})
}

func TestSessionsCommand(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		a, b := zktest.Conn(t, connect), zktest.Conn(t, connect)
		create(t, a, base, nil, 0, zk.WorldACL(zk.PermAll))
		create(t, a, base+"/a1", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		create(t, a, base+"/a2", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		create(t, a, base+"/a3", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		if _, _, _, err := b.GetW(base + "/a1"); err != nil {
			t.Fatal(err)
		}
		sessions := sessionClients(t, connect)
		sa, sb := sessions[fmt.Sprintf("0x%x", a.SessionID())], sessions[fmt.Sprintf("0x%x", b.SessionID())]
		if !reflect.DeepEqual(sa.Ephemerals, []string{base + "/a1", base + "/a2", base + "/a3"}) || sa.Connected == nil || !*sa.Connected ||
			!strings.HasPrefix(sa.Client, "127.0.0.1:") || sa.Server != connect || sa.TimeoutMs <= 0 ||
			sa.LastHeardMs == nil || sa.Silent || sa.From != "tables" {
			t.Errorf("session a: %+v", sa)
		}
		if !reflect.DeepEqual(sb.Watches, []string{base + "/a1"}) || sb.WatchCount != 1 || len(sb.Ephemerals) != 0 ||
			sb.Client == sa.Client || !strings.HasPrefix(sb.Client, "127.0.0.1:") {
			t.Errorf("session b: %+v", sb)
		}
		out, errs, err := run(t, "--server", connect, "sessions")
		row := fmt.Sprintf("0x%x", a.SessionID())
		if err != nil || errs != "" || !strings.Contains(out, row) || !strings.Contains(out, sa.Client) ||
			!strings.Contains(out, "3: "+base+"/a1, "+base+"/a2 … (1 more)") || !strings.Contains(out, "SESSION") {
			t.Errorf("zkx sessions: %v %s\n%s", err, errs, out)
		}
	})
}

// TestRecipesRefusedIntrospection: servers that allow only srvr: the
// refusals are told in one line, locks still lists the lock (clients empty,
// watches inferred), sessions lists the sessions the tree's ephemeral nodes
// name, says what is unknown and how to let zkx read it.
func TestRecipesRefusedIntrospection(t *testing.T) {
	t.Parallel()
	servers := map[string]func(t *testing.T) string{
		"embedded": func(t *testing.T) string {
			return zktest.EmbeddedServer(t, zkserver.Config{FourLetterWords: []string{"srvr"}}).ConnectString()
		},
		"real": func(t *testing.T) string {
			return zktest.RealWith(t, zktest.RealOptions{FourLetterWords: []string{"srvr"}}).ConnectString()
		},
	}
	for _, name := range []string{"embedded", "real"} {
		t.Run(name, func(t *testing.T) {
			connect := servers[name](t)
			dir := zktest.Path(t) + "/lock"
			mutex := func(s *recipes.Session, o recipes.Option) func(context.Context) error {
				return recipes.NewMutex(s, dir, o).Lock
			}
			holder := startContender(t, connect, mutex)
			waiter := startContender(t, connect, mutex)
			var locks []recognize.Lock
			out, errs, err := run(t, "--server", connect, "locks", "-o", "json", dir)
			if err != nil || json.Unmarshal([]byte(out), &locks) != nil || len(locks) != 1 {
				t.Fatalf("zkx locks: %v\n%s\n%s", err, out, errs)
			}
			l := locks[0]
			if l.Holders[0].Node != holder.node || l.Holders[0].Client != "" || l.Waiters[0].Node != waiter.node ||
				l.Waiters[0].Watch != "inferred" || l.Waiters[0].Client != "" || len(l.Warnings) != 0 {
				t.Errorf("zkx locks without the tables:\n%s", out)
			}
			// One line says it all, not one warning per word.
			if !strings.Contains(errs, "zkx: warning: tables: "+connect+" refused (cons, wchc, wchp, dump refused; no AdminServer at http://") ||
				strings.Count(errs, "warning:") != 1 {
				t.Errorf("want one line naming the refused words and the AdminServer looked for:\n%s", errs)
			}
			if strings.Contains(errs, "mntr") {
				t.Errorf("a refusal that costs locks nothing is reported:\n%s", errs)
			}
			out, _, err = run(t, "--server", connect, "locks", "-l", dir)
			// Two contenders, neither connection nor last answer known.
			if err != nil || !strings.Contains(out, "inferred") || strings.Count(out, " ? ") != 4 {
				t.Errorf("zkx locks -l without the tables: %v\n%s", err, out)
			}
			var rows []sessionJSON
			out, errs, err = run(t, "--server", connect, "sessions", "-o", "json")
			if err != nil || json.Unmarshal([]byte(out), &rows) != nil {
				t.Fatalf("zkx sessions without cons and dump: %v\n%s\n%s", err, out, errs)
			}
			found := map[string]sessionJSON{}
			for _, r := range rows {
				found[r.Session] = r
			}
			for _, c := range []contender{holder, waiter} {
				r, ok := found[sessionHex(c.session)]
				if !ok || !reflect.DeepEqual(r.Ephemerals, []string{dir + "/" + c.node}) || r.From != "ephemerals" || r.Client != "" ||
					r.Connected != nil || r.LastHeardMs != nil {
					t.Errorf("session %s from the tree: %+v (found %v)\n%s", sessionHex(c.session), r, ok, out)
				}
			}
			if !strings.Contains(errs, "sessions are known from the ephemeral nodes of the tree") ||
				!strings.Contains(errs, "add cons, wchc, wchp, dump to 4lw.commands.whitelist on every server, or give zkx the members' AdminServers") ||
				!strings.Contains(errs, "--admin-url") {
				t.Errorf("zkx sessions does not say what is unknown and how to read it:\n%s", errs)
			}
			out, _, err = run(t, "--server", connect, "sessions")
			if err != nil || !strings.Contains(out, sessionHex(holder.session)) || strings.Contains(out, "0 sessions") {
				t.Errorf("zkx sessions without the tables: %v\n%s", err, out)
			}
		})
	}
}

// TestRecipesPartial: a directory this session may not list under the
// scanned root: what was found is printed, and the error says the result is
// partial.
func TestRecipesPartial(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		create(t, c, base, nil, 0, zk.WorldACL(zk.PermAll))
		create(t, c, base+"/secret", nil, 0, zk.DigestACL(zk.PermAll, "alice", "pw"))
		holder := startContender(t, connect, func(s *recipes.Session, o recipes.Option) func(context.Context) error {
			return recipes.NewMutex(s, base+"/open", o).Lock
		})
		// Walking, the unreadable directory makes the result partial.
		out, _, err := run(t, "--server", connect, "locks", "-o", "json", "--walk", base)
		var partial *partialError
		if !errors.As(err, &partial) || !strings.Contains(err.Error(), base+"/secret") || !strings.Contains(err.Error(), "partial result") {
			t.Errorf("error %v, want a partial result naming %s/secret", err, base)
		}
		var locks []recognize.Lock
		if json.Unmarshal([]byte(out), &locks) != nil || len(locks) != 1 || locks[0].Holders[0].Node != holder.node {
			t.Errorf("partial output:\n%s", out)
		}
		// From the servers' ephemeral list, a directory with no ephemeral
		// node in it need not be read: the result is whole...
		out, _, err = run(t, "--server", connect, "locks", "-o", "json", base)
		if err != nil || json.Unmarshal([]byte(out), &locks) != nil || len(locks) != 1 {
			t.Errorf("from the ephemeral list: %v\n%s", err, out)
		}
		// ...until a contender sits where this session may not read (named
		// by the ephemeral list's directory, or by the walk's, which may
		// end first on a tree this small).
		if err := c.AddAuth("digest", []byte("alice:pw")); err != nil {
			t.Fatal(err)
		}
		create(t, c, base+"/secret/lock", nil, 0, zk.DigestACL(zk.PermAll, "alice", "pw"))
		create(t, c, base+"/secret/lock/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000000", nil, zk.FlagEphemeral, zk.DigestACL(zk.PermAll, "alice", "pw"))
		out, _, err = run(t, "--server", connect, "locks", "-o", "json", base)
		if !errors.As(err, &partial) || !strings.Contains(err.Error(), base+"/secret") {
			t.Errorf("a contender under an unreadable directory: %v, want a partial result naming it\n%s", err, out)
		}
		// With credentials the whole tree is read.
		for _, walk := range []string{"--walk=true", "--walk=false"} {
			if _, _, err := run(t, "--server", connect, "--auth", "digest:alice:pw", "locks", walk, base); err != nil {
				t.Errorf("with credentials, %s: %v", walk, err)
			}
		}
	})
}

// TestRecipesErrors: errors met on the way to the server and on it (what
// is refused before, TestRecipeRefusals and TestSessionsOptions).
func TestRecipesErrors(t *testing.T) {
	t.Parallel()
	srv := zktest.Embedded(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"locks", "/missing"}, "list /missing on " + srv + ": node does not exist"},
		{[]string{"--server", "127.0.0.1:1", "sessions"}, "no member of 127.0.0.1:1 answered: 127.0.0.1:1: connection refused"},
	}
	for _, c := range cases {
		_, _, err := run(t, append([]string{"--server", srv}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("zkx %v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

// quietLog keeps go-zookeeper's complaints about a connection we broke on
// purpose out of the test output.
type quietLog struct{}

func (quietLog) Printf(string, ...any) {}

// TestLocksStuckHolder: the 3 a.m. case. The holder's process is gone from
// the network but its session lives on until it expires, and a waiter
// queues behind it. Both views say so: the holder's session has no
// connection.
func TestLocksStuckHolder(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	connect := srv.ConnectString()
	dir := zktest.Path(t) + "/locks/stuck"
	// A Curator client whose connection, once dropped, never comes back.
	var dialed atomic.Bool
	holder, events, err := zk.Connect([]string{connect}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(quietLog{}),
		zk.WithDialer(func(network, addr string, timeout time.Duration) (net.Conn, error) {
			if dialed.Swap(true) {
				return nil, errors.New("this client is gone")
			}
			return net.DialTimeout(network, addr, timeout)
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(holder.Close)
	for ev := range events {
		if ev.State == zk.StateHasSession {
			break
		}
	}
	go func() {
		for range events {
		}
	}()
	base := dir[:strings.LastIndex(dir, "/locks")]
	for _, p := range []string{base, base + "/locks", dir} {
		create(t, holder, p, nil, 0, zk.WorldACL(zk.PermAll))
	}
	node, err := holder.Create(dir+"/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-", []byte("10.0.0.9"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	node = node[len(dir)+1:]
	waiter := startContender(t, connect, func(s *recipes.Session, o recipes.Option) func(context.Context) error {
		return recipes.NewMutex(s, dir, recipes.WithData([]byte("10.0.0.5")), o).Lock
	})
	if !srv.DropConnection(holder.SessionID()) {
		t.Fatal("the holder has no connection to drop")
	}
	hex := fmt.Sprintf("0x%x", holder.SessionID())

	var locks []recognize.Lock
	raw := runJSON(t, &locks, "--server", connect, "locks", "-o", "json", dir)
	warning := "holder session " + hex + " has no live connection (" + node + "): no server lists it, and its node stays until the session expires"
	if len(locks) != 1 || len(locks[0].Holders) != 1 || locks[0].Holders[0].Node != node || locks[0].Holders[0].Client != "10.0.0.9" || locks[0].Holders[0].ClientFrom != "node data" ||
		len(locks[0].Waiters) != 1 || locks[0].Waiters[0].Node != waiter.node || locks[0].Waiters[0].Watch != "observed" ||
		!reflect.DeepEqual(locks[0].Warnings, []string{warning}) {
		t.Errorf("zkx locks -o json:\n%s\nwant the warning %q", raw, warning)
	}
	out, _, err := run(t, "--server", connect, "locks", dir)
	if err != nil || !strings.Contains(out, "lock-0000000000 "+hex+" 10.0.0.9 (node data)  ") || !strings.Contains(out, "warnings:\n  "+dir+": "+warning) {
		t.Errorf("zkx locks: %v\n%s", err, out)
	}
	out, _, err = run(t, "--server", connect, "locks", "-l", dir)
	var holderRow []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "holder" {
			holderRow = f[:min(len(f), 10)]
		}
	}
	// No connection: HEARD says so too (no connection comes before
	// anything heard, in every front end).
	if err != nil || !reflect.DeepEqual(holderRow, []string{"holder", "lock-0000000000", "curator", hex, "10.0.0.9", "(node", "data)", "NO", "NO", "CONN"}) || !strings.Contains(out, "warning: "+warning) ||
		!strings.Contains(out, "chain: lock-0000000000 ← "+recognize.BareName(waiter.node)) {
		t.Errorf("zkx locks -l: %v, holder row %q:\n%s", err, holderRow, out)
	}
}
