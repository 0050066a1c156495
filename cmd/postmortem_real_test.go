package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestPostmortemOnRealZooKeeper plays the post-mortem scenario on a real
// ZooKeeper 3.8 that writes its audit log — the force-release done with
// zkx unlock --auth digest:ops:… — and reads what that server wrote: the
// history names who created each holder's node and who ended it (the
// force-release by ops, the expiry and the close by the server), the
// audit log has zkx unlock's delete; then the server is started again on
// its files, with the end of the scenario live, and the application's
// nodes the zkCli.sh session changed are put back as they were before it,
// from a copy of those files: refused under --readonly, then data, ACLs
// and children equal to the past's (only the ephemeral node the past had
// is not recreated).
func TestPostmortemOnRealZooKeeper(t *testing.T) {
	t.Parallel()
	auth := "digest:ops:" + zktest.PostmortemOpsPassword
	pm := zktest.RunPostmortemWith(t, zktest.PostmortemOptions{ForceRelease: func(_ testing.TB, connect, path string) {
		out, errs, err := run(t, "--server", connect, "--auth", auth, "unlock", path, "--yes")
		if err != nil {
			t.Fatalf("zkx unlock %s: %v\n%s%s", path, err, out, errs)
		}
	}})
	checkHistoryAudit(t, pm.DataDir, pm.AuditDir)
	out, errs, err := run(t, "audit", pm.AuditDir, "--user", "ops", "--operation", "delete", "-o", "json")
	if rows := jsonLines(t, out); err != nil || len(rows) != 1 || rows[0]["znode"] != pm.ForceDeleted || rows[0]["session"] != display.Hex(pm.Sessions["unlock"]) {
		t.Errorf("zkx unlock's delete in the audit log: %v %v\n%s", rows, err, errs)
	}

	// The past, from a copy of the files the server is about to write to.
	copied := filepath.Join(t.TempDir(), "data")
	copyTree(t, pm.DataDir, copied)
	pm.Server.Members()[0].Restart(t)
	pm.Server.WaitServing(t)
	live := []string{"--server", pm.Server.ConnectString(), "--auth", auth}
	past := copied + "@" + display.Hex(pm.AppGoodZxid) + ":" + zktest.PostmortemApp
	app := zktest.PostmortemApp
	out, errs, err = run(t, append(live, "diff", past, app, "--ignore", "instance")...)
	if got := strings.Join(diffLines(out), "|"); exitCode(err) != diffDifferent || got != "+ /junk|- /flags/a|~ /config|~ /flags" {
		t.Errorf("diff before: %v\n%s%s", err, out, errs)
	}
	if _, _, err := run(t, append(live, "--readonly", "mirror", past, app, "--yes")...); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("mirror under --readonly: %v", err)
	}
	if out, errs, err := run(t, append(live, "mirror", past, app, "--yes")...); err != nil {
		t.Fatalf("mirror: %v\n%s%s", err, out, errs)
	}
	if out, errs, err := run(t, append(live, "diff", past, app, "--ignore", "instance")...); err != nil {
		t.Errorf("diff after: %v\n%s%s", err, out, errs)
	}
}

// copyTree copies a folder's files and folders.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
