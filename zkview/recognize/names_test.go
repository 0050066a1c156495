package recognize

import (
	"fmt"
	"strings"
	"testing"
)

const (
	testUUID  = "0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11"
	testHex   = "9f1c2b3a4d5e6f708192a3b4c5d6e7f8"
	testUUID2 = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	testHex2  = "0123456789abcdef0123456789abcdef"
)

func TestParseNames(t *testing.T) {
	t.Parallel()
	type want struct {
		kind, format, recipe string
		seq                  int32
		hasSeq               bool
		prio                 string // "" when none
	}
	seqd := func(kind, format, recipe string, seq int32) want {
		return want{kind, format, recipe, seq, true, ""}
	}
	plain := func(kind, format, recipe string) want { return want{kind: kind, format: format, recipe: recipe} }
	prio := func(w want, p int) want { w.prio = fmt.Sprint(p); return w }
	tests := []struct {
		name string
		want want
	}{
		// Curator
		{"_c_" + testUUID + "-lock-0000000003", seqd("curator-lock", "curator", "mutex", 3)},
		{"_c_" + testUUID + "-lock-2147483647", seqd("curator-lock", "curator", "mutex", 2147483647)},
		{"_c_" + testUUID + "-lock--2147483648", seqd("curator-lock", "curator", "mutex", -2147483648)},
		{"_c_" + testUUID + "-lock--1000000000", seqd("curator-lock", "curator", "mutex", -1000000000)},
		{"_c_" + testUUID + "-lock--000000005", seqd("curator-lock", "curator", "mutex", -5)},
		{"_c_" + testUUID + "-lock-1000000000", seqd("curator-lock", "curator", "mutex", 1000000000)},
		{"_c_7C9E6679-7425-40DE-944B-E07FC1F90AE7-lock-0000000001", seqd("curator-lock", "curator", "mutex", 1)},
		{"_c_" + testUUID + "-__READ__0000000010", seqd("curator-read", "curator", "rwlock", 10)},
		{"_c_" + testUUID + "-__WRIT__0000000011", seqd("curator-write", "curator", "rwlock", 11)},
		{"_c_" + testUUID + "-__WRIT__-2147483648", seqd("curator-write", "curator", "rwlock", -2147483648)},
		{"_c_" + testUUID + "-latch-0000000000", seqd("curator-latch", "curator", "election", 0)},
		{"_c_" + testUUID + "-lease-0000000042", seqd("curator-lease", "curator", "semaphore", 42)},
		{"queue-0000000003", seqd("curator-queue-item", "curator", "queue", 3)},
		{"queue-1000000050000000003", prio(seqd("curator-queue-item", "curator", "queue", 3), 5)},
		{"queue-0FFFFFFFF0000000004", prio(seqd("curator-queue-item", "curator", "queue", 4), -1)},
		{"queue-180000000" + "0000000004", seqd("generic-sequential", "generic", "mutex", 4)}, // sign digit and bits disagree
		{"queue-|0000018F2A3B4C5D|0000000007", seqd("curator-queue-item", "curator", "queue", 7)},
		{"queue-x0000000007", seqd("generic-sequential", "generic", "mutex", 7)},
		// go-zookeeper
		{"_c_" + testHex + "-lock-0000000001", seqd("go-zookeeper-lock", "go-zookeeper", "mutex", 1)},
		{"_c_" + testHex[:31] + "-lock-0000000001", seqd("generic-sequential", "generic", "mutex", 1)},
		// Kazoo
		{testHex + "__lock__0000000007", seqd("kazoo-lock", "kazoo", "mutex", 7)},
		{testHex + "__rlock__0000000008", seqd("kazoo-read", "kazoo", "mutex", 8)},
		{"anything__lock__0000000009", seqd("kazoo-lock", "kazoo", "mutex", 9)},
		{"__lock__0000000009", seqd("generic-sequential", "generic", "mutex", 9)},
		{testHex + "__lock__-2147483648", seqd("kazoo-lock", "kazoo", "mutex", -2147483648)},
		{"entry-100-0000000001", prio(seqd("kazoo-entry", "kazoo", "queue", 1), 100)},
		{"entry-007-0000000002", prio(seqd("kazoo-entry", "kazoo", "queue", 2), 7)},
		{"entry-1000-0000000001", seqd("generic-sequential", "generic", "mutex", 1)},
		// ZooKeeper's recipes
		{"x-72057594037927936-0000000002", seqd("zookeeper-writelock", "zookeeper-recipes", "mutex", 2)},
		{"x--8646911284551352320-0000000001", seqd("zookeeper-writelock", "zookeeper-recipes", "mutex", 1)},
		{"x-72057594037927936--000000002", seqd("zookeeper-writelock", "zookeeper-recipes", "mutex", -2)},
		{"x--0000000001", seqd("generic-sequential", "generic", "mutex", 1)},
		{"n_0000000004", seqd("zookeeper-election", "zookeeper-recipes", "election", 4)},
		{"n_-2147483648", seqd("zookeeper-election", "zookeeper-recipes", "election", -2147483648)},
		{"qn-0000000012", seqd("zookeeper-queue-item", "zookeeper-recipes", "queue", 12)},
		// Tutorials
		{"lock-0000000001", seqd("plain-lock", "generic", "mutex", 1)},
		{"lock-1000000000", seqd("plain-lock", "generic", "mutex", 1000000000)},
		{"lock--1000000000", seqd("plain-lock", "generic", "mutex", -1000000000)},
		{"lock-2147483648", seqd("plain-lock", "generic", "mutex", -2147483648)}, // "lock" + the wrapped counter
		{"lock0000000002", seqd("plain-lock", "generic", "mutex", 2)},
		{"node_0000000003", seqd("plain-lock", "generic", "mutex", 3)},
		{"node-0000000003", seqd("plain-lock", "generic", "mutex", 3)},
		{"node0000000003", seqd("plain-lock", "generic", "mutex", 3)},
		{"lockid 0000000004", seqd("plain-lock", "generic", "mutex", 4)},
		{"lockid-0000000004", seqd("plain-lock", "generic", "mutex", 4)},
		{"lockid0000000004", seqd("plain-lock", "generic", "mutex", 4)},
		{"0000000005", seqd("plain-lock", "generic", "mutex", 5)},
		{"-2147483648", seqd("plain-lock", "generic", "mutex", -2147483648)},
		{"-000000001", seqd("plain-lock", "generic", "mutex", -1)},
		{"web-1.example-R-0000000006", seqd("plain-read", "generic", "rwlock", 6)},
		{"web-1.example-W-0000000007", seqd("plain-write", "generic", "rwlock", 7)},
		{"-R-0000000007", seqd("generic-sequential", "generic", "mutex", 7)},
		{"read-0000000008", seqd("plain-read", "generic", "rwlock", 8)},
		{"write-0000000009", seqd("plain-write", "generic", "rwlock", 9)},
		// Anything sequential
		{"member-0000000010", seqd("generic-sequential", "generic", "mutex", 10)},
		{"a b c0000000011", seqd("generic-sequential", "generic", "mutex", 11)},
		// Not sequential
		{"ready", plain("ready", "curator", "double-barrier")},
		{testUUID, plain("uuid-participant", "curator", "double-barrier")},
		{testHex, plain("hex-participant", "kazoo", "double-barrier")},
		{"locks", plain("locks-dir", "", "")},
		{"leases", plain("leases-dir", "", "")},
		{"entries", plain("entries-dir", "", "")},
		{"taken", plain("taken-dir", "", "")},
		{"config", plain("foreign", "", "")},
		{"", plain("foreign", "", "")},
		{"lock-123", plain("foreign", "", "")},
		{"lock-000000001a", plain("foreign", "", "")},
		{"000000001", plain("foreign", "", "")},
		{"--000000001", seqd("generic-sequential", "generic", "mutex", -1)},
		{"lock-99999999999", plain("foreign", "", "")}, // more than an int32
		{"_c_" + testUUID + "-lock-", plain("foreign", "", "")},
		{testHex[:31] + "G", plain("foreign", "", "")},
		{"9F1C2B3A4D5E6F708192A3B4C5D6E7F8", plain("foreign", "", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseChildName(tt.name)
			got := want{kind: kindTable[p.Kind].name, seq: p.Seq, hasSeq: p.HasSeq}
			if f := p.family(); f != familyNone {
				got.format, got.recipe = p.format(), familyTable[f].recipe
			}
			if p.HasPriority {
				got.prio = fmt.Sprint(p.Priority)
			}
			if got != tt.want {
				t.Errorf("parseChildName(%q)\n got %+v\nwant %+v", tt.name, got, tt.want)
			}
			if p.Name != tt.name {
				t.Errorf("Name %q, want %q", p.Name, tt.name)
			}
		})
	}
}

// TestParseNamesSeqRoundTrip writes every interesting sequence number as the
// server does (%010d of an int32) behind every pattern's lead and mark, and
// reads it back.
func TestParseNamesSeqRoundTrip(t *testing.T) {
	t.Parallel()
	seqs := []int32{0, 1, 9, 10, 999999999, 1000000000, 2147483646, 2147483647, -1, -5, -999999999, -1000000000, -2147483647, -2147483648}
	ids := map[idShape]string{
		idNone: "", idUUID: testUUID, idHex32: testHex, idDecimal: "72057594037927936",
		idPriority3: "042", idCuratorOrder: "100000005", idAny: "web-1", idAnyOrNone: "pre",
	}
	for _, pat := range seqPatterns {
		for _, seq := range seqs {
			if seq <= -1_000_000_000 && (pat.lead == "lock" || pat.lead == "node" || pat.lead == "lockid" || pat.id == idAnyOrNone) {
				// "lock" + "-1000000000" reads as "lock-" + 1000000000, the
				// likelier of the two.
				continue
			}
			name := pat.lead + ids[pat.id] + pat.mark + fmt.Sprintf("%010d", seq)
			p := parseChildName(name)
			if !p.HasSeq || p.Seq != seq {
				t.Errorf("%q: seq %d (has %v), want %d", name, p.Seq, p.HasSeq, seq)
			}
			if p.Kind != pat.kind && pat.kind != kindGenericSeq {
				t.Errorf("%q: kind %s, want %s", name, kindTable[p.Kind].name, kindTable[pat.kind].name)
			}
		}
	}
}

// TestParseNamesTablesComplete checks every kind has its description and
// every family its recipe.
func TestParseNamesTablesComplete(t *testing.T) {
	t.Parallel()
	for k := kindForeign; k <= kindTakenDir; k++ {
		info, ok := kindTable[k]
		if !ok || info.name == "" {
			t.Errorf("kind %d has no description", k)
		}
		if info.family != familyNone && familyTable[info.family].recipe == "" {
			t.Errorf("kind %s: family %d has no recipe", info.name, info.family)
		}
	}
	for _, f := range familyOrder {
		if familyTable[f].recipe == "" {
			t.Errorf("family %d in the order has no recipe", f)
		}
	}
}

func TestZkxIdentityAndDataText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		data string
		zkx  bool
	}{
		{"web-1 4242", true}, {"host.example.com 1", true}, {"10.0.0.5", false}, {"", false},
		{"web 1 2", false}, {" 12", false}, {"web-1 ", false}, {"web-1 12a", false},
	} {
		if got := isZkxIdentity([]byte(tt.data)); got != tt.zkx {
			t.Errorf("isZkxIdentity(%q) = %v", tt.data, got)
		}
	}
	for _, tt := range []struct{ data, want string }{
		{"10.0.0.5", "10.0.0.5"},
		{"\x12\x34", `\x124`},
		{"tab\there", `tab\there`},
		{"line\nbreak", `line\nbreak`},
		{"back\\slash", `back\slash`}, // as the data decoders show it
		{strings.Repeat("x", 300), strings.Repeat("x", 256) + "…"},
		{"caf\xc3\xa9", "café"},
		{"bad\xff", `bad\xff`},
		{"rtl\u202e", `rtl\u202e`},
	} {
		if got := dataText([]byte(tt.data)); got != tt.want {
			t.Errorf("dataText(%q) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

// TestBareName pins the one rule for the client ids in front of node
// names. The CLI and the explorer had a rule each, and disagreed on a
// 32-hex-digit name followed by anything but "__": the CLI took it for a
// Kazoo id ("-lock-0000000003"), the explorer rightly did not — Kazoo's id
// (uuid4().hex) is always followed by "__lock__" or "__rlock__".
func TestBareName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000003":         "lock-0000000003",
		"leases/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lease-0000000001": "leases/lease-0000000001",
		"_c_0123456789abcdef0123456789abcdef-lock-0000000007":             "lock-0000000007",
		"0123456789abcdef0123456789abcdef__lock__0000000002":              "__lock__0000000002",
		"0123456789abcdef0123456789abcdef__rlock__0000000004":             "__rlock__0000000004",
		// The case the two rules disagreed on: no Kazoo id.
		"0123456789abcdef0123456789abcdef-lock-0000000003": "0123456789abcdef0123456789abcdef-lock-0000000003",
		"0123456789abcdef0123456789abcdef":                 "0123456789abcdef0123456789abcdef",
		"_c_not-a-uuid-lock-0000000003":                    "_c_not-a-uuid-lock-0000000003",
		"x-72057594037927936-0000000001":                   "x-72057594037927936-0000000001",
		"lock-0000000001":                                  "lock-0000000001",
		"/exclusive/lock":                                  "lock",
		"/app/ksem-__lock__/0123456789abcdef0123456789abcdef__lock__0000000001": "__lock__0000000001",
		"": "",
	} {
		if got := BareName(in); got != want {
			t.Errorf("BareName(%q) = %q, want %q", in, got, want)
		}
	}
}
