package introspect

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSessionsChrootRel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		chroot, path, want string
		ok                 bool
	}{
		{"", "/a/b", "/a/b", true},
		{"/app", "/app", "/", true},
		{"/app", "/app/locks/x", "/locks/x", true},
		{"/app", "/application/x", "", false},
		{"/app", "/", "", false},
		{"/app/prod", "/app/prodx", "", false},
		{"/app/prod", "/app/prod/q", "/q", true},
	} {
		if got, ok := chrootRel(c.chroot, c.path); got != c.want || ok != c.ok {
			t.Errorf("chrootRel(%q, %q) = %q, %v; want %q, %v", c.chroot, c.path, got, ok, c.want, c.ok)
		}
	}
}

// sessionsFixture is what three members, a follower, a leader and one
// down, would report: sessions are merged across members, paths mapped
// through the chroot.
func sessionsFixture() *Snapshot {
	est := time.UnixMilli(1_700_000_000_000)
	expires := time.Date(2026, 1, 5, 10, 0, 2, 0, time.UTC)
	return &Snapshot{
		Chroot: "/app",
		Members: []Member{
			{Addr: "zk1:2181", Mode: ModeFollower,
				Connections: []Connection{
					{Client: "10.0.0.5:4000", SessionID: 0x11, LastOp: "GETD", Established: est, Timeout: 4 * time.Second},
					{Client: "10.0.0.6:4001", SessionID: 0x12, LastOp: "CREA", Established: est, Timeout: 4 * time.Second},
					{Client: "10.0.0.9:4009"}, // no session yet
				},
				Watches: newWatchTable(map[int64][]string{
					0x11: {"/app/locks/l-0000000001", "/other/x", "/app"},
				}, nil),
				Dump: &Dump{
					Timeouts:   map[int64]time.Duration{0x11: 4 * time.Second, 0x12: 4 * time.Second, 0x13: 6 * time.Second},
					Ephemerals: map[int64][]string{0x12: {"/app/locks/l-0000000001", "/elsewhere"}},
				}},
			{Addr: "zk2:2181", Mode: ModeLeader,
				Connections: []Connection{},
				Watches:     newWatchTable(map[int64][]string{}, nil),
				Dump: &Dump{
					Buckets:    []ExpiryBucket{{At: expires, Sessions: []int64{0x11, 0x12, 0x13}}},
					Ephemerals: map[int64][]string{0x12: {"/app/locks/l-0000000001", "/elsewhere"}, 0x13: {"/app/members/m"}},
				}},
			{Addr: "zk3:2181", Mode: ModeUnreachable},
		},
	}
}

func TestSessionsBuild(t *testing.T) {
	t.Parallel()
	in := sessionsFixture()
	in.Sessions = buildSessions(in)
	type brief struct {
		Hex, Client, Server string
		Connected           bool
		Ephemerals, Watches []string
		WatchCount          int
		Timeout             time.Duration
		LastOp              string
		Expires             bool
	}
	var got []brief
	for _, s := range in.Sessions {
		got = append(got, brief{s.Hex, s.Client, s.Server, s.Connected, s.Ephemerals, s.Watches, s.WatchCount, s.Timeout, s.LastOp, !s.Expires.IsZero()})
	}
	want := []brief{
		{"0x11", "10.0.0.5:4000", "zk1:2181", true, []string{}, []string{"/", "/locks/l-0000000001"}, 3, 4 * time.Second, "GETD", true},
		{"0x12", "10.0.0.6:4001", "zk1:2181", true, []string{"/locks/l-0000000001"}, []string{}, 0, 4 * time.Second, "CREA", true},
		{"0x13", "", "", false, []string{"/members/m"}, []string{}, 0, 6 * time.Second, "", true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sessions:\n got %+v\nwant %+v", got, want)
	}
	b, err := json.Marshal(in.Sessions[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"session":"0x11"`, `"client":"10.0.0.5:4000"`, `"server":"zk1:2181"`, `"timeout_ms":4000`, `"watch_count":3`, `"connected":true`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON %s lacks %s", b, field)
		}
	}
	if _, err := json.Marshal(in); err != nil {
		t.Errorf("Introspection JSON: %v", err)
	}
}

func TestSessionsTables(t *testing.T) {
	t.Parallel()
	in := sessionsFixture()
	in.Sessions = buildSessions(in)
	tables := in.Tables()
	type answer struct{ yes, known bool }
	check := func(name string, got1, got2 bool, want answer) {
		t.Helper()
		if got1 != want.yes || got2 != want.known {
			t.Errorf("%s = %v, %v; want %v, %v", name, got1, got2, want.yes, want.known)
		}
	}
	if addr, ok := tables.ClientAddress(0x12); !ok || addr != "10.0.0.6:4001" {
		t.Errorf("ClientAddress(0x12) = %q, %v", addr, ok)
	}
	if _, ok := tables.ClientAddress(0x13); ok {
		t.Error("ClientAddress(0x13) known")
	}
	c, k := tables.Connected(0x11)
	check("Connected(0x11)", c, k, answer{true, true})
	// zk3 did not answer: a session not listed may be connected there.
	c, k = tables.Connected(0x13)
	check("Connected(0x13)", c, k, answer{false, false})

	w, k := tables.Watches(0x11, "/locks/l-0000000001")
	check("Watches(0x11, lock)", w, k, answer{true, true})
	w, k = tables.Watches(0x11, "/")
	check("Watches(0x11, /)", w, k, answer{true, true})
	// Server paths outside the chroot never show, even spelled as a user
	// path.
	w, k = tables.Watches(0x11, "/other/x")
	check("Watches(0x11, /other/x)", w, k, answer{false, true})
	// 0x12's member (zk1) had its table read: a negative answer holds.
	w, k = tables.Watches(0x12, "/locks/l-0000000001")
	check("Watches(0x12, lock)", w, k, answer{false, true})
	// 0x13's member is not known and zk3's table was not read.
	w, k = tables.Watches(0x13, "/members/m")
	check("Watches(0x13, m)", w, k, answer{false, false})

	// With zk3 out of quorum instead of unreachable, it serves no clients:
	// every table is complete.
	in.Members[2].Mode = ModeNotServing
	tables = in.Tables()
	c, k = tables.Connected(0x13)
	check("Connected(0x13), zk3 not serving", c, k, answer{false, true})
	w, k = tables.Watches(0x13, "/members/m")
	check("Watches(0x13, m), zk3 not serving", w, k, answer{false, true})
}
