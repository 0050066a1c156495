package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/zkview/transfer"
)

// exportFile writes an export of root with the records given (each a
// JSON object without its braces' path-independent fields), one a line.
func exportFile(t *testing.T, root string, records ...string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `{"zkx_export":1,"root":%q,"exported":"2026-01-01T00:00:00Z"}`+"\n", root)
	for _, r := range records {
		b.WriteString(r + "\n")
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// node is one record of an export: path, text data, an open ACL unless
// acl is given.
func node(path, data string, acl ...string) string {
	a := `[{"scheme":"world","id":"anyone","perms":"cdrwa"}]`
	if len(acl) > 0 {
		a = acl[0]
	}
	d, _ := json.Marshal([]byte(data))
	return fmt.Sprintf(`{"path":%q,"data":%s,"acl":%s}`, path, d, a)
}

// countUnder counts the nodes at and below root (0 when root is missing).
func countUnder(t *testing.T, c *zk.Conn, root string) int {
	t.Helper()
	kids, _, err := c.Children(root)
	if errors.Is(err, zk.ErrNoNode) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 1
	for _, k := range kids {
		n += countUnder(t, c, root+"/"+k)
	}
	return n
}

// TestImportChecksTheWholeFileFirst: a bad line anywhere — not JSON, a
// path twice, a node before its parent, "acl": [], a permission that is
// not cdrwa — stops the import before its first write, naming the line;
// a UTF-8 byte order mark before the header is read as text editors
// write it.
func TestImportChecksTheWholeFileFirst(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		create(t, c, base, nil, 0, zk.WorldACL(zk.PermAll))
		src := base + "/src"
		good := []string{node(src, "root")}
		for i := range 2500 {
			good = append(good, node(fmt.Sprintf("%s/n%04d", src, i), "x"))
		}
		bad := map[string]struct {
			line int
			rec  string
			want string
		}{
			"not json at line 1601":    {1601, `{"path":`, "line 1601"},
			"a path twice":             {1601, node(src+"/n0007", "again"), "line 1601: " + src + "/n0007 appears a second time"},
			"a node before its parent": {1601, node(src+"/nowhere/x", "x"), "comes before its parent " + src + "/nowhere"},
			"an empty ACL":             {1601, node(src+"/bare", "x", `[]`), `has no ACL ("acl": [] or none)`},
			"a permission":             {1601, node(src+"/odd", "x", `[{"scheme":"world","id":"anyone","perms":"rwz"}]`), "line 1601"},
		}
		for name, b := range bad {
			t.Run(name, func(t *testing.T) {
				recs := append(append(append([]string{}, good[:b.line-2]...), b.rec), good[b.line-2:]...)
				file := exportFile(t, src, recs...)
				for _, dry := range []bool{true, false} {
					args := []string{"--server", connect, "import", file, "--to", base + "/dst"}
					if dry {
						args = append(args, "--dry-run")
					}
					_, _, err := run(t, args...)
					if err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), "nothing was written") {
						t.Fatalf("dry %v: error %v, want %q and nothing written", dry, err, b.want)
					}
				}
				if n := countUnder(t, c, base+"/dst"); n != 0 {
					t.Fatalf("%d nodes written", n)
				}
			})
		}

		// A byte order mark, on a file and on stdin.
		file := exportFile(t, src, good[:3]...)
		withBOM, _ := os.ReadFile(file)
		if err := os.WriteFile(file, append([]byte("\xef\xbb\xbf"), withBOM...), 0o600); err != nil {
			t.Fatal(err)
		}
		if rep, _, err := run(t, "--server", connect, "import", file, "--to", base+"/bom"); err != nil || !strings.Contains(rep, "created 3,") {
			t.Fatalf("an export with a BOM: %v\n%s", err, rep)
		}
		if n := countUnder(t, c, base+"/bom"); n != 3 {
			t.Fatalf("%d nodes from the export with a BOM", n)
		}
	})
}

// TestImportDryRunPredicts: --dry-run reports exactly what the real run
// then does — the same counts, the same refusals for the same reasons —
// for a missing parent, a node that exists, data over the request limit,
// an ACL the server finds invalid and a parent whose ACL does not let
// this session create, that one across transactions.
func TestImportDryRunPredicts(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		create(t, c, base, nil, 0, zk.WorldACL(zk.PermAll))
		create(t, c, base+"/dst", nil, 0, zk.WorldACL(zk.PermAll))
		create(t, c, base+"/dst/there", []byte("keep"), 0, zk.WorldACL(zk.PermAll))
		src := base + "/src"
		big := strings.Repeat("b", 300<<10) // two of them do not fit one transaction
		file := exportFile(t, src,
			node(src, ""),
			node(src+"/a-big", big),
			node(src+"/huge", strings.Repeat("h", 1<<20)),
			node(src+"/huge/below", "x"),
			node(src+"/invalid-acl", "x", `[{"scheme":"ip","id":"not an address","perms":"cdrwa"}]`),
			node(src+"/readonly", "r", `[{"scheme":"world","id":"anyone","perms":"r"}]`),
			node(src+"/readonly/b-big", big),
			node(src+"/there", "theirs"),
			node(src+"/there/child", "x"),
		)
		report := func(args ...string) (transfer.Report, error) {
			t.Helper()
			out, _, err := run(t, append([]string{"--server", connect, "import", file, "-o", "json"}, args...)...)
			var rep transfer.Report
			if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
				t.Fatalf("report %v: %v\n%s", args, jerr, out)
			}
			return rep, err
		}
		for _, to := range []string{base + "/missing/dst", base + "/dst"} {
			dry, derr := report("--to", to, "--dry-run")
			if got := countUnder(t, c, base); got != 3 {
				t.Fatalf("--dry-run wrote: %d nodes under %s", got, base)
			}
			applied, rerr := report("--to", to)
			dry.DryRun = false
			if fmt.Sprint(dry) != fmt.Sprint(applied) || fmt.Sprint(derr) != fmt.Sprint(rerr) {
				t.Fatalf("to %s: the dry run predicted\n%+v (%v)\nthe real run did\n%+v (%v)", to, dry, derr, applied, rerr)
			}
			var partial *partialError
			if !errors.As(rerr, &partial) {
				t.Fatalf("to %s: %v, want refusals (exit 3)", to, rerr)
			}
			t.Logf("to %s: %+v", to, applied)
		}
		reasons := map[string]string{}
		rep, _ := report("--to", base+"/again", "--dry-run")
		for _, r := range rep.Refusals {
			reasons[strings.TrimPrefix(r.Path, base+"/again")] = r.Reason
		}
		for p, want := range map[string]string{
			"/huge":           "request too large",
			"/huge/below":     "its parent was not written",
			"/invalid-acl":    "invalid ACL",
			"/readonly/b-big": "does not let this session create",
		} {
			if !strings.Contains(reasons[p], want) {
				t.Errorf("%s refused for %q, want %q", p, reasons[p], want)
			}
		}
		rep, _ = report("--to", base+"/missing/dst", "--dry-run")
		if len(rep.Refusals) == 0 || !strings.Contains(rep.Refusals[0].Reason, "its parent "+base+"/missing does not exist") {
			t.Errorf("a missing parent: %+v", rep.Refusals)
		}
		if d, _, _ := c.Get(base + "/dst/there"); string(d) != "keep" {
			t.Errorf("an existing node was changed: %q", d)
		}
	})
}

// TestImportStopsAndSaysHowToGoOn: a connection lost in the middle of an
// import (the embedded server drops the third transaction) leaves whole
// transactions written; the error names the last node written and the
// command that goes on; that command finishes the import.
func TestImportStopsAndSaysHowToGoOn(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	connect := srv.ConnectString()
	base := zktest.Path(t)
	c := zktest.Conn(t, connect)
	create(t, c, base, nil, 0, zk.WorldACL(zk.PermAll))
	src := base + "/src"
	recs := []string{node(src, "")}
	for i := range 2500 {
		recs = append(recs, node(fmt.Sprintf("%s/n%04d", src, i), "x"))
	}
	file := exportFile(t, src, recs...)
	var multis atomic.Int32
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Op == jute.OpMulti && multis.Add(1) == 3 {
			return zkserver.DropBeforeApply
		}
		return zkserver.Proceed
	})
	_, _, err := run(t, "--server", connect, "import", file, "--to", base+"/dst")
	want := fmt.Sprintf("2000 nodes were written before it, the last %s/dst/n1998", base)
	resume := "to go on: zkx import " + file + " --to " + base + "/dst --skip-existing"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), resume) {
		t.Fatalf("error %v\nwant %q and %q", err, want, resume)
	}
	if n := countUnder(t, c, base+"/dst"); n != 2000 {
		t.Fatalf("%d nodes written, want the two whole transactions (2000)", n)
	}
	srv.SetFaultHook(nil)
	rep, _, err := run(t, "--server", connect, "import", file, "--to", base+"/dst", "--skip-existing")
	if err != nil || !strings.Contains(rep, "created 501, updated 0, skipped 2000") {
		t.Fatalf("resumed: %v\n%s", err, rep)
	}
	if n := countUnder(t, c, base+"/dst"); n != 2501 {
		t.Fatalf("%d nodes after resuming, want 2501", n)
	}
}
