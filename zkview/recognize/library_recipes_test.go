package recognize

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// withStat changes a fake node's stat.
func withStat(change func(*zk.Stat)) fakeNodeOption {
	return func(n *fakeNode) { change(&n.stat) }
}

func hexOf(i int) string { return fmt.Sprintf("%032x", 0xabc0+i) }

func TestRecognizeKazooParties(t *testing.T) {
	t.Parallel()
	f := newRecFake().
		add("/party/"+hexOf(1)+kazooPartyMark, "worker-1", ephemeralOf(1)).
		add("/party/"+hexOf(2)+kazooPartyMark, "worker-2", ephemeralOf(2)).
		add("/shallow/"+hexOf(3)+"-worker-3", "worker-3", ephemeralOf(3)).
		add("/shallow/"+hexOf(4)+"-host-7.example-4711", "host-7.example-4711", ephemeralOf(4))
	tables := fixedTables{connected: map[int64]bool{1: true, 2: false}}
	g, ok := recognizeT(t, f, "/party", Options{Tables: tables}).(*Group)
	if !ok || g.Kind != GroupParty || g.Format != "kazoo" || len(g.Members) != 2 || g.Members[0].Data != "worker-1" || g.Members[1].Session != "0x2" {
		t.Fatalf("party %+v", g)
	}
	recWantWarnings(t, g.Warnings, "member session 0x2 has no live connection")
	g, ok = recognizeT(t, f, "/shallow", Options{}).(*Group)
	if !ok || g.Kind != GroupShallowParty || len(g.Members) != 2 {
		t.Fatalf("shallow party %+v", g)
	}
	if ids := []string{g.Members[0].Data, g.Members[1].Data}; ids[0] != "worker-3" || ids[1] != "host-7.example-4711" {
		t.Errorf("identifiers %q, want the names after the first '-'", ids)
	}
	recWantWarnings(t, g.Warnings)
}

func TestRecognizeGroupMembers(t *testing.T) {
	t.Parallel()
	f := newRecFake().
		add("/app/members/api-1", "10.0.0.1", ephemeralOf(1)).
		add("/app/members/api-2", "10.0.0.2", ephemeralOf(2)).
		add("/app/custom/node-a", `{"shard":1}`, ephemeralOf(3)).
		add("/app/gozkx/node-b", "web-1 4000", ephemeralOf(6)).
		add("/app/config/a", "x").
		add("/app/config/b", "y", ephemeralOf(4)).
		add("/app/holder/leader", "", ephemeralOf(5))
	g, ok := recognizeT(t, f, "/app/members", Options{}).(*Group)
	if !ok || g.Kind != GroupMember || g.Format != "curator" || len(g.Members) != 2 || g.Members[0].Client != "10.0.0.1" {
		t.Fatalf("members %+v", g)
	}
	if g, ok := recognizeT(t, f, "/app/custom", Options{}).(*Group); !ok || g.Format != "generic" || g.Kind != GroupMember {
		t.Errorf("custom payloads: %+v, want a generic group", g)
	}
	if g, ok := recognizeT(t, f, "/app/gozkx", Options{}).(*Group); !ok || g.Format != "zkx" {
		t.Errorf("zkx's own payloads: %+v, want a zkx group", g)
	}
	if r := recognizeT(t, f, "/app/config", Options{}); r != nil {
		t.Errorf("a directory with a persistent child is %+v, want nothing", r)
	}
	res, err := Scan(context.Background(), f, "/", Options{Now: recEpoch})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range res.Groups {
		got = append(got, g.Path+" "+g.Format)
	}
	// /app/holder holds a lock held as one node ("leader"), not a group.
	if want := []string{"/app/custom generic", "/app/gozkx zkx", "/app/members curator"}; !recEqual(got, want) {
		t.Errorf("Scan found groups %q, want %q", got, want)
	}
}

// recPartitioner is a SetPartitioner whose member worker-a took items a
// and b alone, before worker-b joined a minute later.
func recPartitioner() *fakeTree {
	t0 := recEpoch
	return newRecFake().
		add("/part/party/"+hexOf(1)+"-worker-a", "worker-a", ephemeralOf(1), createdAt(t0)).
		add("/part/locks/a/"+kzLock(0), "", ephemeralOf(1), createdAt(t0.Add(time.Second))).
		add("/part/locks/b/"+kzLock(0), "", ephemeralOf(1), createdAt(t0.Add(2*time.Second))).
		add("/part/locks/c", "").
		add("/part/party/"+hexOf(2)+"-worker-b", "worker-b", ephemeralOf(2), createdAt(t0.Add(time.Minute)))
}

func TestRecognizePartitioner(t *testing.T) {
	t.Parallel()
	f := recPartitioner()
	joined := recEpoch.Add(time.Minute)
	for _, p := range []string{"/part", "/part/party", "/part/locks"} {
		r := recognizeT(t, f, p, Options{Now: joined.Add(3 * time.Minute)})
		pt, ok := r.(*Partitioner)
		if !ok {
			t.Fatalf("Dir(%s) = %T, want a *Partitioner", p, r)
		}
		if pt.Path != "/part" || len(pt.Members) != 2 || len(pt.Items) != 3 {
			t.Fatalf("Dir(%s): %+v", p, pt)
		}
		if a := pt.Members[0]; a.Identifier != "worker-a" || strings.Join(a.Items, ",") != "a,b" {
			t.Errorf("member a %+v, want owning a and b", a)
		}
		if !recEqual(pt.Unowned, []string{"c"}) || !recEqual(pt.Idle, []string{"worker-b"}) {
			t.Errorf("unowned %q idle %q", pt.Unowned, pt.Idle)
		}
		if !pt.Items[0].Stale || !pt.Items[1].Stale || pt.Items[0].Owner != "worker-a" || pt.Items[0].Holder.Node != "locks/a/"+kzLock(0) {
			t.Errorf("items %+v", pt.Items)
		}
		if pt.PartyChangedMs == nil || *pt.PartyChangedMs != (3*time.Minute).Milliseconds() || !pt.Stuck {
			t.Errorf("party changed %v ms ago, stuck %v", pt.PartyChangedMs, pt.Stuck)
		}
		if len(pt.Alarms) != 1 || pt.Alarms[0].Kind != AlarmAllocationStuck || !strings.Contains(pt.Alarms[0].Text, "worker-b joined") {
			t.Errorf("alarms %+v", pt.Alarms)
		}
		recWantWarnings(t, pt.Warnings, "allocation stuck", "1 item owned by nobody: c; 1 member with no share: worker-b")
	}
	// Within the settle bound the allocation is in progress.
	pt := recognizeT(t, f, "/part", Options{Now: joined.Add(30 * time.Second)}).(*Partitioner)
	if pt.Stuck || len(pt.Alarms) != 0 {
		t.Errorf("30 s after the join: stuck %v, alarms %+v", pt.Stuck, pt.Alarms)
	}
	recWantWarnings(t, pt.Warnings, "allocation in progress", "owned by nobody")
	// The item locks stay locks of their own.
	if l := recAsLock(t, recognizeT(t, f, "/part/locks/a", Options{})); l.Format != "kazoo" || len(l.Holders) != 1 {
		t.Errorf("item lock %+v", l)
	}
	// A scan finds the partitioner and its item locks; its party is part
	// of it, not a group of its own.
	res, err := Scan(context.Background(), f, "/", Options{Now: joined})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.All() {
		got = append(got, r.Info().Path+" "+r.Info().Kind)
	}
	if want := []string{"/part/locks/a mutex", "/part/locks/b mutex", "/part partitioner"}; !recEqual(got, want) {
		t.Errorf("Scan found %q, want %q", got, want)
	}
}

func kazooLeaseData(holder string, end time.Time) string {
	b, _ := json.Marshal(map[string]any{"version": 1, "holder": holder, "end": end.UTC().Format(kazooLeaseDate)})
	return string(b)
}

func TestRecognizeKazooLeases(t *testing.T) {
	t.Parallel()
	now := recEpoch.Add(time.Hour)
	f := newRecFake().
		add("/lease/lease_holder", kazooLeaseData("cleanup on web-1", now.Add(-3*time.Minute)), createdAt(now.Add(-73*time.Minute))).
		add("/live/lease_holder", kazooLeaseData("web-2", now.Add(10*time.Minute)), createdAt(now.Add(-time.Minute))).
		add("/live/"+kzLock(4), "web-3", ephemeralOf(3)).
		add("/multi/0/lease_holder", kazooLeaseData("a", now.Add(time.Minute))).
		add("/multi/1/lease_holder", kazooLeaseData("b", now.Add(-time.Minute))).
		add("/multi/2", "")
	l, ok := recognizeT(t, f, "/lease", Options{Now: now}).(*Lease)
	if !ok || l.Kind != LeaseSingle || len(l.Slots) != 1 {
		t.Fatalf("lease %+v", l)
	}
	if s := l.Slots[0]; !s.Expired || s.Held() || s.Holder != "cleanup on web-1" || *s.EndsInMs != -(3*time.Minute).Milliseconds() || s.AgeMs != (73*time.Minute).Milliseconds() {
		t.Errorf("expired slot %+v", s)
	}
	recWantWarnings(t, l.Warnings, "expired 3m0s ago (end")
	l = recognizeT(t, f, "/live", Options{Now: now}).(*Lease)
	if s := l.Slots[0]; s.Expired || !s.Held() || s.Obtaining != 1 || *s.EndsInMs != (10*time.Minute).Milliseconds() {
		t.Errorf("live slot %+v", s)
	}
	recWantWarnings(t, l.Warnings)
	for _, p := range []string{"/multi", "/multi/0", "/multi/1/lease_holder"} {
		l, ok := recognizeT(t, f, p, Options{Now: now}).(*Lease)
		if !ok || l.Path != "/multi" || l.Kind != LeaseMulti || len(l.Slots) != 2 || l.Slots[1].Node != "1/lease_holder" || !l.Slots[1].Expired {
			t.Fatalf("Dir(%s): %+v", p, l)
		}
		recWantWarnings(t, l.Warnings, "lease 1/lease_holder of b expired", "slot 2 is no lease")
	}
	res, err := Scan(context.Background(), f, "/", Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range res.Leases {
		got = append(got, l.Path+" "+l.Kind)
	}
	if want := []string{"/lease lease", "/live lease", "/multi multi-lease"}; !recEqual(got, want) {
		t.Errorf("Scan found leases %q, want %q", got, want)
	}
}

func TestRecognizeCounters(t *testing.T) {
	t.Parallel()
	changed := func(v int32) fakeNodeOption {
		return withStat(func(s *zk.Stat) { s.Version, s.Mtime = v, recEpoch.Add(time.Minute).UnixMilli() })
	}
	f := newRecFake().
		add("/c/shared", "\x00\x00\x00\x05", changed(4)).
		add("/c/negative", "\xff\xff\xff\xfe").
		add("/c/long", "\x00\x00\x00\x01\x00\x00\x00\x00", changed(1)).
		add("/c/kazoo", "42", changed(3)).
		add("/c/float", "2.5", changed(1)).
		add("/c/word", "true", changed(2)).
		add("/c/untouched", "7")
	for _, tt := range []struct{ path, kind, value, format string }{
		{"/c/shared", CounterInt32, "5", "curator"},
		{"/c/negative", CounterInt32, "-2", "curator"},
		{"/c/long", CounterInt64, "4294967296", "curator"},
		{"/c/kazoo", CounterText, "42", "kazoo"},
		{"/c/float", CounterText, "2.5", "kazoo"},
	} {
		c, ok := recognizeT(t, f, tt.path, Options{Now: recEpoch.Add(2 * time.Minute)}).(*Counter)
		if !ok || c.Kind != tt.kind || c.Value != tt.value || c.Format != tt.format || len(c.Writers) == 0 {
			t.Errorf("%s: %+v, want %s %s", tt.path, c, tt.kind, tt.value)
		}
	}
	if c := recognizeT(t, f, "/c/shared", Options{Now: recEpoch.Add(2 * time.Minute)}).(*Counter); c.Version != 4 || c.ChangedMs != time.Minute.Milliseconds() {
		t.Errorf("version %d changed %d ms ago", c.Version, c.ChangedMs)
	}
	for _, p := range []string{"/c/word", "/c/untouched"} {
		if r := recognizeT(t, f, p, Options{}); r != nil {
			t.Errorf("%s is %+v, want no counter", p, r)
		}
	}
	res, err := Scan(context.Background(), f, "/c", Options{})
	if err != nil || len(res.Counters) != 5 {
		t.Errorf("Scan: %d counters, %v", len(res.Counters), err)
	}
}

func TestRecognizeTTLNode(t *testing.T) {
	t.Parallel()
	t0 := recEpoch
	f := newRecFake().
		add("/svc/node", "init").
		add("/svc/node/touch", "10.0.0.9", createdAt(t0), withStat(func(s *zk.Stat) { s.Version, s.Mtime = 5, t0.Add(10*time.Second).UnixMilli() }))
	for _, tt := range []struct {
		after time.Duration
		owner string
		warn  []string
	}{
		{11 * time.Second, TTLOwnerAlive, nil},
		{13500 * time.Millisecond, TTLOwnerLate, []string{"touch is late"}},
		{20 * time.Second, TTLOwnerGone, []string{"owner gone: touch was last set 10s ago, longer than its TTL of about 4s"}},
	} {
		for _, p := range []string{"/svc/node", "/svc/node/touch"} {
			n, ok := recognizeT(t, f, p, Options{Now: t0.Add(tt.after)}).(*TTLNode)
			if !ok || n.Path != "/svc/node" || n.Owner != tt.owner || *n.TouchEveryMs != 2000 || *n.TTLMs != 4000 || n.Touches != 5 || n.Data != "init" {
				t.Fatalf("Dir(%s) after %v: %+v, want owner %s", p, tt.after, n, tt.owner)
			}
			recWantWarnings(t, n.Warnings, tt.warn...)
		}
	}
	f.add("/once/touch", "", createdAt(t0), withStat(func(s *zk.Stat) { s.Mtime = t0.UnixMilli() }))
	if n := recognizeT(t, f, "/once", Options{Now: t0.Add(time.Hour)}).(*TTLNode); n.Owner != TTLOwnerUnknown || n.TouchEveryMs != nil {
		t.Errorf("touched once: %+v, want the owner unknown", n)
	}
}

func TestSemaphoreMax(t *testing.T) {
	t.Parallel()
	threeLeases := func() *fakeTree {
		return newRecFake().
			add("/app/sem/leases/"+curLease(0), "10.0.0.1", ephemeralOf(1)).
			add("/app/sem/leases/"+curLease(1), "10.0.0.2", ephemeralOf(2)).
			add("/app/sem/leases/"+curLease(2), "10.0.0.3", ephemeralOf(3)).
			add("/app/sem/locks", "")
	}
	t.Run("unknown", func(t *testing.T) {
		l := recAsLock(t, recognizeT(t, threeLeases(), "/app/sem", Options{}))
		if l.MaxFrom != MaxFromUnknown || l.MaxLeases != 0 || l.Broken || !strings.Contains(l.MaxSource(), "unknown") {
			t.Errorf("%+v (%s)", l, l.MaxSource())
		}
		recWantWarnings(t, l.Warnings)
	})
	t.Run("told", func(t *testing.T) {
		l := recAsLock(t, recognizeT(t, threeLeases(), "/app/sem", Options{SemaphoreMax: map[string]SemaphoreMax{"/app/sem": {Count: 2}}}))
		if l.MaxFrom != MaxFromOption || l.MaxLeases != 2 || !l.Broken || len(l.Alarms) != 1 || l.Alarms[0].Kind != AlarmTwoHolders {
			t.Errorf("%+v", l)
		}
		recWantWarnings(t, l.Warnings, "3 leases held, more than its maximum of 2 (as zkx was told)")
	})
	t.Run("shared count of 1: a mutex by semaphore", func(t *testing.T) {
		f := threeLeases().add("/cfg/sem-limit", "\x00\x00\x00\x01")
		f.remove("/app/sem/leases/" + curLease(2))
		l := recAsLock(t, recognizeT(t, f, "/app/sem", Options{SemaphoreMax: map[string]SemaphoreMax{"/app/sem": {From: "/cfg/sem-limit"}}}))
		if l.MaxFrom != MaxFromSharedCount || l.MaxPath != "/cfg/sem-limit" || !l.MutexBySemaphore || !l.Broken {
			t.Errorf("%+v", l)
		}
		recWantWarnings(t, l.Warnings, "two holders: mutual exclusion is broken")
	})
	t.Run("a SharedCount beside it", func(t *testing.T) {
		f := threeLeases().add("/app/sem-max", "\x00\x00\x00\x02")
		l := recAsLock(t, recognizeT(t, f, "/app/sem", Options{}))
		if l.MaxFrom != MaxFromConvention || l.MaxPath != "/app/sem-max" || l.Broken || l.MaybeBroken || len(l.Alarms) != 0 {
			t.Errorf("%+v", l)
		}
		recWantWarnings(t, l.Warnings, "maybe 3 leases held, more than its maximum of 2")
		res, err := Scan(context.Background(), f, "/", Options{})
		if err != nil || len(res.Locks) != 1 || res.Locks[0].MaxFrom != MaxFromConvention {
			t.Errorf("Scan: %+v, %v", res.Locks, err)
		}
	})
	t.Run("a bad --max-from", func(t *testing.T) {
		l := recAsLock(t, recognizeT(t, threeLeases(), "/app/sem", Options{SemaphoreMax: map[string]SemaphoreMax{"/app/sem": {From: "/nowhere"}}}))
		if l.MaxFrom != MaxFromUnknown {
			t.Errorf("%+v", l)
		}
		recWantWarnings(t, l.Warnings, "the maximum was to be read from /nowhere: no such node")
	})
	t.Run("kazoo over max_leases", func(t *testing.T) {
		f := newRecFake().
			add("/ks", "1").
			add("/ks/"+hexOf(1), "a", ephemeralOf(1)).
			add("/ks/"+hexOf(2), "b", ephemeralOf(2)).
			add("/ks-__lock__", "")
		l := recAsLock(t, recognizeT(t, f, "/ks", Options{}))
		if l.MaxFrom != MaxFromKazoo || !l.Broken || !l.MutexBySemaphore {
			t.Errorf("%+v", l)
		}
	})
}

// delayName is a DistributedDelayQueue item's name.
func delayName(due time.Time, seq int) string {
	return fmt.Sprintf("queue-|%08X|%010d", due.UnixMilli(), seq)
}

func TestQueueHealth(t *testing.T) {
	t.Parallel()
	now := recEpoch.Add(time.Hour)
	t.Run("delay queue", func(t *testing.T) {
		f := newRecFake().
			add("/dq/"+delayName(now.Add(time.Hour), 0), "later", createdAt(now.Add(-20*time.Minute))).
			add("/dq/"+delayName(now.Add(-12*time.Minute), 1), "overdue", createdAt(now.Add(-15*time.Minute))).
			add("/dq/"+delayName(now.Add(3*time.Minute), 2), "soon", createdAt(now.Add(-time.Minute)))
		q := recAsQueue(t, recognizeT(t, f, "/dq", Options{Now: now}))
		if q.Kind != QueueKindDelay || q.Due != 1 || len(q.Items) != 3 {
			t.Fatalf("%+v", q)
		}
		var got []string
		for _, it := range q.Items {
			got = append(got, fmt.Sprintf("%s %dm", it.Data, *it.DueInMs/time.Minute.Milliseconds()))
		}
		if want := []string{"overdue -12m", "soon 3m", "later 60m"}; !recEqual(got, want) {
			t.Errorf("items %q, want %q", got, want)
		}
		if *q.Items[0].WaitingMs != (12*time.Minute).Milliseconds() || q.Items[1].WaitingMs != nil || *q.OldestAgeMs != (20*time.Minute).Milliseconds() {
			t.Errorf("waiting %v, %v; oldest %d", q.Items[0].WaitingMs, q.Items[1].WaitingMs, *q.OldestAgeMs)
		}
		if !q.Stale || len(q.Alarms) != 1 || q.Alarms[0].Kind != AlarmQueueStale {
			t.Errorf("stale %v alarms %+v", q.Stale, q.Alarms)
		}
		recWantWarnings(t, q.Warnings, "queue stale: item "+delayName(now.Add(-12*time.Minute), 1)+" has been due for 12m0s, longer than 10m0s")
		if q := recAsQueue(t, recognizeT(t, f, "/dq", Options{Now: now, QueueStale: time.Hour})); q.Stale {
			t.Errorf("stale with --older 1h: %+v", q.Alarms)
		}
	})
	t.Run("id queue", func(t *testing.T) {
		f := newRecFake().
			add("/iq/queue-|zeta|0000000000", "z").
			add("/iq/queue-|alpha|0000000001", "a").
			add("/iq/queue-|DEADBEEF|0000000002", "hex id")
		q := recAsQueue(t, recognizeT(t, f, "/iq", Options{Now: recEpoch.Add(time.Minute)}))
		var got []string
		for _, it := range q.Items {
			got = append(got, it.ID)
		}
		if q.Kind != QueueKindID || !recEqual(got, []string{"zeta", "alpha", "DEADBEEF"}) {
			t.Errorf("kind %s ids %q, want in sequence order", q.Kind, got)
		}
		if q.Items[0].AgeMs != time.Minute.Milliseconds() || *q.LongestWaitMs != time.Minute.Milliseconds() || q.Stale {
			t.Errorf("ages %+v", q.Items[0])
		}
	})
	t.Run("in flight, consumer gone", func(t *testing.T) {
		f := newRecFake().
			add("/app/q/queue-0000000000", recCuratorItems("first"), createdAt(now.Add(-time.Minute))).
			add("/app/q/queue-0000000001", recCuratorItems("second"), createdAt(now.Add(-time.Minute))).
			add("/app/q-lock/queue-0000000000", "10.0.0.7", ephemeralOf(9)).
			add("/elsewhere/inflight/queue-0000000001", "10.0.0.8", ephemeralOf(8)).
			add("/other/q/queue-0000000001", recCuratorItems("x"))
		tables := fixedTables{connected: map[int64]bool{9: false, 8: true}}
		for _, p := range []string{"/app/q", "/app/q-lock"} {
			q := recAsQueue(t, recognizeT(t, f, p, Options{Now: now, Tables: tables}))
			if q.Path != "/app/q" || q.LockPath != "/app/q-lock" || q.InFlight != 1 || !q.Items[0].InFlight || q.Items[0].Consumer.Session != "0x9" {
				t.Fatalf("Dir(%s): %+v", p, q)
			}
			if q.Items[0].WaitingMs != nil || *q.LongestWaitMs != time.Minute.Milliseconds() {
				t.Errorf("Dir(%s): an item in flight does not wait: %+v", p, q.Items)
			}
			if len(q.Alarms) != 1 || q.Alarms[0].Kind != AlarmItemStuck || q.Alarms[0].Node != "queue-0000000000" {
				t.Errorf("Dir(%s): alarms %+v", p, q.Alarms)
			}
		}
		// A lockPath found by its items' names only, in a scan.
		res, err := Scan(context.Background(), f, "/", Options{Now: now, Tables: tables})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, q := range res.Queues {
			got = append(got, fmt.Sprintf("%s lock=%s in-flight=%d", q.Path, q.LockPath, q.InFlight))
		}
		want := []string{"/app/q lock=/app/q-lock in-flight=1", "/other/q lock=/elsewhere/inflight in-flight=1"}
		if !recEqual(got, want) {
			t.Errorf("Scan:\n got %q\nwant %q", got, want)
		}
		// On its own, a lockPath is shown as what it is.
		lp := recAsQueue(t, recognizeT(t, f, "/elsewhere/inflight", Options{Now: now}))
		if lp.Kind != QueueKindLockPath || lp.InFlight != 1 {
			t.Errorf("lockPath alone: %+v", lp)
		}
	})
	t.Run("kazoo locking queue, consumer gone", func(t *testing.T) {
		f := newRecFake().
			add("/lq/entries/entry-100-0000000000", "a", createdAt(now.Add(-30*time.Minute))).
			add("/lq/entries/entry-100-0000000001", "b", createdAt(now.Add(-20*time.Minute))).
			add("/lq/taken/entry-100-0000000000", "consumer-1", ephemeralOf(9))
		q := recAsQueue(t, recognizeT(t, f, "/lq", Options{Now: now, Tables: fixedTables{connected: map[int64]bool{9: false}}}))
		if q.InFlight != 1 || !q.Items[0].Taken || *q.LongestWaitMs != (20*time.Minute).Milliseconds() || *q.OldestAgeMs != (30*time.Minute).Milliseconds() {
			t.Errorf("%+v", q)
		}
		var kinds []string
		for _, a := range q.Alarms {
			kinds = append(kinds, a.Kind)
		}
		if !recEqual(kinds, []string{AlarmItemStuck, AlarmQueueStale}) {
			t.Errorf("alarms %q", kinds)
		}
	})
}
