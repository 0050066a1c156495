package cmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/pmfixture"
)

// The fixtures' audit logs (testdata/postmortem/README.md): the events of
// the post-mortem scenario as the real server wrote them — in ZooKeeper's
// documented layout, rotated, times in the server's zone; with zoned
// times; among the server's other lines.
var (
	pmAudit       = filepath.Join("..", "testdata", "postmortem", "audit")
	pmAuditZoned  = filepath.Join(pmAudit, "audit-zoned.log")
	pmAuditServer = filepath.Join(pmAudit, "zookeeper.log.gz")
)

// TestAuditCommand reads the fixtures' audit logs and filters them.
func TestAuditCommand(t *testing.T) {
	t.Parallel()
	out, errs, err := run(t, "audit", pmAuditZoned, "-o", "json")
	if err != nil {
		t.Fatalf("%v: %s", err, errs)
	}
	all := jsonLines(t, out)
	if len(all) < 50 {
		t.Fatalf("%d events", len(all))
	}
	users := map[string]bool{}
	for _, e := range all {
		if e["time"] == nil || e["operation"] == nil || e["result"] == nil || e["file"] == nil || e["line"] == nil {
			t.Errorf("an event lacks a field: %v", e)
		}
		if us, ok := e["users"].([]any); ok && len(us) == 1 {
			users[us[0].(string)] = true
		}
	}
	for _, u := range []string{"billing", "reports", "worker", "batch", "ops"} {
		if !users[u] {
			t.Errorf("no event by %s: %v", u, users)
		}
	}
	// The same events from the server's own log, gzipped, among its lines.
	server, _, err := run(t, "audit", pmAuditServer, "-o", "json", "--zone", "UTC")
	if err != nil || len(jsonLines(t, server)) != len(all) {
		t.Errorf("the server's log: %d events, %v", len(jsonLines(t, server)), err)
	}

	for _, c := range []struct {
		args  []string
		check func(map[string]any) bool
	}{
		{[]string{"--user", "ops", "--operation", "delete"}, func(e map[string]any) bool {
			return e["operation"] == "delete" && strings.HasPrefix(e["user"].(string), "ops") || strings.HasSuffix(e["user"].(string), ",ops")
		}},
		{[]string{"--operation", "ephemeralDeletion"}, func(e map[string]any) bool {
			return e["operation"] == "ephemeralZNodeDeletionOnSessionCloseOrExpire" && e["ip"] == nil
		}},
		{[]string{"--result", "failure"}, func(e map[string]any) bool { return e["result"] == "failure" }},
		{[]string{"--path", "/pm/app/"}, func(e map[string]any) bool { return strings.HasPrefix(e["znode"].(string), "/pm/app/") }},
		{[]string{"--session", all[1]["session"].(string)}, func(e map[string]any) bool { return e["session"] == all[1]["session"] }},
		{[]string{"--ip", "127.0.0.1", "--since", all[10]["time"].(string), "--until", all[20]["time"].(string)}, func(e map[string]any) bool {
			return e["ip"] == "127.0.0.1" && e["time"].(string) >= all[10]["time"].(string) && e["time"].(string) <= all[20]["time"].(string)
		}},
	} {
		out, errs, err := run(t, append([]string{"audit", pmAuditZoned, "-o", "json"}, c.args...)...)
		if err != nil {
			t.Errorf("%v: %v: %s", c.args, err, errs)
			continue
		}
		rows := jsonLines(t, out)
		if len(rows) == 0 || len(rows) == len(all) {
			t.Errorf("%v kept %d of %d", c.args, len(rows), len(all))
		}
		for _, r := range rows {
			if !c.check(r) {
				t.Errorf("%v kept %v", c.args, r)
			}
		}
	}
	for _, bad := range [][]string{{"--operation", "getData"}, {"--since", "0x12"}, {"--result", "maybe"}, {"--zone", "Mars/Olympus"}, {"--session", "x"}} {
		if _, _, err := run(t, append([]string{"audit", pmAuditZoned}, bad...)...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}

	// The table: who in words.
	out, _, err = run(t, "audit", filepath.Join(pmAudit, "rotated"), "--zone", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SESSION", "serverStart", "by the server (", "ops from 127.0.0.1", "127.0.0.1 (no user)", "ephemeralDeletion", "ephemeral_sequential", "acl world:anyone:ra"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table has no %q", want)
		}
	}
}

// TestAuditDamaged: a line cut short is named with its file and line, the
// rest is printed, the exit status is 3; a file of other lines is warned
// about.
func TestAuditDamaged(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(pmAuditZoned)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(string(b), "\n")
	cut := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(cut, []byte(text[:len(text)-25]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := run(t, "audit", cut, "-o", "json")
	var partial *partialError
	lines := strings.Count(text, "\n") + 1
	if !errors.As(err, &partial) || len(jsonLines(t, out)) != lines-1 || !strings.Contains(errs, cut+": line "+strconv.Itoa(lines)) || !strings.Contains(errs, "cut short") {
		t.Errorf("a cut line: %v, %d events of %d\n%s", err, len(jsonLines(t, out)), lines, errs)
	}
	other := filepath.Join(t.TempDir(), "other.log")
	if err := os.WriteFile(other, []byte("2026-11-26 02:47:00,000 INFO hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, err := run(t, "audit", other); err != nil || !strings.Contains(errs, "no audit event") || !strings.Contains(errs, "audit.enable=true") {
		t.Errorf("a file without events: %v %s", err, errs)
	}
}

// TestTxnlogAudit: each transaction with who made it — the force-release
// by ops, a session's start by its client — and a warning when the audit
// log is read in another zone than its own.
func TestTxnlogAudit(t *testing.T) {
	t.Parallel()
	forced := pmfixture.Fact(t, pmFixtures, "force_deleted")
	out, errs, err := run(t, "txnlog", pmFixtures, "-o", "json", "--audit", pmAuditZoned)
	if err != nil {
		t.Fatalf("%v: %s", err, errs)
	}
	kinds := map[string]int{}
	for _, r := range jsonLines(t, out) {
		a, _ := r["audit"].(map[string]any)
		if a == nil {
			if r["session"] != "0x0" {
				t.Errorf("a client's transaction without audit: %v", r)
			}
			continue
		}
		kinds[r["type"].(string)+" "+a["match"].(string)]++
		if r["type"] == "delete" && r["path"] == forced {
			if us := a["users"].([]any); len(us) != 1 || us[0] != "ops" || a["match"] != "event" || a["gap_ms"] == nil {
				t.Errorf("the force-release: %v", a)
			}
		}
	}
	if kinds["createSession session"] == 0 || kinds["create2 event"] == 0 || kinds["closeSession event"] == 0 || kinds["error event"] == 0 {
		t.Errorf("matches: %v", kinds)
	}
	out, _, err = run(t, "txnlog", pmFixtures, "--path", forced, "--audit", pmAuditZoned)
	if err != nil || !strings.Contains(out, "[ops from 127.0.0.1]") {
		t.Errorf("the table: %v\n%s", err, out)
	}
	_, errs, err = run(t, "txnlog", pmFixtures, "--audit", filepath.Join(pmAudit, "rotated"), "--audit-zone", zoneOff(t))
	if err != nil || !strings.Contains(errs, "another zone") {
		t.Errorf("the audit log read in the wrong zone: %v\n%s", err, errs)
	}
}

// zoneOff is a zone five hours away from the fixtures' server's.
func zoneOff(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(pmAuditZoned)
	if err != nil {
		t.Fatal(err)
	}
	// "2026-11-27T15:08:24.103+0000 …": the zone is at 23..28.
	sign, hh := b[23], (int(b[24]-'0')*10+int(b[25]-'0')+5)%24
	return string(sign) + string(rune('0'+hh/10)) + string(rune('0'+hh%10)) + ":" + string(b[26:28])
}

// TestHistoryAudit: the history names who created each holder's node and
// who ended each holding — the force-release by ops, the expiry by the
// server for batch's session — in JSON and in the table.
func TestHistoryAudit(t *testing.T) { checkHistoryAudit(t, pmFixtures, pmAuditZoned) }

// checkHistoryAudit checks the scenario's history joined with its audit
// log.
func checkHistoryAudit(t *testing.T, dataDir string, audit ...string) {
	t.Helper()
	var auditArgs []string
	for _, a := range audit {
		auditArgs = append(auditArgs, "--audit", a)
	}
	out, errs, err := run(t, append([]string{"history", "/pm", "--data-dir", dataDir, "-o", "json"}, auditArgs...)...)
	if err != nil {
		t.Fatalf("%v: %s", err, errs)
	}
	var recipes []historyJSON
	if err := json.Unmarshal([]byte(out), &recipes); err != nil {
		t.Fatal(err)
	}
	stories := map[string][]string{}
	for _, r := range recipes {
		for _, h := range r.Holdings {
			if h.Audit == nil || h.Audit.Created == nil || h.Audit.Created.Match != "event" {
				t.Errorf("%s %s: no creator %+v", r.Path, h.Node, h.Audit)
				continue
			}
			s := strings.Join(h.Audit.Created.Users, "+") + " " + h.Ended
			if e := h.Audit.Ended; e != nil {
				s += " by " + strings.Join(e.Users, "+")
				if e.ByServer {
					// The names of a session's ids come in no fixed order.
					names := strings.Split(e.SessionUser, ",")
					sort.Strings(names)
					s += "server for " + strings.Join(names, ",")
				}
			}
			stories[r.Path] = append(stories[r.Path], s)
		}
	}
	for path, want := range map[string]string{
		"/pm/curator-lock": "billing released by billing| released by |reports released by reports|reports deleted-by-other by ops|billing held",
		"/pm/kazoo-lock":   "worker released by worker| released by |batch session-expired by server for 127.0.0.1,batch|worker released by worker| session-closed by server for 127.0.0.1",
	} {
		if got := strings.Join(stories[path], "|"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", path, got, want)
		}
	}
	out, _, err = run(t, append([]string{"history", "/pm/curator-lock", "--data-dir", dataDir}, auditArgs...)...)
	if err != nil || !strings.Contains(out, "created by reports from 127.0.0.1; deleted by ops from 127.0.0.1") {
		t.Errorf("the table: %v\n%s", err, out)
	}
}

// TestHistoryReport: the Markdown report tells the timeline with who did
// what, the tree's changes, and the commands that reproduce them; without
// an audit log it says who is unknown.
func TestHistoryReport(t *testing.T) {
	t.Parallel()
	out, errs, err := run(t, "history", "/pm/kazoo-lock", "--data-dir", pmFixtures, "--audit", pmAuditZoned, "--report")
	if err != nil {
		t.Fatalf("%v: %s", err, errs)
	}
	for _, want := range []string{"# Post-mortem: `/pm/kazoo-lock`", "## Timeline", "**its session expires**", "the server (",
		"for batch from 127.0.0.1", "**its client closes its session**", "worker from 127.0.0.1", "## Changes to the tree under `/pm/kazoo-lock`",
		"## Reproduce", "zkx txnlog " + pmFixtures + " --path /pm/kazoo-lock --audit " + pmAuditZoned, "zkx --data-dir " + pmFixtures + " --at 0x"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report has no %q:\n%s", want, out)
		}
	}
	out, _, err = run(t, "history", "/pm/curator-lock", "--data-dir", pmFixtures, "--report")
	if err != nil || !strings.Contains(out, "| Audit log | not given") || !strings.Contains(out, "**force-deleted by session 0x") {
		t.Errorf("the report without an audit log: %v\n%s", err, out)
	}
}
