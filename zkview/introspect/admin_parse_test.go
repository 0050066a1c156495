package introspect

import (
	"reflect"
	"strings"
	"testing"
)

func adminFixture[T any](t *testing.T, name string) T {
	t.Helper()
	var v T
	if err := decodeAdminAnswer([]byte(fixture(t, name)), &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// The AdminServer fixtures were captured from the same servers, moments
// after the four-letter words: they must say the same.
func TestAdminParseMatchesFourLetter(t *testing.T) {
	t.Parallel()
	f := scenarioFixtures[0] // real-standalone, and admin-standalone
	if f.dir != "real-standalone" {
		t.Fatal("scenarioFixtures[0] must be real-standalone")
	}

	st := adminFixture[adminServerStats](t, "admin-standalone/server_stats.json").stats()
	if st.Mode != ModeStandalone || st.Zxid != 7 || st.NodeCount != 10 || !strings.HasPrefix(st.Version, "3.8.0") {
		t.Errorf("server_stats: %+v", st)
	}
	mon := adminFlat(adminFixture[map[string]any](t, "admin-standalone/monitor.json"))
	if mon["server_state"] != "standalone" || mon["znode_count"] != "10" || mon["avg_latency"] == "" {
		t.Errorf("monitor: %v", mon)
	}
	if _, ok := mon["command"]; ok {
		t.Error("monitor keeps the command field")
	}
	conf := adminFlat(adminFixture[map[string]any](t, "admin-standalone/configuration.json"))
	fourConf, _ := parseConf(fixture(t, "real-standalone/conf.txt"))
	if conf["client_port"] == "" || conf["client_port"] != fourConf["clientPort"] {
		t.Errorf("configuration client_port %q, conf clientPort %q", conf["client_port"], fourConf["clientPort"])
	}

	conns := adminFixture[adminConnections](t, "admin-standalone/connections.json").connections()
	clients := map[int64]string{}
	for _, c := range conns {
		clients[c.SessionID] = c.Client
		// last_response_time is the member's monotonic clock (as the
		// fixture's cons reads lresp=7164303 for the waiter).
		if c.SessionID == f.waiter && (c.LastOp != "GETC" || c.Timeout.Seconds() != 30 || c.Established.Year() < 2020 || c.LastResponse != 7164303) {
			t.Errorf("waiter's connection: %+v", c)
		}
	}
	if want := map[int64]string{f.holder: f.holderClient, f.waiter: f.waiterClient}; !reflect.DeepEqual(clients, want) {
		t.Errorf("connections: got %v, want %v", clients, want)
	}

	bySession, err := adminFixture[adminWatches](t, "admin-standalone/watches.json").table()
	if err != nil {
		t.Fatal(err)
	}
	byPath := adminFixture[adminWatchesByPath](t, "admin-standalone/watches_by_path.json").ByPath
	fourBySession, _ := parseWchc(fixture(t, "real-standalone/wchc.txt"))
	if got, want := newWatchTable(bySession, byPath), newWatchTable(fourBySession, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("watches: got %+v, want (as wchc) %+v", got, want)
	}

	d, err := adminFixture[adminDump](t, "admin-standalone/dump.json").dump()
	if err != nil {
		t.Fatal(err)
	}
	fourDump, _ := parseDump(fixture(t, "real-standalone/dump.txt"))
	if !reflect.DeepEqual(d.Ephemerals, fourDump.Ephemerals) || !reflect.DeepEqual(d.Sessions(), fourDump.Sessions()) {
		t.Errorf("dump: got %+v, want as 4lw %+v", d, fourDump)
	}
	if len(d.Buckets) == 0 || d.Buckets[0].Elapsed == 0 || !d.Buckets[0].At.IsZero() {
		t.Errorf("dump buckets are on the server's monotonic clock: %+v", d.Buckets)
	}
}

func TestAdminParseEnsemble(t *testing.T) {
	t.Parallel()
	for dir, mode := range map[string]MemberMode{"admin-leader": ModeLeader, "admin-follower-1": ModeFollower, "admin-follower-2": ModeFollower} {
		st := adminFixture[adminServerStats](t, dir+"/server_stats.json").stats()
		if st.Mode != mode || st.Zxid != 0x100000007 {
			t.Errorf("%s server_stats: %+v", dir, st)
		}
		if d, err := adminFixture[adminDump](t, dir+"/dump.json").dump(); err != nil || len(d.Ephemerals) != 1 {
			t.Errorf("%s dump: %+v %v", dir, d, err)
		}
	}
	f := scenarioFixtures[1] // real-follower-1, the sessions' server
	conns := adminFixture[adminConnections](t, "admin-follower-1/connections.json").connections()
	clients := map[int64]string{}
	for _, c := range conns {
		clients[c.SessionID] = c.Client
	}
	if want := map[int64]string{f.holder: f.holderClient, f.waiter: f.waiterClient}; !reflect.DeepEqual(clients, want) {
		t.Errorf("follower-1 connections: got %v, want %v", clients, want)
	}
}

func TestAdminParseErrors(t *testing.T) {
	t.Parallel()
	var v map[string]any
	if err := decodeAdminAnswer([]byte(fixture(t, "admin-standalone/no_such_command.json")), &v); err == nil || !strings.Contains(err.Error(), "Unknown command") {
		t.Errorf("unknown command: %v", err)
	}
	if err := decodeAdminAnswer([]byte(`{"command":"dump","error":"`+notServingText+`"}`), &v); err != errNotServing {
		t.Errorf("not serving: %v", err)
	}
	if err := decodeAdminAnswer([]byte("<html>404</html>"), &v); err == nil {
		t.Error("HTML page: want an error")
	}
	for raw, want := range map[string]string{
		"http://zk1:8080":           "http://zk1:8080/commands",
		"http://zk1:8080/":          "http://zk1:8080/commands",
		"http://zk1:8080/commands/": "http://zk1:8080/commands",
		"https://zk1/zk/commands":   "https://zk1/zk/commands",
	} {
		if got, err := adminBase(raw); err != nil || got != want {
			t.Errorf("adminBase(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, bad := range []string{"zk1:8080", "ftp://zk1/commands", "http://"} {
		if _, err := adminBase(bad); err == nil {
			t.Errorf("adminBase(%q): want an error", bad)
		}
	}
}
