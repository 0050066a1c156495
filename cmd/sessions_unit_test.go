package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// TestSessionsOptions: SESSION is read as ZooKeeper prints it, 0x
// optional; what is refused is refused before any server is asked.
func TestSessionsOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	build := func(run runFunc[*sessionsOptions]) *cobra.Command { return newSessionsCommand(g, run) }
	if opts := parsed(t, build); opts.tellStory || opts.read.format != cliout.Table {
		t.Errorf("sessions: %+v, want the list", opts)
	}
	if opts := parsed(t, build, "-o", "json", "0x10000343B9A0027"); !opts.tellStory || opts.session != 0x10000343b9a0027 || opts.read.format != cliout.JSON {
		t.Errorf("sessions -o json 0x10000343B9A0027: %+v", opts)
	}
	if opts := parsed(t, build, "1000a"); !opts.tellStory || opts.session != 0x1000a {
		t.Errorf("sessions 1000a: %+v", opts)
	}
	sessions := func() *cobra.Command { return newSessionsCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{sessions, []string{"--timeout", "0s"}, "--timeout must be positive"},
		{sessions, []string{"extra"}, `"extra" is not a session id`},
		{sessions, []string{"0x1", "0x2"}, "accepts at most 1 arg(s)"},
		{sessions, []string{"-o", "yaml"}, `-o "yaml": want table or json`},
	})
}

// TestWriteSessionList: a row per session, what is unknown marked "?" and
// a session no member lists "(no connection)" only when that is known; in
// JSON the members' notes ride on every session.
func TestWriteSessionList(t *testing.T) {
	t.Parallel()
	heard, long := int64(1500), int64(9000)
	connected, gone := true, false
	rows := []sessionJSON{
		{Session: "0x1", Client: "10.0.0.1:5000", Server: "zk1:2181", Connected: &connected, TimeoutMs: 10000, LastHeardMs: &heard,
			Ephemerals: []string{"/a/lock-1", "/a/lock-2", "/b/n\x1b[2J"}, Watches: []string{"/a"}, WatchCount: 3, From: sessionFromTables},
		{Session: "0x2", Connected: &gone, TimeoutMs: 6000, LastHeardMs: &long, LastHeardAtLeast: true, Silent: true,
			Ephemerals: []string{}, Watches: []string{}, From: sessionFromTables},
		{Session: "0x3", Ephemerals: []string{"/e"}, Watches: []string{}, From: sessionFromEphemerals},
	}
	var out bytes.Buffer
	if err := writeSessionList(&out, rows, nil, cliout.Table); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	fields := func(i int) string { return strings.Join(strings.Fields(lines[i]), " ") }
	if len(lines) != 4 || !strings.HasPrefix(fields(0), "SESSION CLIENT SERVER HEARD TIMEOUT WATCHES EPHEMERALS") ||
		fields(1) != "0x1 10.0.0.1:5000 zk1:2181 1s ago 10s 3 3: /a/lock-1, /a/lock-2 … (1 more)" ||
		fields(2) != "0x2 (no connection) - SILENT ≥9s ago 6s 0 0" ||
		fields(3) != "0x3 ? - ? ? ? 1: /e" {
		t.Errorf("sessions:\n%s", out.String())
	}

	notes := []introspect.MemberNote{{Member: "zk3:2181", Kind: introspect.NoteUnreachable, Text: "member zk3:2181: connection refused"}}
	out.Reset()
	if err := writeSessionList(&out, rows, notes, cliout.JSON); err != nil {
		t.Fatal(err)
	}
	var got []sessionJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != 3 {
		t.Fatalf("sessions -o json: %v\n%s", err, out.String())
	}
	for _, s := range got {
		if len(s.Ensemble) != 1 || s.Ensemble[0] != notes[0] || s.Watches == nil || s.Ephemerals == nil {
			t.Errorf("session %s in JSON: %+v, want the member's note and lists never null", s.Session, s)
		}
	}
	if got[1].Connected == nil || *got[1].Connected || got[2].Connected != nil || got[2].From != "ephemerals" || !strings.Contains(out.String(), `"last_heard_at_least": true`) {
		t.Errorf("sessions -o json:\n%s", out.String())
	}
}
