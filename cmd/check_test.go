package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// latchNode is a Curator LeaderLatch node's name.
func latchNode(seq int) string {
	return fmt.Sprintf("_c_8d1f2b6e-0c5e-4a55-9c1b-3f7e0d2a9b41-latch-%010d", seq)
}

// TestCheckExitStatuses: zkx check exits 2 with one line per alarm (a
// stale queue, an election whose leader is gone), 0 with one OK line
// where nothing is wrong, and 3 (UNKNOWN, never 1) for a bad flag or an
// ensemble it cannot reach; elections --check exits 2 on the leader.
func TestCheckExitStatuses(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	connect := srv.ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	acl := zk.WorldACL(zk.PermAll)
	now := time.Now()
	for _, p := range []string{base, base + "/bad", base + "/bad/jobs", base + "/bad/election", base + "/fine", base + "/fine/jobs"} {
		create(t, admin, p, nil, 0, acl)
	}
	create(t, admin, base+"/bad/jobs/"+delayItem(now.Add(-20*time.Minute), 0), []byte("a"), 0, acl)
	create(t, admin, base+"/fine/jobs/"+delayItem(now.Add(time.Hour), 0), []byte("b"), 0, acl)
	leader := goneClient(t, connect)
	create(t, leader, base+"/bad/election/"+latchNode(0), []byte("10.0.0.9"), zk.FlagEphemeral, acl)
	candidate := zktest.Conn(t, connect)
	create(t, candidate, base+"/bad/election/"+latchNode(1), []byte("10.0.0.8"), zk.FlagEphemeral, acl)
	if !srv.DropConnection(leader.SessionID()) {
		t.Fatal("the leader has no connection to drop")
	}

	var status exitStatus
	out, _, err := run(t, "--server", connect, "check", "--older", "15m", base)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !errors.As(err, &status) || status != exitCheckAlarm || len(lines) != 3 || !strings.HasPrefix(lines[0], "CRITICAL: 2 alarms") ||
		!strings.HasPrefix(lines[1], "leader-silent "+base+"/bad/election: ") || !strings.HasPrefix(lines[2], "queue-stale "+base+"/bad/jobs: ") {
		t.Errorf("zkx check %s: %v, want exit 2, a status line and one line per alarm:\n%s", base, err, out)
	}
	out, _, err = run(t, "--server", connect, "check", "-o", "json", "--older", "15m", base)
	var answer checkAnswer
	if jerr := json.Unmarshal([]byte(out), &answer); jerr != nil || answer.Status != "CRITICAL" || len(answer.Alarms) != 2 ||
		answer.Alarms[0].Recipe != "election" || answer.Alarms[1].Path != base+"/bad/jobs" {
		t.Errorf("zkx check -o json: %v %v\n%s", err, jerr, out)
	}

	out, _, err = run(t, "--server", connect, "check", "--older", "15m", base+"/fine")
	if err != nil || !strings.HasPrefix(out, "OK: 1 recipe at or under "+base+"/fine") || strings.Count(out, "\n") != 1 {
		t.Errorf("zkx check of a healthy path: %v, want exit 0 and one OK line:\n%s", err, out)
	}

	out, _, err = run(t, "--server", connect, "elections", "--check", base)
	if !errors.As(err, &status) || status != exitCheckAlarm || !strings.Contains(out, "leader-silent") || strings.Contains(out, "queue-stale") {
		t.Errorf("zkx elections --check: %v\n%s", err, out)
	}

	out, _, err = run(t, "--server", connect, "check", "--no-such-flag")
	if !errors.As(err, &status) || status != exitCheckUnknown || !strings.HasPrefix(out, "UNKNOWN: ") {
		t.Errorf("zkx check with a bad flag: %v, want exit 3 and an UNKNOWN line:\n%s", err, out)
	}
	if got := exitCode(err); got != exitCheckUnknown {
		t.Errorf("exit code %d, want 3", got)
	}
	out, _, err = run(t, "--server", fmt.Sprintf("127.0.0.1:%d", zktest.FreePort(t)), "check", "--timeout", "3s")
	if !errors.As(err, &status) || status != exitCheckUnknown || !strings.HasPrefix(out, "UNKNOWN: ") || strings.Count(out, "\n") != 1 || strings.Contains(out, `\n`) {
		t.Errorf("zkx check of no ensemble: %v, want exit 3 and one UNKNOWN line:\n%s", err, out)
	}
}
