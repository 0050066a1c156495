package recipes

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// The tests in this file run Curator 5.4 and Kazoo 2.8 themselves
// (testdata/interop/curator/RecipesPeer.java, kazoo/recipes_peer.py) on
// the same paths as the recipes that write their layouts, against real
// ZooKeeper: each library reads what zkx wrote, and zkx reads what each
// wrote.

// TestInteropPartyKazoo: a Kazoo Party and a zkx Party share a directory.
// Kazoo counts and names zkx's member; zkx lists Kazoo's with its
// identifier and session; each sees the other leave.
func TestInteropPartyKazoo(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/party"
	ctx := testContext(t)
	kazoo := zktest.StartKazooRecipesPeer(t, connect)
	kazooSession := strings.TrimPrefix(kazoo.Do(t, "session", "SESSION "), "SESSION ")
	kazoo.Do(t, "party "+dir+" kazoo-worker", "JOINED")

	s := dialTest(t, connect)
	p := NewParty(s, dir, WithData([]byte("zkx-worker")))
	if err := p.Join(ctx); err != nil {
		t.Fatal(err)
	}
	if got := kazoo.Do(t, "party-members "+dir, "MEMBERS "); got != "MEMBERS 2 kazoo-worker,zkx-worker" {
		t.Fatalf("Kazoo's Party sees %q", got)
	}
	ms, err := p.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, m := range ms {
		seen = append(seen, fmt.Sprintf("%s@0x%x", m.Data, m.Session))
		if !partyNodeName.MatchString(m.Name) {
			t.Errorf("member node %q", m.Name)
		}
	}
	want := []string{"kazoo-worker@" + kazooSession, fmt.Sprintf("zkx-worker@0x%x", s.ID())}
	if len(seen) != 2 || !(seen[0] == want[0] && seen[1] == want[1] || seen[0] == want[1] && seen[1] == want[0]) {
		t.Fatalf("zkx's Party sees %q, want %q", seen, want)
	}

	if err := p.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if got := kazoo.Do(t, "party-members "+dir, "MEMBERS "); got != "MEMBERS 1 kazoo-worker" {
		t.Fatalf("after zkx left, Kazoo's Party sees %q", got)
	}
	kazoo.Do(t, "party-leave", "LEFT")
	if ms, err := p.Members(ctx); err != nil || len(ms) != 0 {
		t.Fatalf("after Kazoo left, zkx sees %+v %v", ms, err)
	}
}

// TestInteropGroupMemberCurator: a Curator GroupMember and a zkx
// GroupMember share a membership directory. Curator's getCurrentMembers
// maps zkx's id to its payload, and follows a payload change and a leave;
// zkx lists Curator's member; zkx's node, deleted by someone else, comes
// back and Curator sees it again.
func TestInteropGroupMemberCurator(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/members"
	ctx := testContext(t)
	curator := zktest.StartCuratorRecipesPeer(t, connect)
	curator.Do(t, "group "+dir+" curator-1 10.0.0.1:8080", "JOINED")

	s := dialTest(t, connect)
	g := NewGroupMember(s, dir, "zkx-1", WithData([]byte("10.0.0.2:8080")))
	if err := g.Join(ctx); err != nil {
		t.Fatal(err)
	}
	curator.Do(t, "members curator-1=10.0.0.1:8080,zkx-1=10.0.0.2:8080", "MEMBERS ")
	waitChildren(t, s, dir, func(c []string) bool { return len(c) == 2 })
	ms, err := g.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Name != "curator-1" || string(ms[0].Data) != "10.0.0.1:8080" || ms[0].Session == 0 || ms[0].Session == s.ID() {
		t.Fatalf("zkx sees %+v", ms)
	}

	if err := g.SetData(ctx, []byte("10.0.0.2:9090")); err != nil {
		t.Fatal(err)
	}
	curator.Do(t, "members curator-1=10.0.0.1:8080,zkx-1=10.0.0.2:9090", "MEMBERS ")

	operator := dialTest(t, connect)
	_, before, err := operator.Conn().Get(dir + "/zkx-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := operator.Conn().Delete(dir+"/zkx-1", -1); err != nil {
		t.Fatal(err)
	}
	waitNode(t, operator, dir+"/zkx-1", func(_ []byte, st *zk.Stat) bool { return st.Czxid != before.Czxid })
	curator.Do(t, "members curator-1=10.0.0.1:8080,zkx-1=10.0.0.2:9090", "MEMBERS ")

	if err := g.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	curator.Do(t, "members curator-1=10.0.0.1:8080", "MEMBERS ")
	curator.Do(t, "leave", "LEFT")
	waitChildren(t, s, dir, func(c []string) bool { return len(c) == 0 })
}

// TestInteropSharedCount: Curator's SharedCount (trySetCount), Kazoo's
// Counter with support_curator and zkx's SharedCount.Add increment one
// count at once; no increment is lost, and each library reads the total.
// Then each reads what another set alone.
func TestInteropSharedCount(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	path := zktest.Path(t) + "/counts/hits"
	ctx := testContext(t)
	curator := zktest.StartCuratorRecipesPeer(t, connect)
	kazoo := zktest.StartKazooRecipesPeer(t, connect)
	c := NewSharedCount(dialTest(t, connect), path, 0)
	if _, err := c.Get(ctx); err != nil { // made by zkx, with Curator's seed layout
		t.Fatal(err)
	}

	const adds = 100
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range adds {
			if _, err := c.Add(ctx, 1); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	curator.Send(t, fmt.Sprintf("count-add %s %d", path, adds))
	kazoo.Send(t, fmt.Sprintf("counter-add %s %d", path, adds))
	curator.Expect(t, "ADDED ")
	kazoo.Expect(t, "ADDED ")
	wg.Wait()

	total := fmt.Sprint(3 * adds)
	got, err := c.Get(ctx)
	if err != nil || got.Value != 3*adds || got.Version != 3*adds {
		t.Fatalf("zkx reads %+v %v, want %s at version %s", got, err, total, total)
	}
	if line := curator.Do(t, "count-read "+path, "COUNT "); line != "COUNT "+total+" "+total {
		t.Errorf("Curator reads %q", line)
	}
	if line := kazoo.Do(t, "counter-read "+path, "COUNTER "); line != "COUNTER "+total {
		t.Errorf("Kazoo reads %q", line)
	}

	if _, err := c.Set(ctx, -42); err != nil {
		t.Fatal(err)
	}
	if line := curator.Do(t, "count-read "+path, "COUNT "); !strings.HasPrefix(line, "COUNT -42 ") {
		t.Errorf("Curator reads %q after zkx set -42", line)
	}
	if line := kazoo.Do(t, "counter-read "+path, "COUNTER "); line != "COUNTER -42" {
		t.Errorf("Kazoo reads %q after zkx set -42", line)
	}
	before, err := c.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan VersionedCount, 1)
	go func() {
		v, err := c.WaitChange(ctx, before)
		if err != nil {
			t.Error(err)
		}
		changed <- v
	}()
	curator.Do(t, "count-set "+path+" 2147483647", "SET ")
	if v := <-changed; v.Value != 2147483647 || v.Version != before.Version+1 {
		t.Errorf("zkx saw Curator's set as %+v", v)
	}
}

// TestInteropCuratorQueue: a Curator DistributedQueue producer's put and
// putMulti are taken by a CuratorQueue as the items Curator put, node by
// node; a CuratorQueue's puts are handed by a Curator consumer to its
// QueueConsumer item by item, in order.
func TestInteropCuratorQueue(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/jobs"
	ctx := testContext(t)
	curator := zktest.StartCuratorRecipesPeer(t, connect)
	curator.Do(t, "queue-put "+dir+" curator-1", "PUT 1")
	curator.Do(t, "queue-put "+dir+" curator-2 curator-3 curator-4", "PUT 3")

	q := NewCuratorQueue(dialTest(t, connect), dir)
	for _, want := range []string{"curator-1", "curator-2 curator-3 curator-4"} {
		items, err := q.Take(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			got = append(got, string(it))
		}
		if strings.Join(got, " ") != want {
			t.Fatalf("zkx took %q, want %q", got, want)
		}
	}

	if _, err := q.Put(ctx, []byte("zkx-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Put(ctx, []byte("zkx-2"), []byte("zkx-3")); err != nil {
		t.Fatal(err)
	}
	curator.Send(t, "queue-take "+dir+" 3")
	for _, want := range []string{"zkx-1", "zkx-2", "zkx-3"} {
		if got := curator.Expect(t, "ITEM "); got != "ITEM "+want {
			t.Fatalf("Curator's consumer was handed %q, want %q", got, "ITEM "+want)
		}
	}
	curator.Expect(t, "TOOK 3")
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("after Curator took them: %d nodes left, %v", n, err)
	}
}
