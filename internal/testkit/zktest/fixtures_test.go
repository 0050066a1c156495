package zktest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestWritePostmortemFixtures is not a test: it rewrites the files of
// testdata/postmortem (see its README) from a real ZooKeeper when
// ZKX_WRITE_FIXTURES=1, and says so and skips otherwise.
func TestWritePostmortemFixtures(t *testing.T) {
	t.Parallel()
	if os.Getenv("ZKX_WRITE_FIXTURES") != "1" {
		t.Skip("fixture generator: set ZKX_WRITE_FIXTURES=1 to rewrite testdata/postmortem from a real ZooKeeper")
	}
	out := postmortemTestdata()
	for _, dir := range []string{"datadir", "audit", "snapshots", "toolkit"} {
		if err := os.RemoveAll(filepath.Join(out, dir)); err != nil {
			t.Fatal(err)
		}
	}
	pm := RunPostmortemWith(t, PostmortemOptions{ForceRelease: zkxUnlock})
	copyDir(t, filepath.Join(pm.DataDir, "version-2"), filepath.Join(out, "datadir", "version-2"))
	copyDir(t, pm.AuditDir, filepath.Join(out, "audit", "rotated"))
	copyFile(t, pm.AuditZoned, filepath.Join(out, "audit", "audit-zoned.log"))
	gzipFile(t, pm.ServerLog, filepath.Join(out, "audit", "zookeeper.log.gz"))
	var facts strings.Builder
	fmt.Fprintf(&facts, "chain_zxid 0x%x\nforce_deleted %s\napp_good_zxid 0x%x\n", pm.ChainZxid, pm.ForceDeleted, pm.AppGoodZxid)
	for _, name := range []string{"A", "B", "C", "K1", "K2", "D", "admin", "unlock", "ops"} {
		fmt.Fprintf(&facts, "session %s 0x%x\n", name, pm.Sessions[name])
	}
	writeFile(t, filepath.Join(out, "datadir", "scenario.txt"), facts.String())

	for _, method := range []string{"gz", "snappy"} {
		compressedSnapshot(t, method, filepath.Join(out, "snapshots"))
	}
	files, _ := filepath.Glob(filepath.Join(out, "datadir", "version-2", "*"))
	more, _ := filepath.Glob(filepath.Join(out, "snapshots", "*"))
	for _, f := range append(files, more...) {
		class, args := "org.apache.zookeeper.server.persistence.TxnLogToolkit", []string{f}
		if strings.HasPrefix(filepath.Base(f), "snapshot.") {
			class, args = "org.apache.zookeeper.server.SnapshotFormatter", []string{"-d", f}
		}
		p := ZooKeeperTool(t, class, args...)
		if p.Err != nil {
			p.Log(t)
			t.Fatalf("%s %s: %v", class, f, p.Err)
		}
		writeFile(t, filepath.Join(out, "toolkit", filepath.Base(f)+".txt"), p.Stdout)
	}
}

// zkxUnlock force-releases the lock at path with zkx unlock (go run of
// this repository), authenticated as ops.
func zkxUnlock(t testing.TB, connect, path string) {
	root := filepath.Join(postmortemTestdata(), "..", "..")
	p := RunProgram(t, 5*time.Minute, "", true, "go", "-C", root, "run", ".",
		"--server", connect, "--auth", "digest:ops:"+PostmortemOpsPassword, "unlock", path, "--yes")
	if p.Err != nil {
		p.Log(t)
		t.Fatalf("zkx unlock %s: %v", path, p.Err)
	}
	t.Logf("zkx unlock %s:\n%s", path, p.Stdout)
}

// gzipFile writes a gzip-compressed copy of a file.
func gzipFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, buf.String())
}

// compressedSnapshot runs a real ZooKeeper that compresses its snapshots
// with method, writes enough for one to be taken while it runs, and copies
// the snapshots it took to dir.
func compressedSnapshot(t *testing.T, method, dir string) {
	e := RealWith(t, RealOptions{ExtraConfig: []string{"snapCount=20", "preAllocSize=16", "snapshot.compression.method=" + method}})
	m := e.Members()[0]
	c := Conn(t, e.ConnectString())
	acl := zk.WorldACL(zk.PermAll)
	base := "/" + method
	if _, err := c.Create(base, []byte(method), zk.FlagPersistent, acl); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if _, err := c.Create(fmt.Sprintf("%s/n%02d", base, i), []byte(strings.Repeat(method, i)), zk.FlagPersistent, acl); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Create(base+"/eph", []byte("mine"), zk.FlagEphemeral, acl); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		snaps, _ := filepath.Glob(filepath.Join(m.DataDir(), "version-2", "snapshot.*."+method))
		if len(snaps) >= 2 { // the empty one at start, one taken on the way
			m.WaitSnapshots(t)
			m.Kill(t)
			for _, s := range snaps {
				copyFile(t, s, filepath.Join(dir, filepath.Base(s)))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s snapshot taken within a minute: %v", method, snaps)
		}
		time.Sleep(50 * time.Millisecond) // the snapshot is written by a thread of its own
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		copyFile(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
