package cmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pmFixtures is a data directory a real ZooKeeper wrote (the post-mortem
// scenario; testdata/postmortem/README.md).
var pmFixtures = filepath.Join("..", "testdata", "postmortem", "datadir")

// jsonLines decodes JSON Lines into maps.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q: %v", line, err)
		}
		rows = append(rows, m)
	}
	return rows
}

func TestTxnlogCommand(t *testing.T) {
	t.Parallel()
	out, errs, err := run(t, "txnlog", pmFixtures, "-o", "json")
	if err != nil {
		t.Fatalf("%v: %s", err, errs)
	}
	all := jsonLines(t, out)
	if len(all) < 50 {
		t.Fatalf("%d transactions", len(all))
	}
	var expired, closed, multis, failed int
	last := ""
	for _, r := range all {
		if r["zxid"] == nil || r["time"] == nil || r["session"] == nil || r["file"] == nil || r["offset"] == nil {
			t.Errorf("a line lacks a field: %v", r)
		}
		if z := r["zxid"].(string); len(z) < len(last) || len(z) == len(last) && z <= last {
			t.Errorf("zxid %s after %s", z, last)
		} else {
			last = z
		}
		switch r["type"] {
		case "closeSession":
			switch r["closed_by"] {
			case "server":
				expired++
			case "client":
				closed++
			}
			if _, ok := r["removed"]; !ok {
				t.Errorf("a closeSession without removed: %v", r)
			}
		case "multi":
			multis++
			if ops, _ := r["ops"].([]any); len(ops) < 2 {
				t.Errorf("a multi without its operations: %v", r)
			}
			if r["failed"] == true {
				failed++
				if r["error"] != "node exists" {
					t.Errorf("the failed multi's error: %v", r["error"])
				}
			}
		case "create2":
			if strings.HasPrefix(r["path"].(string), "/pm/curator-lock/") && (r["node_kind"] != "ephemeral" || r["decoder"] != "text" || r["data"] != "127.0.0.1") {
				t.Errorf("a Curator lock node's create: %v", r)
			}
		}
	}
	if expired != 1 || closed < 1 || multis != 2 || failed != 1 {
		t.Errorf("%d expired, %d closed sessions, %d multis (%d failed); want 1, ≥1, 2 (1)", expired, closed, multis, failed)
	}

	// Filters.
	out, _, err = run(t, "txnlog", pmFixtures, "-o", "json", "--path", "/pm/kazoo-lock/", "--type", "closeSession")
	if err != nil {
		t.Fatal(err)
	}
	if rows := jsonLines(t, out); len(rows) != 2 || rows[0]["closed_by"] != "server" || rows[1]["closed_by"] != "client" {
		t.Errorf("--path --type closeSession: %v", rows)
	}
	since, until := all[10]["zxid"].(string), all[20]["zxid"].(string)
	out, _, err = run(t, "txnlog", pmFixtures, "-o", "json", "--since", since, "--until", until)
	if err != nil {
		t.Fatal(err)
	}
	if rows := jsonLines(t, out); len(rows) != 11 || rows[0]["zxid"] != since || rows[10]["zxid"] != until {
		t.Errorf("--since %s --until %s: %d rows", since, until, len(rows))
	}
	session := all[len(all)-1]["session"].(string)
	out, _, err = run(t, "txnlog", pmFixtures, "-o", "json", "--session", session)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range jsonLines(t, out) {
		if r["session"] != session {
			t.Errorf("--session %s kept %v", session, r)
		}
	}
	if _, _, err := run(t, "txnlog", pmFixtures, "--type", "getData"); err == nil || !strings.Contains(err.Error(), "getData") {
		t.Errorf("--type getData: %v", err)
	}

	// The table: a line per transaction, a multi's operations under it.
	out, _, err = run(t, "txnlog", pmFixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ZXID", "createSession", "expired (closed by the server); removed /pm/kazoo-lock/",
		"closed by its client; removed /pm/kazoo-lock/", "· create", "failed (node exists (-110)): nothing applied", "createTtl"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table has no %q", want)
		}
	}
}

// TestTxnlogReadsPastDamage breaks an entry of a log: the command prints
// the rest, names the file and offset on stderr and exits partial.
func TestTxnlogReadsPastDamage(t *testing.T) {
	t.Parallel()
	logs, _ := filepath.Glob(filepath.Join(pmFixtures, "version-2", "log.*"))
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	good, _, err := run(t, "txnlog", logs[0], "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	rows := jsonLines(t, good)
	off := int(rows[3]["offset"].(float64))
	b[off+20] ^= 0xff
	broken := filepath.Join(t.TempDir(), "log.1")
	if err := os.WriteFile(broken, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := run(t, "txnlog", broken, "-o", "json")
	var partial *partialError
	if !errors.As(err, &partial) {
		t.Fatalf("a damaged log: %v, want a partial result", err)
	}
	if got := len(jsonLines(t, out)); got != len(rows)-1 {
		t.Errorf("%d transactions printed, want %d", got, len(rows)-1)
	}
	if !strings.Contains(errs, broken) || !strings.Contains(errs, "checksum mismatch") {
		t.Errorf("stderr does not name the file and the problem: %s", errs)
	}
	snap, _ := filepath.Glob(filepath.Join(pmFixtures, "version-2", "snapshot.*"))
	if _, _, err := run(t, "txnlog", snap[0]); err == nil || !strings.Contains(err.Error(), "snapshot") {
		t.Errorf("a snapshot given as a log: %v", err)
	}
}

func TestHistoryCommand(t *testing.T) {
	t.Parallel()
	out, errs, err := run(t, "history", "/pm", "--data-dir", pmFixtures, "-o", "json")
	if err != nil {
		t.Fatalf("%v: %s", err, errs)
	}
	var recipes []historyJSON
	if err := json.Unmarshal([]byte(out), &recipes); err != nil {
		t.Fatal(err)
	}
	ended := map[string][]string{}
	for _, r := range recipes {
		for _, h := range append(r.Holdings, r.Leaders...) {
			ended[r.Path] = append(ended[r.Path], h.Ended)
			if h.From == "" || (h.Ended != "held" && (h.To == "" || h.ToZxid == "")) {
				t.Errorf("%s: holding %+v", r.Path, h)
			}
		}
		for _, it := range r.Items {
			ended[r.Path] = append(ended[r.Path], "item "+it.Data)
		}
	}
	for path, want := range map[string]string{
		"/pm/curator-lock":     "released released released deleted-by-other held",
		"/pm/kazoo-lock":       "released released session-expired released session-closed",
		"/pm/curator-election": "released released",
		"/pm/kazoo-queue":      "item a item b item c",
	} {
		if got := strings.Join(ended[path], " "); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	out, _, err = run(t, "history", "/pm/kazoo-lock", "--data-dir", pmFixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/pm/kazoo-lock  mutex (kazoo)", "until its session expired (closed by the server)", "then its client closed its session", "after waiting"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table has no %q:\n%s", want, out)
		}
	}
	if _, _, err := run(t, "history", "/pm"); err == nil || !strings.Contains(err.Error(), "data-dir") {
		t.Errorf("without --data-dir: %v", err)
	}
}

func TestSnapshotCommand(t *testing.T) {
	t.Parallel()
	snaps, _ := filepath.Glob(filepath.Join(pmFixtures, "version-2", "snapshot.*"))
	gz, _ := filepath.Glob(filepath.Join(pmFixtures, "..", "snapshots", "snapshot.*.gz"))
	for _, s := range append(snaps, gz...) {
		out, errs, err := run(t, "snapshot", s, "-o", "json", "--data")
		if err != nil {
			t.Fatalf("%s: %v: %s", s, err, errs)
		}
		nodes, sessions, digests := 0, 0, 0
		for _, r := range jsonLines(t, out) {
			switch r["type"] {
			case "node":
				nodes++
				if r["path"] == nil || r["czxid"] == nil || r["acl"] == nil {
					t.Errorf("%s: %v", s, r)
				}
			case "session":
				sessions++
			case "digest":
				digests++
			}
		}
		if nodes < 4 || digests != 1 {
			t.Errorf("%s: %d nodes, %d sessions, %d digests", s, nodes, sessions, digests)
		}
	}
	out, _, err := run(t, "snapshot", snaps[len(snaps)-1], "--path", "/zookeeper")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "/zookeeper/quota") || strings.Contains(out, " /pm") {
		t.Errorf("--path /zookeeper:\n%s", out)
	}
}
