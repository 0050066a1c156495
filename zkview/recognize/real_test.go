package recognize

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// The real-peer tests recognise state that Curator, ZooKeeper's own recipes,
// Kazoo, go-zookeeper and zkx's recipes set up on a real ZooKeeper, while
// it is live: each peer program (testdata/recognize) prints READY once its
// holders hold and its waiters wait, and keeps the state until its stdin is
// closed.

// recAwaitChildren waits, on watches, until path has at least n children.
func recAwaitChildren(t *testing.T, conn *zk.Conn, path string, n int) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		children, _, ch, err := conn.ChildrenW(path)
		if err == zk.ErrNoNode {
			var ok bool
			ok, _, ch, err = conn.ExistsW(path)
			if ok {
				continue
			}
		}
		if err != nil {
			t.Fatalf("list %s: %v", path, err)
		}
		if len(children) >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s has %d children, want %d", path, len(children), n)
		}
	}
}

// recGoPeers sets up go-zookeeper zk.Lock state, base/gozk (one holder,
// two waiters), and base/zkxmutex and base/zkxlatch as zkx's recipes lay
// them out (Curator's names, "<host> <pid>" as data), created directly.
func recGoPeers(t *testing.T, connect, base string) {
	t.Helper()
	observer := zktest.Conn(t, connect)
	for i := 1; i <= 3; i++ {
		l := zk.NewLock(zktest.Conn(t, connect), base+"/gozk", zk.WorldACL(zk.PermAll))
		if i == 1 {
			if err := l.Lock(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		go l.Lock() // waits until the test's connections close
		recAwaitChildren(t, observer, base+"/gozk", i)
	}
	for _, dir := range []string{base + "/zkxmutex", base + "/zkxlatch"} {
		if _, err := observer.Create(dir, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		marker := "-lock-"
		if strings.HasSuffix(dir, "latch") {
			marker = "-latch-"
		}
		for i, id := range []string{testUUID, testUUID2} {
			data := []byte(fmt.Sprintf("web-%d %d", i+1, 4000+i))
			if _, err := zktest.Conn(t, connect).Create(dir+"/_c_"+id+marker, data, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// recChain checks a lock or election's contenders: the data of each holder
// and waiter in order, each waiter waiting for the one before it.
func recChain(t *testing.T, what string, holders, waiters []Contender, holderData []string, waiterData []string) {
	t.Helper()
	got := func(cs []Contender) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, c.Data)
		}
		return out
	}
	if h := got(holders); holderData != nil && !recEqual(h, holderData) {
		t.Errorf("%s holders %q, want %q", what, h, holderData)
	}
	if w := got(waiters); waiterData != nil && !recEqual(w, waiterData) {
		t.Errorf("%s waiters %q, want %q", what, w, waiterData)
	}
	all := append(append([]Contender{}, holders...), waiters...)
	sessions := map[string]bool{}
	for i, c := range all {
		if c.Session == "" || sessions[c.Session] {
			t.Errorf("%s: %s has session %q, want a session of its own", what, c.Node, c.Session)
		}
		sessions[c.Session] = true
		if i > 0 && c.Seq <= all[i-1].Seq {
			t.Errorf("%s: %s (seq %d) after %s (seq %d)", what, c.Node, c.Seq, all[i-1].Node, all[i-1].Seq)
		}
		if i >= len(holders) && (c.WaitsFor != all[i-1].Node || c.Watch != "inferred" || c.HeldMs != nil) {
			t.Errorf("%s: waiter %+v, want it waiting for %s", what, c, all[i-1].Node)
		}
		if i < len(holders) && c.WaitsFor != "" {
			t.Errorf("%s: holder %+v waits", what, c)
		}
	}
}

func recContenderKinds(cs []Contender) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Kind)
	}
	return out
}

func TestRecognizeRealPeers(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	base := zktest.Path(t)
	kazoo := zktest.StartKazooRecipes(t, connect, base)
	java := zktest.StartCuratorRecipes(t, connect, base)
	recGoPeers(t, connect, base)
	kazoo.WaitReady(t)
	java.WaitReady(t)

	c := dialTest(t, connect)
	opts := Options{}
	get := func(t *testing.T, name string) Recipe {
		t.Helper()
		v := recognizeT(t, c, base+"/"+name, opts)
		if v == nil {
			t.Fatalf("%s not recognised", name)
		}
		return v
	}
	lock := func(t *testing.T, name, recipe, format string) *Lock {
		t.Helper()
		l := recAsLock(t, get(t, name))
		if l.Path != base+"/"+name || l.Recipe != recipe || l.Format != format {
			t.Errorf("%s: %s %s, want %s %s", name, l.Format, l.Recipe, format, recipe)
		}
		recWantWarnings(t, l.Warnings)
		return l
	}

	t.Run("curator InterProcessMutex", func(t *testing.T) {
		l := lock(t, "mutex", "mutex", "curator")
		recChain(t, "mutex", l.Holders, l.Waiters, nil, nil)
		if len(l.Holders) != 1 || len(l.Waiters) != 2 || l.Holders[0].Data == "" || l.Holders[0].Created.IsZero() {
			t.Errorf("mutex %+v", l)
		}
	})
	t.Run("curator InterProcessReadWriteLock", func(t *testing.T) {
		l := lock(t, "rw", "rwlock", "curator")
		if h, w := recContenderKinds(l.Holders), recContenderKinds(l.Waiters); !recEqual(h, []string{"read", "read"}) || !recEqual(w, []string{"write", "read", "write"}) {
			t.Fatalf("holders %q waiters %q", h, w)
		}
		// w3 waits for r2, r4 for w3 (the lowest writer ahead), w5 for r4.
		recChain(t, "rw", l.Holders[1:], l.Waiters, nil, nil)
	})
	t.Run("curator InterProcessSemaphoreV2", func(t *testing.T) {
		l := lock(t, "semaphore", "semaphore", "curator")
		if h := recContenderKinds(l.Holders); !recEqual(h, []string{"lease", "lease"}) || len(l.Waiters) != 2 {
			t.Fatalf("holders %q, %d waiters", h, len(l.Waiters))
		}
		if l.MaxLeases != 2 || l.MaxFrom != MaxFromInferred || l.Broken {
			t.Errorf("max %d from %s: want 2, inferred from the waiting lease", l.MaxLeases, l.MaxFrom)
		}
		lease, next := l.Waiters[0], l.Waiters[1]
		if lease.Kind != "lease" || !strings.HasPrefix(lease.Node, "leases/") || lease.WaitsFor != "leases" {
			t.Errorf("waiting lease %+v", lease)
		}
		if !strings.HasPrefix(next.Node, "locks/") || !strings.HasPrefix(next.WaitsFor, "locks/") || next.WaitsFor == next.Node {
			t.Errorf("waiter for the semaphore's lock %+v", next)
		}
		for _, h := range l.Holders {
			if h.Session == lease.Session || !strings.HasPrefix(h.Node, "leases/") {
				t.Errorf("lease holder %+v", h)
			}
		}
	})
	t.Run("curator LeaderLatch", func(t *testing.T) {
		e := recAsElection(t, get(t, "latch"))
		if e.Format != "curator" || e.Leader == nil {
			t.Fatalf("latch %+v", e)
		}
		recChain(t, "latch", []Contender{*e.Leader}, e.Candidates, []string{"p1"}, []string{"p2", "p3"})
		recWantWarnings(t, e.Warnings)
	})
	t.Run("curator LeaderSelector", func(t *testing.T) {
		l := lock(t, "selector", "mutex", "curator")
		recChain(t, "selector", l.Holders, l.Waiters, []string{"e1"}, []string{"e2"})
		if e := LockAsElection(*l); e.Leader == nil || e.Leader.Data != "e1" {
			t.Errorf("selector as an election: %+v", e)
		}
	})
	t.Run("curator queues", func(t *testing.T) {
		for _, tt := range []struct{ name, format, items string }{
			{"queue", "curator", "one two three"},
			{"simple", "zookeeper-recipes", "a b"},
			{"zkqueue", "zookeeper-recipes", "first second"},
		} {
			q := recAsQueue(t, get(t, tt.name))
			var data []string
			for _, it := range q.Items {
				data = append(data, it.Data)
			}
			if q.Format != tt.format || strings.Join(data, " ") != tt.items || q.Length != len(data) {
				t.Errorf("%s: %s queue %q (length %d), want %s %q", tt.name, q.Format, data, q.Length, tt.format, tt.items)
			}
			recWantWarnings(t, q.Warnings)
		}
	})
	t.Run("curator barriers", func(t *testing.T) {
		b := recAsBarrier(t, get(t, "barrier"))
		if b.Kind != "barrier" || b.Format != "curator" {
			t.Errorf("barrier %+v", b)
		}
		d := recAsBarrier(t, get(t, "double"))
		if d.Kind != "double-barrier" || d.Format != "curator" || d.Ready || len(d.Participants) != 2 {
			logChildren(t, connect, base+"/double")
			t.Fatalf("double barrier %+v", d)
		}
		for _, p := range d.Participants {
			if p.WaitsFor != "ready" || p.Session == "" {
				t.Errorf("participant %+v", p)
			}
		}
		recWantWarnings(t, d.Warnings)
	})
	t.Run("zookeeper WriteLock", func(t *testing.T) {
		l := lock(t, "zklock", "mutex", "zookeeper-recipes")
		recChain(t, "zklock", l.Holders, l.Waiters, []string{`\x124`}, []string{`\x124`, `\x124`})
	})
	t.Run("zookeeper LeaderElectionSupport", func(t *testing.T) {
		e := recAsElection(t, get(t, "zkelection"))
		if e.Format != "zookeeper-recipes" || e.Leader == nil {
			t.Fatalf("election %+v", e)
		}
		recChain(t, "zkelection", []Contender{*e.Leader}, e.Candidates, []string{"h1"}, []string{"h2", "h3"})
		recWantWarnings(t, e.Warnings)
	})
	t.Run("kazoo Lock", func(t *testing.T) {
		l := lock(t, "klock", "mutex", "kazoo")
		recChain(t, "klock", l.Holders, l.Waiters, []string{"k1"}, []string{"k2", "k3"})
	})
	t.Run("kazoo ReadLock and WriteLock", func(t *testing.T) {
		l := lock(t, "krw", "rwlock", "kazoo")
		recChain(t, "krw", l.Holders, l.Waiters, []string{"r1"}, []string{"w2", "r3"})
		if h, w := recContenderKinds(l.Holders), recContenderKinds(l.Waiters); !recEqual(h, []string{"read"}) || !recEqual(w, []string{"write", "read"}) {
			t.Errorf("holders %q waiters %q", h, w)
		}
	})
	t.Run("kazoo Semaphore", func(t *testing.T) {
		for _, name := range []string{"ksem", "ksem-__lock__"} {
			l := recAsLock(t, get(t, name))
			if l.Path != base+"/ksem" || l.Recipe != "semaphore" || l.Format != "kazoo" || l.MaxLeases != 2 || l.MaxFrom != MaxFromKazoo {
				t.Fatalf("%s: %s %s %s max %d", name, l.Path, l.Format, l.Recipe, l.MaxLeases)
			}
			var leases []string
			for _, h := range l.Holders {
				leases = append(leases, h.Kind+" "+h.Data)
			}
			sort.Strings(leases)
			if !recEqual(leases, []string{"lease s1", "lease s2"}) {
				t.Errorf("leases %q", leases)
			}
			// Kazoo 2.8's Semaphore hands its identifier to its Lock as
			// bytes, which the Lock writes as str(bytes): "b's3'".
			lockDir := base + "/ksem-__lock__/"
			if len(l.Waiters) != 2 || l.Waiters[0].Data != "b's3'" || l.Waiters[0].WaitsFor != base+"/ksem" ||
				l.Waiters[1].Data != "b's4'" || l.Waiters[1].WaitsFor != l.Waiters[0].Node || !strings.HasPrefix(l.Waiters[0].Node, lockDir) {
				t.Errorf("waiters %+v", l.Waiters)
			}
			recWantWarnings(t, l.Warnings)
		}
	})
	t.Run("kazoo Election", func(t *testing.T) {
		l := lock(t, "kelection", "mutex", "kazoo")
		recChain(t, "kelection", l.Holders, l.Waiters, []string{"c1"}, []string{"c2"})
	})
	t.Run("kazoo queues", func(t *testing.T) {
		q := recAsQueue(t, get(t, "kqueue"))
		if got := recItems(q.Items); q.Format != "kazoo" || len(got) != 3 ||
			!strings.HasSuffix(got[0], "=high[10]") || !strings.HasSuffix(got[1], "=mid[100]") || !strings.HasSuffix(got[2], "=low[200]") {
			t.Errorf("queue %s %q", q.Format, got)
		}
		lq := recAsQueue(t, get(t, "klq"))
		if got := recItems(lq.Items); lq.Format != "kazoo" || lq.Path != base+"/klq" || len(got) != 2 ||
			!strings.HasSuffix(got[0], "=a[100]*") || !strings.HasSuffix(got[1], "=b[100]") {
			t.Errorf("locking queue %s %q", lq.Format, got)
		}
		recWantWarnings(t, lq.Warnings)
	})
	t.Run("go-zookeeper Lock", func(t *testing.T) {
		l := lock(t, "gozk", "mutex", "go-zookeeper")
		recChain(t, "gozk", l.Holders, l.Waiters, []string{""}, []string{"", ""})
	})
	t.Run("zkx layout", func(t *testing.T) {
		l := lock(t, "zkxmutex", "mutex", "zkx")
		recChain(t, "zkxmutex", l.Holders, l.Waiters, []string{"web-1 4000"}, []string{"web-2 4001"})
		e := recAsElection(t, get(t, "zkxlatch"))
		if e.Format != "zkx" || e.Leader == nil || len(e.Candidates) != 1 {
			t.Errorf("zkx election %+v", e)
		}
	})
	t.Run("with the server's tables", func(t *testing.T) {
		// Only where the peer set its watch before READY by construction:
		// ZooKeeper's WriteLock and LeaderElectionSupport return once their
		// exists watch is set, and a double barrier participant watches
		// ready before it creates its node.
		in, err := introspect.Ask(context.Background(), connstr.ConnectString{Servers: []string{connect}}, introspect.Options{})
		if err != nil {
			t.Fatal(err)
		}
		topts := Options{Tables: in.Tables()}
		observed := func(what string, cs []Contender) {
			t.Helper()
			for _, c := range cs {
				if c.Watch != "observed" || c.Client == "" {
					t.Errorf("%s: %s waits for %s, watch %q, client %q; want the watch observed and a client", what, c.Node, c.WaitsFor, c.Watch, c.Client)
				}
			}
		}
		l := recAsLock(t, recognizeT(t, c, base+"/zklock", topts))
		observed("zklock", l.Waiters)
		if l.Holders[0].Client == "" {
			t.Errorf("zklock holder has no client address")
		}
		recWantWarnings(t, l.Warnings)
		e := recAsElection(t, recognizeT(t, c, base+"/zkelection", topts))
		observed("zkelection", e.Candidates)
		recWantWarnings(t, e.Warnings)
		d := recAsBarrier(t, recognizeT(t, c, base+"/double", topts))
		observed("double", d.Participants)
		recWantWarnings(t, d.Warnings)
	})
	t.Run("Scan", func(t *testing.T) {
		res, err := Scan(context.Background(), c, base, opts)
		if err != nil || res.Partial {
			t.Fatalf("Scan: %v (partial %v)", err, res.Partial)
		}
		var got []string
		for _, l := range res.Locks {
			got = append(got, strings.TrimPrefix(l.Path, base+"/")+" "+l.Recipe)
		}
		for _, e := range res.Elections {
			got = append(got, strings.TrimPrefix(e.Path, base+"/")+" election")
		}
		for _, q := range res.Queues {
			got = append(got, strings.TrimPrefix(q.Path, base+"/")+" queue")
		}
		for _, b := range res.Barriers {
			got = append(got, strings.TrimPrefix(b.Path, base+"/")+" "+b.Kind)
		}
		sort.Strings(got)
		want := []string{
			"barrier barrier", "double double-barrier", "gozk mutex", "kelection mutex", "klock mutex", "klq queue",
			"kqueue queue", "krw rwlock", "ksem semaphore", "latch election", "mutex mutex", "queue queue", "rw rwlock",
			"selector mutex", "semaphore semaphore", "simple queue", "zkelection election", "zklock mutex", "zkqueue queue",
			"zkxlatch election", "zkxmutex mutex",
		}
		if !recEqual(got, want) {
			t.Errorf("Scan found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// logChildren logs each child of dir as the server has it (owner,
// creation, data): a double barrier was seen, twice in some thirty suite
// runs on a loaded machine, with one of its two participants a child with
// no ephemeral owner, and this is what the next such failure should show.
func logChildren(t *testing.T, connect, dir string) {
	t.Helper()
	c := zktest.Conn(t, connect)
	kids, _, err := c.Children(dir)
	if err != nil {
		t.Logf("children of %s: %v", dir, err)
		return
	}
	for _, k := range kids {
		data, st, err := c.Get(dir + "/" + k)
		if err != nil {
			t.Logf("%s/%s: %v", dir, k, err)
			continue
		}
		t.Logf("%s/%s: ephemeral owner 0x%x, czxid 0x%x, created %v, data %q", dir, k, st.EphemeralOwner, st.Czxid, time.UnixMilli(st.Ctime).UTC(), data)
	}
}
