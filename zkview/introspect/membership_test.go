package introspect

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
)

func TestParseMembership(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data string
		want       Membership
	}{
		{"standalone: empty", "", Membership{}},
		// Read from a real ZooKeeper 3.8 ensemble of three with a static
		// configuration (zktest.Real(t, 3)): no client addresses, version 0.
		{"static three", "server.1=127.0.0.1:35221:43103:participant\nserver.2=127.0.0.1:42793:33573:participant\nserver.3=127.0.0.1:34895:39637:participant\nversion=0",
			Membership{Version: "0", Members: []ConfigMember{
				{ID: 1, Role: "participant", Quorum: []string{"127.0.0.1:35221"}, Election: []string{"127.0.0.1:43103"}},
				{ID: 2, Role: "participant", Quorum: []string{"127.0.0.1:42793"}, Election: []string{"127.0.0.1:33573"}},
				{ID: 3, Role: "participant", Quorum: []string{"127.0.0.1:34895"}, Election: []string{"127.0.0.1:39637"}}}}},
		// A dynamic configuration after a reconfig, as QuorumServer.toString
		// writes it: the client address after ';', an observer, IPv6,
		// several addresses (3.6+), the version in hex.
		{"dynamic", "server.3=[::1]:2890:3890:observer;[::1]:2183\nserver.1=10.0.0.1:2888:3888|10.0.1.1:2888:3888:participant;0.0.0.0:2181\nversion=100000004",
			Membership{Version: "100000004", Members: []ConfigMember{
				{ID: 1, Role: "participant", Quorum: []string{"10.0.0.1:2888", "10.0.1.1:2888"}, Election: []string{"10.0.0.1:3888", "10.0.1.1:3888"}, Client: "0.0.0.0:2181"},
				{ID: 3, Role: "observer", Quorum: []string{"[::1]:2890"}, Election: []string{"[::1]:3890"}, Client: "[::1]:2183"}}}},
		{"no role, port-only client", "server.7=zk7:2888:3888;2181\nversion=1",
			Membership{Version: "1", Members: []ConfigMember{{ID: 7, Role: "participant", Quorum: []string{"zk7:2888"}, Election: []string{"zk7:3888"}, Client: "0.0.0.0:2181"}}}},
	}
	for _, c := range cases {
		got, err := ParseMembership([]byte(c.data))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, %v\nwant %+v", c.name, got, err, c.want)
		}
	}
	for _, bad := range []string{"server.x=h:1:2", "server.1=h", "server.1=h:1:2:voter", "garbage", "server.1=[::1:1:2"} {
		if _, err := ParseMembership([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// membershipOfARealEnsemble: /zookeeper/config of a real ensemble of
// three (zktest.Real(t, 3), run by TestIntrospectEnsemble) names each
// member with its peer ports, as zkx shows it in :server and zkx whoami.
func membershipOfARealEnsemble(t *testing.T, e *zktest.Ensemble) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := zkview.Dial(ctx, e.ConnectString()+"/chroot-does-not-matter")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data, _, err := c.ReadSystemNode(ctx, "/zookeeper/config")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseMembership(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Members) != 3 || m.Version == "" {
		t.Fatalf("membership %+v from %q", m, data)
	}
	for i, mem := range m.Members {
		if mem.ID != int64(i+1) || mem.Role != "participant" || len(mem.Quorum) != 1 || len(mem.Election) != 1 {
			t.Errorf("member %d: %+v", i+1, mem)
		}
	}
	if _, _, err := c.ReadSystemNode(ctx, "/app"); err == nil {
		t.Error("ReadSystemNode read a node outside /zookeeper")
	}
}
