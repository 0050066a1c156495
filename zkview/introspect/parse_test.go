package introspect

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
)

// The fixtures under testdata were captured by
// TestCaptureIntrospectFixtures from real ZooKeeper 3.8.0 (real-*,
// admin-*) and from the embedded server (embedded), each showing the same
// scenario: a holder session owning /app/locks/orders/lock-0000000000 and
// /app/member-a, a waiter session with a getData watch on the lock node,
// an exists watch on /app/missing and a child watch on /app/locks/orders.

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// scenarioFixture names the sessions and client addresses one capture of
// the scenario shows.
type scenarioFixture struct {
	dir            string
	holder, waiter int64
	holderClient   string
	waiterClient   string
	// bucketed: the dump has expiry buckets (leader/standalone), else a
	// learner's global sessions with timeouts.
	bucketed bool
}

var scenarioFixtures = []scenarioFixture{
	{dir: "real-standalone", holder: 0x100006d50660000, waiter: 0x100006d50660001,
		holderClient: "127.0.0.1:52098", waiterClient: "127.0.0.1:52108", bucketed: true},
	{dir: "real-follower-1", holder: 0x100006d56240000, waiter: 0x100006d56240001,
		holderClient: "127.0.0.1:60274", waiterClient: "127.0.0.1:60286"},
	{dir: "embedded", holder: 0x1a201a04a950000, waiter: 0x1a201a04a950001,
		holderClient: "127.0.0.1:60898", waiterClient: "127.0.0.1:60914", bucketed: true},
}

const (
	fixtureLock    = "/app/locks/orders/lock-0000000000"
	fixtureMember  = "/app/member-a"
	fixtureMissing = "/app/missing"
)

func TestFourLetterParseCons(t *testing.T) {
	t.Parallel()
	for _, f := range scenarioFixtures {
		t.Run(f.dir, func(t *testing.T) {
			conns, err := parseCons(fixture(t, f.dir+"/cons.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if len(conns) != 3 {
				t.Fatalf("want 3 connections (holder, waiter, the cons asker), got %+v", conns)
			}
			bySession := map[int64]Connection{}
			for _, c := range conns {
				bySession[c.SessionID] = c
			}
			for _, want := range []struct {
				id     int64
				client string
				lastOp string
			}{{f.holder, f.holderClient, "CREA"}, {f.waiter, f.waiterClient, "GETC"}} {
				c, ok := bySession[want.id]
				if !ok {
					t.Fatalf("no connection for session %s in %+v", display.Hex(want.id), conns)
				}
				if c.Client != want.client || c.LastOp != want.lastOp || c.Timeout != 30*time.Second || c.Session != display.Hex(want.id) {
					t.Errorf("session %s: got client %q lop %q timeout %v, want %q %q 30s", display.Hex(want.id), c.Client, c.LastOp, c.Timeout, want.client, want.lastOp)
				}
				if c.Established.Year() < 2020 || c.Received == 0 || c.Sent == 0 || c.LastCxid == 0 || c.LastZxid == 0 || c.LastResponse <= 0 {
					t.Errorf("session %s: counters not read: %+v", display.Hex(want.id), c)
				}
			}
			if asker, ok := bySession[0]; !ok || asker.Client == "" || asker.LastOp != "" || asker.LastResponse != 0 {
				t.Errorf("the sessionless cons connection: got %+v", asker)
			}
		})
	}
}

func TestFourLetterParseWatches(t *testing.T) {
	t.Parallel()
	for _, f := range scenarioFixtures {
		t.Run(f.dir, func(t *testing.T) {
			bySession, err := parseWchc(fixture(t, f.dir+"/wchc.txt"))
			if err != nil {
				t.Fatal(err)
			}
			byPath, err := parseWchp(fixture(t, f.dir+"/wchp.txt"))
			if err != nil {
				t.Fatal(err)
			}
			// Data watches only: the child watch on /app/locks/orders is
			// not listed by ZooKeeper 3.8.
			want := &WatchTable{
				BySession: map[int64][]string{f.waiter: {fixtureLock, fixtureMissing}},
				ByPath:    map[string][]int64{fixtureLock: {f.waiter}, fixtureMissing: {f.waiter}},
			}
			for name, got := range map[string]*WatchTable{
				"wchc":      newWatchTable(bySession, nil),
				"wchp":      newWatchTable(nil, byPath),
				"wchc+wchp": newWatchTable(bySession, byPath),
			} {
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: got %+v, want %+v", name, got, want)
				}
			}
		})
	}
}

func TestFourLetterParseDump(t *testing.T) {
	t.Parallel()
	for _, f := range scenarioFixtures {
		t.Run(f.dir, func(t *testing.T) {
			d, err := parseDump(fixture(t, f.dir+"/dump.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if want := map[int64][]string{f.holder: {fixtureLock, fixtureMember}}; !reflect.DeepEqual(d.Ephemerals, want) {
				t.Errorf("ephemerals: got %v, want %v", d.Ephemerals, want)
			}
			if got, want := d.Sessions(), []int64{f.holder, f.waiter}; !reflect.DeepEqual(got, want) {
				t.Errorf("sessions: got %v, want %v", got, want)
			}
			if f.bucketed {
				if len(d.Timeouts) != 0 || len(d.Buckets) == 0 {
					t.Errorf("want expiry buckets only: %+v", d)
				}
				for _, b := range d.Buckets {
					if b.At.Year() < 2020 || b.Local {
						t.Errorf("bucket %+v: expiry time not read", b)
					}
				}
			} else {
				want := map[int64]time.Duration{f.holder: 30 * time.Second, f.waiter: 30 * time.Second}
				if !reflect.DeepEqual(d.Timeouts, want) || len(d.Buckets) != 0 {
					t.Errorf("want a learner's global sessions %v, got %+v", want, d)
				}
			}
			clients := map[int64]string{}
			for _, c := range d.Connections {
				clients[c.SessionID] = c.Client
			}
			if clients[f.holder] != f.holderClient || clients[f.waiter] != f.waiterClient || clients[0] == "" {
				t.Errorf("connections dump: got %v", d.Connections)
			}
		})
	}
}

func TestFourLetterParseSrvrMntrConf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dir       string
		mode      MemberMode
		zxid      int64
		nodes     int64
		serverIDs string // conf's server.N keys
	}{
		{dir: "real-standalone", mode: ModeStandalone, zxid: 7, nodes: 10},
		{dir: "embedded", mode: ModeStandalone, zxid: 7, nodes: 10},
		{dir: "real-leader", mode: ModeLeader, zxid: 0x100000007, nodes: 10, serverIDs: "server.1,server.2,server.3"},
		{dir: "real-follower-1", mode: ModeFollower, zxid: 0x100000007, nodes: 10, serverIDs: "server.1,server.2,server.3"},
		{dir: "real-follower-2", mode: ModeFollower, zxid: 0x100000007, nodes: 10, serverIDs: "server.1,server.2,server.3"},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			st, err := parseSrvr(fixture(t, c.dir+"/srvr.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode != c.mode || st.Zxid != c.zxid || st.NodeCount != c.nodes || !strings.HasPrefix(st.Version, "3.8.0") || st.ReadOnly {
				t.Errorf("srvr: got %+v, want mode %s zxid %#x nodes %d", st, c.mode, c.zxid, c.nodes)
			}
			if st.Received == 0 || st.LatencyAvg < 0 || st.LatencyMax < st.LatencyMin {
				t.Errorf("srvr counters: %+v", st)
			}
			mon, err := parseMntr(fixture(t, c.dir+"/mntr.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if MemberMode(mon["server_state"]) != c.mode || mon["znode_count"] != "10" || !strings.HasPrefix(mon["version"], "3.8.0") {
				t.Errorf("mntr: state %q znodes %q version %q", mon["server_state"], mon["znode_count"], mon["version"])
			}
			if fromMon := statsFromMonitor(mon); fromMon.Mode != c.mode || fromMon.NodeCount != c.nodes {
				t.Errorf("stats from mntr: %+v", fromMon)
			}
			conf, err := parseConf(fixture(t, c.dir+"/conf.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if conf["tickTime"] != "100" || conf["clientPort"] == "" || conf["maxSessionTimeout"] != "60000" {
				t.Errorf("conf: %v", conf)
			}
			var servers []string
			for _, k := range []string{"server.1", "server.2", "server.3"} {
				if _, ok := conf[k]; ok {
					servers = append(servers, k)
				}
			}
			if strings.Join(servers, ",") != c.serverIDs {
				t.Errorf("conf servers: got %v, want %s", servers, c.serverIDs)
			}
		})
	}
}

func TestFourLetterParseStat(t *testing.T) {
	t.Parallel()
	// stat is srvr with a client list, which the srvr parser skips.
	for _, dir := range []string{"real-standalone", "embedded"} {
		st, err := parseSrvr(fixture(t, dir+"/stat.txt"))
		if err != nil || st.Mode != ModeStandalone || st.NodeCount != 10 {
			t.Errorf("%s stat: %+v %v", dir, st, err)
		}
	}
}

func TestFourLetterParseRuokIsro(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"real-standalone", "embedded"} {
		if err := parseRuok(fixture(t, dir+"/ruok.txt")); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
		if ro, err := parseIsro(fixture(t, dir+"/isro.txt")); err != nil || ro {
			t.Errorf("%s isro: %v %v", dir, ro, err)
		}
	}
}

func TestFourLetterRefusals(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"ruok", "wchc", "cons"} {
		text := fixture(t, "real-restricted/"+cmd+".txt")
		if !refusedWord(cmd, text) {
			t.Errorf("%s: %q not read as a refusal", cmd, text)
		}
		if refusedWord("dump", text) {
			t.Errorf("%s's refusal read as dump's", cmd)
		}
		if _, err := parseFourLetter(cmd, text); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("parseFourLetter(%s, refusal): %v", cmd, err)
		}
	}
	// srvr is always allowed by ZooKeeper, whatever the whitelist says.
	if st, err := parseSrvr(fixture(t, "real-restricted/srvr.txt")); err != nil || st.Mode != ModeStandalone {
		t.Errorf("restricted srvr: %+v %v", st, err)
	}
}

// Layouts the captures do not show, written from ZooKeeper 3.8's source.
func TestFourLetterParseEdgeCases(t *testing.T) {
	t.Parallel()
	notServing := notServingText + "\n"
	for _, cmd := range []string{"srvr", "mntr", "cons", "wchc", "wchp", "dump", "conf"} {
		if _, err := parseFourLetter(cmd, notServing); err != errNotServing {
			t.Errorf("%s not serving: got %v", cmd, err)
		}
	}

	ro, err := parseSrvr("Zookeeper version: 3.8.0\nREAD-ONLY mode; serving only read-only clients\nLatency min/avg/max: 0/0.0/0\nReceived: 1\nSent: 0\nConnections: 1\nOutstanding: 0\nZxid: 0xffffffffffffffff\nMode: read-only\nNode count: 4\n")
	if err != nil || !ro.ReadOnly || ro.Mode != ModeReadOnly || ro.Zxid != -1 {
		t.Errorf("read-only srvr: %+v %v", ro, err)
	}
	obs, err := parseSrvr("Zookeeper version: 3.8.0\r\nMode: observer\r\nNode count: 4\r\n")
	if err != nil || obs.Mode != ModeObserver || obs.NodeCount != 4 {
		t.Errorf("observer srvr with CRLF: %+v %v", obs, err)
	}

	conns, err := parseCons(" localhost/127.0.0.1:5000[1](queued=0,recved=1,sent=1,sid=0xffffffffffffffff,lop=NA,est=1,to=4000,lzxid=0xffffffffffffffff,lresp=0,llat=0,minlat=0,avglat=0,maxlat=0)\n /[0:0:0:0:0:0:0:1]:5001[0](queued=0,recved=1,sent=0)\n\n")
	if err != nil || len(conns) != 2 || conns[0].Client != "127.0.0.1:5000" || conns[0].SessionID != -1 ||
		conns[0].Session != "0xffffffffffffffff" || conns[0].LastCxid != 0 || conns[1].Client != "[0:0:0:0:0:0:0:1]:5001" {
		t.Errorf("cons with host name, negative session, IPv6: %+v %v", conns, err)
	}

	// A leader with local sessions enabled prints local, then global sets.
	d, err := parseDump("SessionTracker dump:\nLocal Session Sets (1)/(1):\n1 expire at Mon Jan 05 10:00:00 UTC 2026:\n\t0x10\nGlobal Session Sets (1)/(1):\n1 expire at Mon Jan 05 10:00:02 UTC 2026:\n\t0x11\nephemeral nodes dump:\nSessions with Ephemerals (0):\nConnections dump:\n")
	if err != nil || len(d.Buckets) != 2 || !d.Buckets[0].Local || d.Buckets[1].Local ||
		!reflect.DeepEqual(d.Sessions(), []int64{0x10, 0x11}) || d.Buckets[1].At != time.Date(2026, 1, 5, 10, 0, 2, 0, time.UTC) {
		t.Errorf("local and global session sets: %+v %v", d, err)
	}
	// A learner with local sessions.
	d, err = parseDump("SessionTracker dump:\nLocal Session Sets (0)/(0):\nGlobal Sessions(1):\n0x12\t4000ms\nephemeral nodes dump:\nSessions with Ephemerals (0):\nConnections dump:\n")
	if err != nil || d.Timeouts[0x12] != 4*time.Second {
		t.Errorf("learner with local sessions: %+v %v", d, err)
	}

	for _, bad := range []struct{ cmd, text string }{
		{"srvr", "Zookeeper version: 3.8.0\n"},
		{"srvr", "Mode: leader\nZxid: 7\n"},
		{"mntr", "zk_version\n"},
		{"cons", " /1.2.3.4:5[1](queued=x)\n"},
		{"wchc", "\t/a\n"},
		{"wchp", "\t0x1\n"},
		{"dump", "Sessions with Ephemerals (0):\n"},
		{"dump", "SessionTracker dump:\nwhat\n"},
		{"conf", "\n"},
		{"ruok", "imnotok"},
	} {
		if _, err := parseFourLetter(bad.cmd, bad.text); err == nil {
			t.Errorf("%s %q: want an error", bad.cmd, bad.text)
		}
	}
}
