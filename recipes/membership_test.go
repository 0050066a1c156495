package recipes

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

var partyNodeName = regexp.MustCompile(`^[0-9a-f]{32}__party__$`)

// TestPartyJoinLeave: two members join a Party in Kazoo's layout, each an
// ephemeral "<hex32>__party__" node of its own session holding its
// identifier under a persistent directory; a child of another shape is not
// a member; leaving deletes the node, and a closed session's member goes.
func TestPartyJoinLeave(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t) + "/party"
		ctx := testContext(t)
		sa, sb := dialTest(t, connect), dialTest(t, connect)
		a := NewParty(sa, dir, WithData([]byte("worker-a")))
		b := NewParty(sb, dir, WithData([]byte("worker-b")))
		if err := a.Join(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Join(ctx); err != nil {
			t.Fatalf("second Join: %v", err)
		}
		if err := b.Join(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := sa.Conn().Create(dir+"/not-a-member", nil, 0, worldACL()); err != nil {
			t.Fatal(err)
		}
		_, dirStat, err := sa.Conn().Exists(dir)
		if err != nil || dirStat.EphemeralOwner != 0 {
			t.Fatalf("party directory: %+v %v", dirStat, err)
		}
		ms, err := a.Members(ctx)
		if err != nil {
			t.Fatal(err)
		}
		owners := map[string]int64{}
		for _, m := range ms {
			if !partyNodeName.MatchString(m.Name) {
				t.Errorf("member node %q is not Kazoo's <hex32>__party__", m.Name)
			}
			owners[string(m.Data)] = m.Session
		}
		if len(ms) != 2 || owners["worker-a"] != sa.ID() || owners["worker-b"] != sb.ID() {
			t.Fatalf("members %+v", ms)
		}
		if ms[0].Name != a.Node() && ms[1].Name != a.Node() {
			t.Errorf("a's node %s not among %+v", a.Node(), ms)
		}

		if err := a.Leave(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Leave(ctx); !errors.Is(err, ErrNotEntered) {
			t.Errorf("second Leave: %v, want ErrNotEntered", err)
		}
		if ms, err := b.Members(ctx); err != nil || len(ms) != 1 || string(ms[0].Data) != "worker-b" {
			t.Fatalf("after a left: %+v %v", ms, err)
		}
		sb.Close()
		waitChildren(t, sa, dir, func(c []string) bool { return len(c) == 1 }) // only not-a-member
		if ms, err := a.Members(ctx); err != nil || len(ms) != 0 {
			t.Fatalf("after b's session closed: %+v %v", ms, err)
		}
	})
}

// TestPartyLeaveAfterDelete: a member whose node someone else deleted is
// told so by Leave (Kazoo's leave returns False).
func TestPartyLeaveAfterDelete(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, connect)
		p := NewParty(s, dir)
		if err := p.Join(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Conn().Delete(dir+"/"+p.Node(), -1); err != nil {
			t.Fatal(err)
		}
		if err := p.Leave(ctx); !errors.Is(err, ErrNotLocked) {
			t.Errorf("Leave after the node was deleted: %v, want ErrNotLocked", err)
		}
	})
}

// TestGroupMember: members are ephemeral nodes named by their ids holding
// their payloads; a member's node deleted by someone else comes back with
// the current payload (Curator's PersistentNode); an id another session
// holds is refused; Leave deletes the node and stops keeping it.
func TestGroupMember(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t) + "/members"
		ctx := testContext(t)
		sa, sb, other := dialTest(t, connect), dialTest(t, connect), dialTest(t, connect)
		a := NewGroupMember(sa, dir, "a", WithData([]byte("10.0.0.1:8080")))
		b := NewGroupMember(sb, dir, "b", WithData([]byte("10.0.0.2:8080")))
		for _, g := range []*GroupMember{a, b} {
			if err := g.Join(ctx); err != nil {
				t.Fatal(err)
			}
		}
		ms, err := a.Members(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 2 || ms[0].Name != "a" || string(ms[0].Data) != "10.0.0.1:8080" || ms[0].Session != sa.ID() ||
			ms[1].Name != "b" || string(ms[1].Data) != "10.0.0.2:8080" || ms[1].Session != sb.ID() {
			t.Fatalf("members %+v", ms)
		}

		if err := a.SetData(ctx, []byte("10.0.0.1:9090")); err != nil {
			t.Fatal(err)
		}
		if data, _, err := other.Conn().Get(dir + "/a"); err != nil || string(data) != "10.0.0.1:9090" {
			t.Fatalf("a's node after SetData: %q %v", data, err)
		}
		// Deleted by an operator: the keeper makes it again.
		_, _, gone, err := other.Conn().GetW(dir + "/a")
		if err != nil {
			t.Fatal(err)
		}
		if err := other.Conn().Delete(dir+"/a", -1); err != nil {
			t.Fatal(err)
		}
		<-gone
		waitNode(t, other, dir+"/a", func(data []byte, st *zk.Stat) bool {
			return st.EphemeralOwner == sa.ID() && string(data) == "10.0.0.1:9090"
		})
		if err := a.Err(); err != nil {
			t.Errorf("a.Err while keeping its node: %v", err)
		}

		taken := NewGroupMember(other, dir, "b")
		if err := taken.Join(ctx); !errors.Is(err, ErrMemberTaken) {
			t.Errorf("Join under b's id: %v, want ErrMemberTaken", err)
		}
		if err := taken.Leave(ctx); !errors.Is(err, ErrNotEntered) {
			t.Errorf("Leave of a member that never joined: %v", err)
		}

		if err := a.Leave(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, _, err := other.Conn().Exists(dir + "/a"); ok || err != nil {
			t.Fatalf("a's node after Leave: exists %v, %v", ok, err)
		}
		if ms, err := b.Members(ctx); err != nil || len(ms) != 1 || ms[0].Name != "b" {
			t.Fatalf("after a left: %+v %v", ms, err)
		}
	})
}

// waitNode waits on watches, with the test's deadline, until path exists
// and cond holds of it.
func waitNode(t *testing.T, s *Session, path string, cond func([]byte, *zk.Stat) bool) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		ok, _, ch, err := s.Conn().ExistsW(path)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			data, st, dataCh, err := s.Conn().GetW(path)
			if err == nil && cond(data, st) {
				return
			}
			if err == nil {
				ch = dataCh
			}
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting on %s", path)
		}
	}
}
