package recognize

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// The real-peer tests of groups, partitioners, leases, counters, TTL nodes,
// semaphores' maxima and queue health: Kazoo and Curator programs
// (testdata/recognize) set the state up on a real ZooKeeper, and some are
// frozen or killed to leave what each recipe exists to show.

// seenPeer is a program of testdata/recognize.
func seenPeer(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "recognize", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startJava starts a compiled Curator peer class.
func startJava(t *testing.T, classpath, class string, args ...string) *zktest.LivePeer {
	t.Helper()
	all := append(append(append([]string{}, zktest.JavaQuietFlags...), "-cp", classpath, class), args...)
	return zktest.StartLivePeer(t, zktest.Java(t), all...)
}

// tablesOf reads the servers' tables.
func tablesOf(t *testing.T, connect string) ServerTables {
	t.Helper()
	in, err := introspect.Ask(context.Background(), connstr.ConnectString{Servers: []string{connect}}, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return in.Tables()
}

func TestRecognizeRealKazooGroupsLeasesCounters(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	base := zktest.Path(t)
	peer := zktest.StartLivePeer(t, zktest.KazooPython(t), seenPeer(t, "kazoo_seen.py"), connect, base)
	peer.WaitReady(t)
	c := dialTest(t, connect)
	now := time.Now()
	get := func(name string) Recipe {
		t.Helper()
		r := recognizeT(t, c, base+"/"+name, Options{Now: now})
		if r == nil {
			t.Fatalf("%s not recognised", name)
		}
		return r
	}
	t.Run("Party and ShallowParty", func(t *testing.T) {
		for _, tt := range []struct{ name, kind, ids string }{{"party", GroupParty, "p1 p2"}, {"shallow", GroupShallowParty, "s1 s2"}} {
			g, ok := get(tt.name).(*Group)
			if !ok || g.Kind != tt.kind || g.Format != "kazoo" || len(g.Members) != 2 {
				t.Fatalf("%s: %+v", tt.name, g)
			}
			var ids []string
			for _, m := range g.Members {
				ids = append(ids, m.Data)
				if m.Session == "" || m.Created.IsZero() {
					t.Errorf("%s member %+v: want its session and its node's creation", tt.name, m)
				}
			}
			sort.Strings(ids)
			if strings.Join(ids, " ") != tt.ids || g.Members[0].Session == g.Members[1].Session {
				t.Errorf("%s members %q (sessions %s, %s), want %q each on its own session", tt.name, ids, g.Members[0].Session, g.Members[1].Session, tt.ids)
			}
			recWantWarnings(t, g.Warnings)
		}
	})
	t.Run("NonBlockingLease", func(t *testing.T) {
		l := get("lease").(*Lease)
		s := l.Slots[0]
		if l.Kind != LeaseSingle || s.Holder != "live-holder" || s.Expired || !s.Held() || *s.EndsInMs < (50*time.Minute).Milliseconds() {
			t.Errorf("live lease %+v", s)
		}
		recWantWarnings(t, l.Warnings)
	})
	t.Run("NonBlockingLease expired, still present", func(t *testing.T) {
		// Taken for 2 s: held when it was written, expired and still there
		// a minute on. Read as of its writing, not of now: on a loaded
		// machine the peer's other recipes and READY can take 2 s more.
		written := get("expired").(*Lease).Slots[0].Written
		l := recognizeT(t, c, base+"/expired", Options{Now: written}).(*Lease)
		if s := l.Slots[0]; s.Holder != "old-holder" || s.Expired {
			t.Errorf("right after (%v): %+v", written, s)
		}
		l = recognizeT(t, c, base+"/expired", Options{Now: now.Add(time.Minute)}).(*Lease)
		if s := l.Slots[0]; s.Holder != "old-holder" || !s.Expired || s.Held() || *s.EndsInMs > -(55*time.Second).Milliseconds() {
			t.Errorf("a minute on: %+v", s)
		}
		recWantWarnings(t, l.Warnings, "of old-holder expired")
		if !strings.Contains(l.Warnings[0], "and is still present: nobody holds it") {
			t.Errorf("warning %q", l.Warnings[0])
		}
	})
	t.Run("NonBlockingLease by a clock behind", func(t *testing.T) {
		l := get("skewed").(*Lease)
		if s := l.Slots[0]; s.Holder != "slow-clock" || !s.Expired {
			t.Errorf("%+v", s)
		}
		recWantWarnings(t, l.Warnings, "of slow-clock expired", "before it was written")
	})
	t.Run("MultiNonBlockingLease", func(t *testing.T) {
		for _, p := range []string{"multi", "multi/1", "multi/0/lease_holder"} {
			l, ok := get(p).(*Lease)
			if !ok || l.Path != base+"/multi" || l.Kind != LeaseMulti || len(l.Slots) != 2 ||
				l.Slots[0].Holder != "m1" || l.Slots[1].Holder != "m2" || l.Slots[1].Node != "1/lease_holder" {
				t.Fatalf("%s: %+v", p, l)
			}
			recWantWarnings(t, l.Warnings)
		}
	})
	t.Run("Counter", func(t *testing.T) {
		for _, tt := range []struct{ name, kind, value, format string }{{"counter", CounterText, "5", "kazoo"}, {"ccounter", CounterInt32, "7", "curator"}} {
			n, ok := get(tt.name).(*Counter)
			if !ok || n.Kind != tt.kind || n.Value != tt.value || n.Format != tt.format || n.Version != 1 {
				t.Errorf("%s: %+v, want %s %s", tt.name, n, tt.kind, tt.value)
			}
		}
	})
	t.Run("Scan", func(t *testing.T) {
		res, err := Scan(context.Background(), c, base, Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res.All() {
			got = append(got, strings.TrimPrefix(r.Info().Path, base+"/")+" "+r.Info().Kind)
		}
		sort.Strings(got)
		want := []string{"ccounter counter", "counter counter", "expired lease", "lease lease", "multi multi-lease", "party party", "shallow shallow-party", "skewed lease"}
		if !recEqual(got, want) {
			t.Errorf("Scan found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestRecognizeRealPartitionerFrozen freezes a Kazoo SetPartitioner's
// member in the middle of its allocation: worker-a, alone in the party,
// has taken item a and waits for b, which a lock outside the partitioner
// holds; stopped there (SIGSTOP), it keeps a while worker-b joins, so the
// party changed and a's lock was not taken again.
func TestRecognizeRealPartitionerFrozen(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	part := zktest.Path(t) + "/part"
	py := zktest.KazooPython(t)
	outsider := zktest.StartKazooLock(t, connect, part+"/locks/b", "outsider", 30*time.Second)
	outsider.WaitLine(t, 0, "HOLDING")
	member := func(id string) *zktest.LivePeer {
		p := zktest.StartLivePeer(t, py, seenPeer(t, "kazoo_partition_member.py"), connect, part, id, "a,b,c")
		p.WaitLine(t, 0, "JOINED")
		return p
	}
	conn := zktest.Conn(t, connect)
	a := member("worker-a")
	recAwaitChildren(t, conn, part+"/locks/a", 1)
	a.Pause(t)
	if a.Said("ACQUIRED") {
		t.Fatalf("worker-a acquired its share: it was to be stopped in the middle of it")
	}
	member("worker-b")
	recAwaitChildren(t, conn, part+"/party", 2)

	c := dialTest(t, connect)
	pt, ok := recognizeT(t, c, part, Options{Now: time.Now()}).(*Partitioner)
	if !ok {
		t.Fatalf("%s is not recognised as a partitioner", part)
	}
	var ids []string
	for _, m := range pt.Members {
		ids = append(ids, m.Identifier)
	}
	sort.Strings(ids)
	if strings.Join(ids, " ") != "worker-a worker-b" {
		t.Fatalf("members %q", ids)
	}
	items := map[string]PartitionItem{}
	for _, it := range pt.Items {
		items[it.Item] = it
	}
	if a := items["a"]; a.Owner != "worker-a" || !a.Stale || a.Holder == nil {
		t.Errorf("item a %+v: want held by worker-a under a lock taken before the party changed", a)
	}
	if b := items["b"]; b.Owner != "" || b.Holder == nil || b.Stale {
		t.Errorf("item b %+v: want held by the outsider, no member", b)
	}
	if !recEqual(pt.Idle, []string{"worker-b"}) || pt.PartyChangedMs == nil || pt.Stuck {
		t.Errorf("idle %q, party changed %v ms ago, stuck %v", pt.Idle, pt.PartyChangedMs, pt.Stuck)
	}
	recWantWarnings(t, pt.Warnings, "which is no member of the party", "allocation in progress: the party last changed at")
	t.Logf("right after the join: %q", pt.Warnings)

	// Past the settle bound, as the partitioner stands now.
	later := pt.PartyChanged.Add(defaultPartitionSettle + time.Second)
	pt = recognizeT(t, c, part, Options{Now: later}).(*Partitioner)
	if !pt.Stuck || len(pt.Alarms) != 1 || pt.Alarms[0].Kind != AlarmAllocationStuck || !strings.Contains(pt.Alarms[0].Text, "(worker-b joined)") ||
		!strings.Contains(pt.Alarms[0].Text, "item a (member worker-a, session") {
		t.Errorf("past the bound: stuck %v, alarms %+v", pt.Stuck, pt.Alarms)
	}
	// The item locks are still locks of their own; the party is part of
	// the partitioner.
	if l := recAsLock(t, recognizeT(t, c, part+"/locks/a", Options{})); l.Format != "kazoo" || len(l.Holders) != 1 {
		t.Errorf("item lock a %+v", l)
	}
	res, err := Scan(context.Background(), c, part, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Partitions) != 1 || len(res.Groups) != 0 || len(res.Locks) != 2 {
		t.Errorf("Scan: %d partitioners, %d groups, %d locks; want the partitioner and its two item locks", len(res.Partitions), len(res.Groups), len(res.Locks))
	}
}

// consumerTTL is the TTL of CuratorConsumer's PersistentTtlNode, which
// Curator touches every consumerTTL/2; the test waits for a touch, and for
// the TTL to pass once the owner is killed.
const consumerTTL = time.Second

func TestRecognizeRealCuratorSeen(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	base := zktest.Path(t)
	classpath := zktest.CompileCurator(t, seenPeer(t, "CuratorSeen.java"), seenPeer(t, "CuratorConsumer.java"))
	seen := startJava(t, classpath, "CuratorSeen", connect, base)
	// The consumer's TTL node, which needs two touches before it goes on,
	// starts alongside; it consumes the queue once told, after READY.
	consumer := startJava(t, classpath, "CuratorConsumer", connect, base, strconv.FormatInt(consumerTTL.Milliseconds(), 10))
	seen.WaitReady(t)
	c := dialTest(t, connect)
	zc := zktest.Conn(t, connect)
	get := func(name string, opts Options) Recipe {
		t.Helper()
		if opts.Now.IsZero() {
			opts.Now = time.Now()
		}
		r := recognizeT(t, c, base+"/"+name, opts)
		if r == nil {
			t.Fatalf("%s not recognised", name)
		}
		return r
	}
	t.Run("GroupMember", func(t *testing.T) {
		g, ok := get("members", Options{}).(*Group)
		if !ok || g.Kind != GroupMember || g.Format != "curator" || len(g.Members) != 2 || g.Members[0].Node != "api-1" || g.Members[1].Node != "api-2" {
			t.Fatalf("members %+v", g)
		}
		for _, m := range g.Members {
			if m.Session == "" || m.Client == "" || m.ClientFrom != ClientFromNodeData {
				t.Errorf("member %+v: want its session, and the address its payload gives", m)
			}
		}
	})
	t.Run("semaphore over its SharedCount maximum", func(t *testing.T) {
		l := recAsLock(t, get("sem", Options{}))
		if l.MaxFrom != MaxFromConvention || l.MaxPath != base+"/sem-max" || l.MaxLeases != 1 || len(l.Holders) != 3 || l.MaybeBroken || l.Broken ||
			len(l.Alarms) != 0 || !strings.Contains(strings.Join(l.Warnings, "\n"), "maybe three holders: mutual exclusion is broken") {
			t.Errorf("by convention: %+v", l)
		}
		l = recAsLock(t, get("sem", Options{SemaphoreMax: map[string]SemaphoreMax{base + "/sem": {From: base + "/sem-max"}}}))
		if l.MaxFrom != MaxFromSharedCount || !l.Broken || !l.MutexBySemaphore || l.Alarms[0].Kind != AlarmTwoHolders ||
			!strings.HasPrefix(l.Warnings[0], "three holders: mutual exclusion is broken") {
			t.Errorf("named: %+v", l)
		}
	})
	t.Run("InterProcessSemaphoreMutex with two leases", func(t *testing.T) {
		l := recAsLock(t, get("smutex", Options{}))
		if l.MaxFrom != MaxFromUnknown || l.Broken || len(l.Holders) != 2 || !strings.Contains(l.MaxSource(), "unknown") {
			t.Errorf("max unknown: %+v", l)
		}
		l = recAsLock(t, get("smutex", Options{SemaphoreMax: map[string]SemaphoreMax{base + "/smutex": {Count: 1}}}))
		if !l.MutexBySemaphore || !l.Broken || l.Alarms[0].Kind != AlarmTwoHolders || !strings.HasPrefix(l.Warnings[0], "two holders: mutual exclusion is broken") {
			t.Errorf("a mutex by semaphore: %+v", l)
		}
	})
	t.Run("counters", func(t *testing.T) {
		for _, tt := range []struct{ name, kind, value string }{
			{"shared", CounterInt32, "11"}, {"along", CounterInt64, "42"}, {"aint", CounterInt32, "7"}, {"sem-max", CounterInt32, "1"},
		} {
			n, ok := get(tt.name, Options{}).(*Counter)
			if !ok || n.Kind != tt.kind || n.Value != tt.value || n.Format != "curator" {
				t.Errorf("%s: %+v, want %s %s", tt.name, n, tt.kind, tt.value)
			}
		}
	})
	t.Run("DistributedDelayQueue", func(t *testing.T) {
		now := time.Now()
		q := recAsQueue(t, get("delayq", Options{Now: now}))
		var got []string
		for _, it := range q.Items {
			got = append(got, fmt.Sprintf("%s %dm", it.Data, *it.DueInMs/time.Minute.Milliseconds()))
		}
		// Due 12 minutes ago, in 3 minutes and in an hour, when set up.
		if q.Kind != QueueKindDelay || q.Due != 1 || strings.Join(got, ", ") != "overdue -12m, soon 2m, later 59m" {
			t.Errorf("delay queue %s, due %d: %q", q.Kind, q.Due, got)
		}
		if !q.Stale || len(q.Alarms) != 1 || q.Alarms[0].Kind != AlarmQueueStale || q.OldestAgeMs == nil || q.Items[0].WaitingMs == nil || q.Items[1].WaitingMs != nil {
			t.Errorf("stale %v alarms %+v oldest %v", q.Stale, q.Alarms, q.OldestAgeMs)
		}
	})
	t.Run("DistributedIdQueue", func(t *testing.T) {
		q := recAsQueue(t, get("idq", Options{}))
		if q.Kind != QueueKindID || len(q.Items) != 2 || q.Items[0].ID != "job-7" || q.Items[1].ID != "job-8" || q.Items[0].Data != "job seven" {
			t.Errorf("id queue %+v", q)
		}
	})

	consumer.WaitLine(t, 0, "TOUCHED")
	consumer.Send(t, "consume")
	consumer.WaitLine(t, 0, "CONSUMING stuck")
	t.Run("PersistentTtlNode, owner alive", func(t *testing.T) {
		// Right after a touch: read on its data watch.
		_, _, touched, err := zc.GetW(base + "/ttl/touch")
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-touched:
		case <-time.After(time.Minute):
			t.Fatal("touch was not set within a minute")
		}
		n, ok := get("ttl", Options{}).(*TTLNode)
		every := consumerTTL / 2
		if !ok || n.Owner != TTLOwnerAlive || n.Data != "owner-data" || n.TouchEveryMs == nil ||
			*n.TouchEveryMs < (every/2).Milliseconds() || *n.TouchEveryMs > (every*3/2).Milliseconds() {
			t.Fatalf("ttl node %+v, want its owner alive, touching every %v or so", n, every)
		}
		t.Logf("touched every %d ms, TTL taken for %d ms", *n.TouchEveryMs, *n.TTLMs)
	})
	flight := func(t *testing.T, tables ServerTables) *Queue {
		t.Helper()
		for _, p := range []string{"flightq", "flightq-lock"} {
			q := recAsQueue(t, get(p, Options{Tables: tables}))
			if q.Path != base+"/flightq" || q.LockPath != base+"/flightq-lock" || q.InFlight != 1 || !q.Items[0].InFlight ||
				!strings.HasSuffix(q.Items[0].Data, "stuck") || q.Items[0].Consumer == nil || q.Items[0].Consumer.Session == "" {
				t.Fatalf("%s: %+v", p, q)
			}
			if q.Items[1].InFlight || q.Items[1].WaitingMs == nil || q.Items[2].DueInMs == nil || *q.Items[2].DueInMs < 0 || q.Due != 2 {
				t.Errorf("%s items %+v", p, q.Items)
			}
		}
		return recAsQueue(t, get("flightq", Options{Tables: tables}))
	}
	t.Run("in flight, consumer alive", func(t *testing.T) {
		q := flight(t, tablesOf(t, connect))
		if c := q.Items[0].Consumer; c.Connected == nil || !*c.Connected || len(q.Alarms) != 0 {
			t.Errorf("consumer %+v, alarms %+v", c, q.Alarms)
		}
	})

	consumer.Kill(t)
	t.Run("in flight, consumer dead", func(t *testing.T) {
		deadline := time.Now().Add(time.Minute)
		for {
			q := flight(t, tablesOf(t, connect))
			if c := q.Items[0].Consumer; c.Connected != nil && !*c.Connected {
				if len(q.Alarms) != 1 || q.Alarms[0].Kind != AlarmItemStuck || q.Alarms[0].Node != q.Items[0].Node {
					t.Errorf("alarms %+v", q.Alarms)
				}
				t.Logf("%s", q.Alarms[0].Text)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the killed consumer's connection is still listed a minute on")
			}
			time.Sleep(200 * time.Millisecond) // the servers' tables have no watch
		}
	})
	t.Run("PersistentTtlNode, owner gone", func(t *testing.T) {
		_, st, err := zc.Get(base + "/ttl/touch")
		if err != nil {
			t.Fatal(err)
		}
		touched := time.UnixMilli(st.Mtime)
		n := get("ttl", Options{Now: touched.Add(3 * time.Duration(*recAsTTL(t, get("ttl", Options{})).TouchEveryMs) * time.Millisecond)}).(*TTLNode)
		if n.Owner != TTLOwnerGone {
			t.Errorf("three intervals after the last touch: %+v, want the owner gone", n)
		}
		recWantWarnings(t, n.Warnings, "owner gone: touch was last set")
		// ZooKeeper deletes touch once unchanged for its TTL, then the container.
		gone := false
		for deadline := time.Now().Add(time.Minute); !gone && time.Now().Before(deadline); {
			ok, _, ev, err := zc.ExistsW(base + "/ttl")
			if err != nil {
				t.Fatal(err)
			}
			if gone = !ok; !gone {
				select {
				case <-ev:
				case <-time.After(time.Until(deadline)):
				}
			}
		}
		if !gone {
			t.Errorf("%s/ttl is still there a minute after its owner was killed", base)
		}
	})
}

// recAsTTL requires v to be a *TTLNode.
func recAsTTL(t *testing.T, v Recipe) *TTLNode {
	t.Helper()
	n, ok := v.(*TTLNode)
	if !ok {
		t.Fatalf("recognised %T %+v, want a *TTLNode", v, v)
	}
	return n
}
