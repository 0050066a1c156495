package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestExportImport: the commands round-trip a subtree (binary data
// included) through a file, report refusals with exit status 3, and
// refuse to write under --readonly.
func TestExportImport(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		open := zk.WorldACL(zk.PermAll)
		create(t, c, base, nil, 0, open)
		create(t, c, base+"/src", []byte("top"), 0, open)
		create(t, c, base+"/src/bin", []byte{0, 1, 2, 0xff, 0xfe}, 0, open)
		create(t, c, base+"/src/bin/child", []byte(`{"a":1}`), 0, open)
		out, _, err := run(t, "--server", connect, "export", base+"/src")
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(out, "\n"); lines != 4 || !strings.Contains(out, `"text":"{\"a\":1}"`) {
			t.Fatalf("export: %d lines\n%s", lines, out)
		}
		file := filepath.Join(t.TempDir(), "src.jsonl")
		if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, "--server", connect, "--readonly", "import", file, "--to", base+"/dst"); err == nil || !strings.Contains(err.Error(), "--readonly") {
			t.Fatalf("import --readonly: %v", err)
		}
		rep, _, err := run(t, "--server", connect, "import", file, "--to", base+"/dst", "--dry-run")
		if err != nil || !strings.Contains(rep, "would create 3") {
			t.Fatalf("import --dry-run: %v\n%s", err, rep)
		}
		if ok, _, _ := c.Exists(base + "/dst"); ok {
			t.Fatal("--dry-run wrote")
		}
		rep, _, err = run(t, "--server", connect, "import", file, "--to", base+"/dst")
		if err != nil || !strings.Contains(rep, "created 3,") {
			t.Fatalf("import: %v\n%s", err, rep)
		}
		if d, _, err := c.Get(base + "/dst/bin"); err != nil || string(d) != "\x00\x01\x02\xff\xfe" {
			t.Fatalf("imported binary data %q %v", d, err)
		}
		rep, _, err = run(t, "--server", connect, "import", file, "--to", base+"/dst", "-o", "json")
		var partial *partialError
		if err == nil || !strings.Contains(err.Error(), "3 nodes refused") || !errors.As(err, &partial) || !strings.Contains(rep, `"refused": 3`) {
			t.Fatalf("import over existing nodes: %v\n%s", err, rep)
		}
		if _, _, err := run(t, "--server", connect, "import", file, "--to", base+"/dst", "--skip-existing", "--overwrite"); err == nil {
			t.Fatal("--skip-existing with --overwrite accepted")
		}
	})
}

// TestCopyMove: cp copies, mv refuses without a terminal or --yes and
// with ephemerals unless --force, and moves with --yes.
func TestCopyMove(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		open := zk.WorldACL(zk.PermAll)
		create(t, c, base, nil, 0, open)
		create(t, c, base+"/a", []byte("a"), 0, open)
		create(t, c, base+"/a/b", []byte("b"), 0, open)
		if out, _, err := run(t, "--server", connect, "cp", base+"/a", base+"/c"); err != nil || !strings.Contains(out, "created 2,") {
			t.Fatalf("cp: %v\n%s", err, out)
		}
		if _, _, err := run(t, "--server", connect, "mv", base+"/c", base+"/d"); err == nil || !strings.Contains(err.Error(), "--yes") {
			t.Fatalf("mv without a terminal: %v, want a refusal naming --yes", err)
		}
		if _, _, err := run(t, "--server", connect, "mv", base+"/a", base+"/a/inside", "--yes"); err == nil || !strings.Contains(err.Error(), "inside") {
			t.Fatalf("mv into itself: %v", err)
		}
		out, _, err := run(t, "--server", connect, "mv", base+"/c", base+"/d", "--yes")
		if err != nil || !strings.Contains(out, "deleted 2 from the source") {
			t.Fatalf("mv --yes: %v\n%s", err, out)
		}
		if ok, _, _ := c.Exists(base + "/c"); ok {
			t.Fatal("mv left the source")
		}
		if d, _, err := c.Get(base + "/d/b"); err != nil || string(d) != "b" {
			t.Fatalf("moved node: %q %v", d, err)
		}
		create(t, c, base+"/d/eph", nil, zk.FlagEphemeral, open)
		if _, _, err := run(t, "--server", connect, "mv", base+"/d", base+"/e", "--yes"); err == nil || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("mv of a subtree with an ephemeral: %v, want a refusal naming --force", err)
		}
		if ok, _, _ := c.Exists(base + "/e"); ok {
			t.Fatal("a refused mv copied")
		}
	})
}
