package demo

import (
	"context"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestSeedIsRecognised seeds the demo's state and checks that zkview's
// recognisers find every recipe in it with the right format, holders and
// waiters, and that Close removes it all.
func TestSeedIsRecognised(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		base := zktest.Path(t)
		s, err := Seed(ctx, SeedOptions{Servers: strings.Split(connect, ","), Base: base})
		if err != nil {
			t.Fatal(err)
		}
		closed := false
		defer func() {
			if !closed {
				s.Close()
			}
		}()
		c, err := zkview.Dial(ctx, connect)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		all, err := recognize.Scan(ctx, c, base, recognize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkSeededSystems(t, all, path.Join(base, SeedPaths.Systems))
		res := plainRecipes(all)
		// Nothing else is taken for a recipe: the seeds hold no group,
		// partitioner, lease, counter or TTL node outside a system.
		for _, r := range all.All() {
			switch i := r.Info(); {
			case i.System != "", i.Class == recognize.ClassLock, i.Class == recognize.ClassElection, i.Class == recognize.ClassQueue:
			default:
				t.Errorf("%s taken for a %s %s: the seeds hold none", i.Path, i.Format, i.Kind)
			}
		}

		locks := map[string]recognize.Lock{}
		for _, l := range res.Locks {
			locks[l.Path] = l
		}
		for _, want := range []struct {
			rel, recipe, format string
			holders, waiters    int
		}{
			{SeedPaths.ZkxLock, "mutex", "zkx", 1, 2},
			{SeedPaths.CuratorLock, "mutex", "curator", 1, 2},
			{SeedPaths.KazooLock, "mutex", "kazoo", 1, 2},
			{SeedPaths.StuckLock, "mutex", "curator", 1, 1},
			{SeedPaths.RWLock, "rwlock", "curator", 2, 2},
			{SeedPaths.Semaphore, "semaphore", "curator", 2, 1},
		} {
			p := path.Join(base, want.rel)
			l, ok := locks[p]
			if !ok {
				t.Errorf("%s not recognised as a lock; found %v", p, lockPaths(res.Locks))
				continue
			}
			if l.Recipe != want.recipe || l.Format != want.format || len(l.Holders) != want.holders || len(l.Waiters) != want.waiters {
				t.Errorf("%s: %s %s with %d holders and %d waiters, want %s %s with %d and %d (warnings %v)",
					p, l.Format, l.Recipe, len(l.Holders), len(l.Waiters), want.format, want.recipe, want.holders, want.waiters, l.Warnings)
			}
			for _, h := range append(append([]recognize.Contender{}, l.Holders...), l.Waiters...) {
				if h.SessionID == 0 {
					t.Errorf("%s: %s has no session", p, h.Node)
				}
			}
			for _, w := range l.Waiters {
				if w.WaitsFor == "" {
					t.Errorf("%s: waiter %s waits for nothing", p, w.Node)
				}
			}
		}
		if rw := locks[path.Join(base, SeedPaths.RWLock)]; len(rw.Waiters) == 2 && (rw.Waiters[0].Kind != "write" || rw.Waiters[1].Kind != "read") {
			t.Errorf("rwlock waiters are %s then %s, want the writer, then a reader behind it", rw.Waiters[0].Kind, rw.Waiters[1].Kind)
		}
		if l := locks[path.Join(base, SeedPaths.ZkxLock)]; len(l.Holders) == 1 && len(l.Waiters) == 2 {
			sessions := map[int64]bool{l.Holders[0].SessionID: true, l.Waiters[0].SessionID: true, l.Waiters[1].SessionID: true}
			if len(sessions) != 3 {
				t.Errorf("%s: contenders share sessions; each must have its own", l.Path)
			}
		}

		if len(res.Queues) != 1 || res.Queues[0].Path != path.Join(base, SeedPaths.Queue) || res.Queues[0].Length != 6 {
			t.Errorf("queues: %+v, want %s with 6 items", res.Queues, SeedPaths.Queue)
		} else if q := res.Queues[0]; !strings.HasPrefix(q.Items[0].Node, "qn-") || !strings.Contains(q.Items[0].Data, `"job"`) {
			t.Errorf("queue item %+v: want qn- nodes holding JSON jobs", q.Items[0])
		}

		if len(res.Elections) != 1 {
			t.Fatalf("elections: %+v, want %s", res.Elections, SeedPaths.Election)
		}
		e := res.Elections[0]
		if e.Path != path.Join(base, SeedPaths.Election) || e.Format != "curator" || e.Leader == nil ||
			e.Leader.Data != "scheduler-1" || len(e.Candidates) != 2 {
			t.Errorf("election: %+v, want %s led by scheduler-1 with 2 candidates", e, SeedPaths.Election)
		}

		instances, _, err := c.Children(ctx, path.Join(base, SeedPaths.Services, "orders"))
		if err != nil || len(instances) != 2 {
			t.Errorf("orders instances: %v, %v; want 2", instances, err)
		} else if data, st, err := c.Get(ctx, path.Join(base, SeedPaths.Services, "orders", instances[0])); err != nil ||
			st.EphemeralOwner == 0 || !strings.Contains(string(data), `"serviceType":"DYNAMIC"`) {
			t.Errorf("orders instance: %s, %+v, %v; want an ephemeral Curator service instance", data, st, err)
		}
		if data, _, err := c.Get(ctx, path.Join(base, SeedPaths.Config, "payments")); err != nil || !strings.Contains(string(data), `"provider"`) {
			t.Errorf("payments config: %s, %v", data, err)
		}

		closed = true
		if err := s.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		left, _, err := c.Children(ctx, base)
		if err != nil && !zkview.IsNoNode(err) {
			t.Fatal(err)
		}
		if len(left) != 0 {
			t.Errorf("after Close %s still holds %v", base, left)
		}
	})
}

// TestSeedRotates checks that seeded holders hand over when Rotate is set,
// while the stuck lock's holder stays.
func TestSeedRotates(t *testing.T) {
	t.Parallel()
	connect := zktest.Embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := zktest.Path(t)
	s, err := Seed(ctx, SeedOptions{Servers: []string{connect}, Base: base, Rotate: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := zkview.Dial(ctx, connect)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	holder := func(rel string) string {
		v, err := recognize.Dir(ctx, c, path.Join(base, rel), recognize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := v.(*recognize.Lock); ok && len(l.Holders) > 0 {
			return l.Holders[0].Node
		}
		return ""
	}
	first, stuck := holder(SeedPaths.CuratorLock), holder(SeedPaths.StuckLock)
	zktest.Eventually(t, 20*time.Second, SeedPaths.CuratorLock+"'s holder changes (Rotate 100ms)", func() error {
		if holder(SeedPaths.CuratorLock) == first {
			return fmt.Errorf("%s still holds", first)
		}
		return nil
	})
	if got := holder(SeedPaths.StuckLock); got != stuck || got == "" {
		t.Errorf("the stuck lock's holder moved from %q to %q", stuck, got)
	}
}

func lockPaths(ls []recognize.Lock) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Path)
	}
	return out
}

// plainRecipes leaves out the systems' objects (checked by
// checkSeededSystems).
func plainRecipes(all recognize.Result) recognize.Result {
	var res recognize.Result
	for _, r := range all.All() {
		if r.Info().System == "" {
			switch v := r.(type) {
			case *recognize.Lock:
				res.Locks = append(res.Locks, *v)
			case *recognize.Election:
				res.Elections = append(res.Elections, *v)
			case *recognize.Queue:
				res.Queues = append(res.Queues, *v)
			}
		}
	}
	return res
}

// checkSeededSystems checks that every system is seeded under systems/ and
// that each one's leaders and members are live: owned by a session.
func checkSeededSystems(t *testing.T, res recognize.Result, root string) {
	t.Helper()
	want := map[string]bool{"kafka": true, "hbase": true, "hdfs": true, "yarn": true, "solr": true, "helix": true,
		"curator-discovery": true, "clickhouse": true, "bookkeeper": true, "storm": true, "druid": true}
	for _, s := range recognize.Systems(res) {
		if !strings.HasPrefix(s.Root, root+"/") {
			continue // the services/ instances are Curator discovery's too
		}
		delete(want, s.System)
		for _, l := range s.Leaders {
			if l.Leader == nil || l.Leader.SessionID == 0 {
				t.Errorf("%s %s at %s: no live leader (%+v)", s.System, l.Role, l.Path, l.Leader)
			}
		}
		for _, m := range s.Members {
			for _, c := range m.Members {
				if c.SessionID == 0 {
					t.Errorf("%s %s: member %s has no session", s.System, m.Role, c.Node)
				}
			}
		}
	}
	for sys := range want {
		t.Errorf("system %s not seeded under %s", sys, root)
	}
}
