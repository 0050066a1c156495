package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/pmfixture"
)

// TestPastExplorerNamesWho runs the explorer on the fixtures' past with
// their audit log, in tmux at 120×40: at the force-release of C's Curator
// lock node, the header names who deleted it — ops, from its address —
// whole; a step back, the header names who created the node before it.
func TestPastExplorerNamesWho(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	forced := pmfixture.Fact(t, filepath.Join("testdata", "postmortem", "datadir"), "force_deleted")
	out, err := exec.Command(bin, "txnlog", "testdata/postmortem/datadir", "--path", forced, "--type", "delete", "-o", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var del struct{ Zxid string }
	if err := json.Unmarshal(out, &del); err != nil || del.Zxid == "" {
		t.Fatalf("the force-release's zxid: %v %q", err, out)
	}
	dir := t.TempDir()
	stderr := filepath.Join(dir, "stderr")
	m := newTmux(t, "past-audit")
	m.start(bin + " --data-dir testdata/postmortem/datadir --at " + del.Zxid + " --path /pm/curator-lock" +
		" --audit testdata/postmortem/audit/audit-zoned.log 2>" + stderr)
	m.waitFor("the header naming who deleted the node", 30*time.Second, stderr, func(s string) bool {
		header := strings.SplitN(s, "\n", 2)[0]
		return strings.Contains(header, "zxid "+del.Zxid+" ") && strings.Contains(header, "delete /p") && strings.Contains(header, "-lock-0000000000 ") &&
			strings.Contains(header, "by ops from 127.0.0.1  READ-ONLY")
	})
	m.keys("<")
	m.waitFor("a step back: the transaction before, and who made it", 10*time.Second, stderr, func(s string) bool {
		header := strings.SplitN(s, "\n", 2)[0]
		return !strings.Contains(header, "zxid "+del.Zxid+" ") && strings.Contains(header, "ops from 127.0.0.1")
	})
}
