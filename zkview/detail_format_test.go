package zkview

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

func TestFormatStat(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	st := &zk.Stat{
		Czxid: 0x100000002, Mzxid: 0x10000000a, Pzxid: 0x1_0000_0fff,
		Ctime:   now.Add(-3*time.Hour - 5*time.Minute - 7*time.Second).UnixMilli(),
		Mtime:   now.Add(-1500 * time.Millisecond).UnixMilli(),
		Version: 3, Cversion: 12, Aversion: 1,
		EphemeralOwner: 0x1000004a2b30005, DataLength: 1536, NumChildren: 6,
	}
	want := []Field{
		{"cZxid", "0x100000002"},
		{"ctime", "2024-05-01 08:54:53.000 UTC (3h05m ago)"},
		{"mZxid", "0x10000000a"},
		{"mtime", "2024-05-01 11:59:58.500 UTC (1s ago)"},
		{"pZxid", "0x100000fff"},
		{"cversion", "12"},
		{"dataVersion", "3"},
		{"aclVersion", "1"},
		{"ephemeralOwner", "0x1000004a2b30005 (ephemeral)"},
		{"dataLength", "1536 (1.5 KiB)"},
		{"numChildren", "6"},
	}
	got := FormatStat(st, now)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
	if FormatStat(nil, now) != nil {
		t.Error("FormatStat(nil) gave rows")
	}
	// Times show in now's zone.
	tokyo := time.FixedZone("JST", 9*3600)
	if got := FormatStat(st, now.In(tokyo))[1].Value; got != "2024-05-01 17:54:53.000 JST (3h05m ago)" {
		t.Errorf("ctime in JST: %q", got)
	}
}

func TestFormatStatValues(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name, got, want string
	}{
		{"owner none", statOwner(0), "0x0 (not ephemeral: persistent, container or TTL)"},
		{"owner container", statOwner(-1 << 63), "0x8000000000000000 (container)"},
		{"owner TTL", statOwner(-0x100000000000000 | 90000), "0xff00000000015f90 (TTL node, TTL 1m30s)"},
		{"owner session with top byte ff", statOwner(-0x100000000000000 | 0x10000000000 | 5), "0xff00010000000005 (ephemeral)"},
		{"time unset", statTime(0, now), "0 (not set)"},
		{"just now", statAgo(now.Add(-999*time.Millisecond), now), "just now"},
		{"seconds", statAgo(now.Add(-59*time.Second), now), "59s ago"},
		{"minutes", statAgo(now.Add(-(3*time.Minute + 20*time.Second)), now), "3m20s ago"},
		{"hours", statAgo(now.Add(-(2*time.Hour + 5*time.Minute + 59*time.Second)), now), "2h05m ago"},
		{"days", statAgo(now.Add(-(400*24*time.Hour + 4*time.Hour)), now), "400d ago"},
		{"future", statAgo(now.Add(5*time.Second), now), "in 5s"},
		{"size small", statSize(1023), "1023"},
		{"size KiB", statSize(1024), "1024 (1.0 KiB)"},
		{"size MiB", statSize(1 << 20), "1048576 (1.0 MiB)"},
		{"size GiB", statSize(3 << 30), "3221225472 (3.0 GiB)"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestFormatACL(t *testing.T) {
	t.Parallel()
	acl := []zk.ACL{
		{Perms: zk.PermAll, Scheme: "world", ID: "anyone"},
		{Perms: zk.PermRead, Scheme: "digest", ID: "alice:Dkj2/9HCLmUuA6qFUBmPb6dfMPY="},
		{Perms: zk.PermRead | zk.PermWrite, Scheme: "ip", ID: "10.0.0.0/8"},
		{Perms: zk.PermCreate | zk.PermDelete, Scheme: "sasl", ID: "zk@EXAMPLE.COM"},
		{Perms: zk.PermAdmin, Scheme: "auth", ID: ""},
		{Perms: 0, Scheme: "world", ID: "anyone"},
		{Perms: zk.PermRead | 0x40, Scheme: "x509", ID: "CN=client"},
	}
	want := []Field{
		{"world:anyone", "cdrwa"},
		{"digest:alice:Dkj2/9HCLmUuA6qFUBmPb6dfMPY=", "r"},
		{"ip:10.0.0.0/8", "rw"},
		{"sasl:zk@EXAMPLE.COM", "cd"},
		{"auth:", "a"},
		{"world:anyone", "none"},
		{"x509:CN=client", "r+0x40"},
	}
	got := FormatACL(acl)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
	if got := FormatACL(nil); len(got) != 0 {
		t.Errorf("FormatACL(nil) = %v", got)
	}
}
