package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// twoContexts writes a contexts file naming two ensembles, one of them
// read-only, and returns its path.
func twoContexts(t *testing.T, a, b string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "contexts.yaml")
	body := fmt.Sprintf("current-context: one\ncontexts:\n  one:\n    server: %s\n  two:\n    server: %s\n  two-ro:\n    server: %s\n    readonly: true\n", a, b, b)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiffAcrossContexts: two ensembles named by contexts, an export
// file, exit statuses 0, 1 and 2, --ignore, -o json; then mirror makes
// them the same.
func TestDiffAcrossContexts(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		other := zktest.Embedded(t)
		cfg := twoContexts(t, connect, other)
		base := zktest.Path(t)
		populate(t, connect, map[string]int32{base: 0, base + "/cfg": 0, base + "/locks": 0, base + "/locks/lock-1": 0, base + "/only-a": 0})
		populate(t, other, map[string]int32{base: 0, base + "/cfg": 0, base + "/locks": 0, base + "/only-b": 0})
		setData(t, other, base+"/cfg", "changed")

		out, errOut, err := run(t, "--config", cfg, "diff", "one:"+base, "two:"+base)
		if exitCode(err) != diffDifferent {
			t.Fatalf("diff: exit %d (%v)\n%s%s", exitCode(err), err, out, errOut)
		}
		for _, want := range []string{"~ /cfg  data \"x\" (1 byte) → \"changed\" (7 bytes)", "- /locks/lock-1", "- /only-a", "+ /only-b"} {
			if !strings.Contains(out, want) {
				t.Errorf("diff output lacks %q:\n%s", want, out)
			}
		}
		if !strings.Contains(errOut, "2 only in A, 1 only in B, 1 changed") {
			t.Errorf("summary: %s", errOut)
		}

		// JSON: a streamed array of differences, the nodes as zkx export writes them.
		out, _, err = run(t, "--config", cfg, "diff", "one:"+base, "two:"+base, "-o", "json", "--ignore", "lock-*")
		var diffs []diffJSON
		if jerr := json.Unmarshal([]byte(out), &diffs); jerr != nil || exitCode(err) != 1 || len(diffs) != 3 {
			t.Fatalf("diff -o json: %v, %v\n%s", err, jerr, out)
		}
		if diffs[0].Path != "/cfg" || diffs[0].Change != "changed" || diffs[0].What[0] != "data" || string(diffs[0].B.Data) != "changed" || diffs[0].A.Path != base+"/cfg" {
			t.Errorf("first difference: %+v", diffs[0])
		}

		// An export file against the live side it came from: the same.
		exported, _, err := run(t, "--server", connect, "export", base)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "a.jsonl")
		if err := os.WriteFile(file, []byte(exported), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, errOut, err := run(t, "--server", connect, "diff", file, base); exitCode(err) != diffSame || out != "" {
			t.Errorf("export against its own subtree: exit %d\n%s%s", exitCode(err), out, errOut)
		}
		// Trouble: a side that does not exist, a context that does not.
		if _, errOut, err := run(t, "--server", connect, "diff", base, base+"/nope"); exitCode(err) != diffTrouble || !strings.Contains(errOut, "does not exist") {
			t.Errorf("missing side: exit %d: %s", exitCode(err), errOut)
		}
		if _, errOut, err := run(t, "--config", cfg, "diff", "three:/x", base); exitCode(err) != diffTrouble || !strings.Contains(errOut, `no context "three"`) {
			t.Errorf("unknown context: exit %d: %s", exitCode(err), errOut)
		}
		if _, _, err := run(t, "--config", cfg, "diff", "--no-such-flag", "a", "b"); exitCode(err) != diffTrouble {
			t.Errorf("a bad flag: exit %d", exitCode(err))
		}

		// Mirror one onto two: a dry run plans, --yes writes; a read-only
		// context refuses.
		if _, _, err := run(t, "--config", cfg, "mirror", "one:"+base, "two-ro:"+base, "--yes"); err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("mirror onto a read-only context: %v", err)
		}
		out, _, err = run(t, "--config", cfg, "mirror", "one:"+base, "two:"+base, "--dry-run")
		if err != nil || !strings.Contains(out, "set    "+base+"/cfg") || !strings.Contains(out, "delete "+base+"/only-b") ||
			!strings.Contains(out, "create "+base+"/locks/lock-1") || !strings.Contains(out, "would create 2, set 1, set 0 ACLs, delete 1") {
			t.Errorf("mirror --dry-run: %v\n%s", err, out)
		}
		if _, _, err := run(t, "--config", cfg, "mirror", "one:"+base, "two:"+base); err == nil || !strings.Contains(err.Error(), "--yes") {
			t.Errorf("mirror off a terminal without --yes: %v", err)
		}
		out, _, err = run(t, "--config", cfg, "mirror", "one:"+base, "two:"+base, "--yes", "-o", "json")
		var rep mirrorJSON
		if jerr := json.Unmarshal([]byte(out), &rep); err != nil || jerr != nil || rep.Created != 2 || rep.Deleted != 1 || rep.Updated != 1 || rep.Transactions != 1 {
			t.Errorf("mirror --yes: %v %v\n%s", err, jerr, out)
		}
		if out, errOut, err := run(t, "--config", cfg, "diff", "one:"+base, "two:"+base); exitCode(err) != diffSame {
			t.Errorf("after the mirror: exit %d\n%s%s", exitCode(err), out, errOut)
		}
	})
}

// setData replaces a node's data.
func setData(t *testing.T, connect, path, data string) {
	t.Helper()
	c, _, err := zk.Connect([]string{connect}, 10e9, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Set(path, []byte(data), -1); err != nil {
		t.Fatal(err)
	}
}

// TestForContext: a context named later (diff's CONTEXT:/path, the
// explorer's :ctx) takes its own server, credentials and read-only, and
// --readonly from the command line still holds.
func TestForContext(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	body := "current-context: a\ncontexts:\n  a:\n    server: a:2181\n    readonly: true\n  b:\n    server: b:2181/chroot\n    auth: digest:bob:pw\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := resolved(t, "--config", cfg)
	if err != nil || !g.readonly {
		t.Fatalf("%+v %v", g, err)
	}
	b, err := g.forContext("b")
	if err != nil || b.server != "b:2181/chroot" || b.auth != "digest:bob:pw" || b.readonly || b.contextName != "b" {
		t.Errorf("context b after a read-only context a: %+v %v", b, err)
	}
	g, _ = resolved(t, "--config", cfg, "--readonly", "--server", "x:1")
	if b, err := g.forContext("b"); err != nil || !b.readonly || b.server != "b:2181/chroot" {
		t.Errorf("--readonly holds, --server does not: %+v %v", b, err)
	}
	if _, err := g.forContext("c"); err == nil {
		t.Error("an unknown context: no error")
	}
	names, err := g.contextNames()
	if err != nil || strings.Join(names, ",") != "a,b" {
		t.Errorf("names %v %v", names, err)
	}
}

// TestExplorerContexts: the explorer's :ctx lists the contexts file and
// opens a context as zkx --context NAME would: its server, read-only.
func TestExplorerContexts(t *testing.T) {
	t.Parallel()
	one, two := zktest.Embedded(t), zktest.Embedded(t)
	cfg := twoContexts(t, one, two)
	g, err := resolved(t, "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctxs := g.explorerContexts()
	list, err := ctxs.List()
	if err != nil || len(list) != 3 || list[2].Name != "two-ro" || !list[2].ReadOnly || list[1].Server != two {
		t.Fatalf("list: %+v %v", list, err)
	}
	for _, name := range []string{"two", "two-ro"} {
		conn, err := ctxs.Open(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		_, werr := conn.Client.Writer()
		if conn.Client.Server() != two || conn.ContextName != name || conn.ReadOnly != (name == "two-ro") || (werr != nil) != conn.ReadOnly {
			t.Errorf("%s: server %s, read-only %v (writer: %v)", name, conn.Client.Server(), conn.ReadOnly, werr)
		}
		conn.Client.Close()
	}
	if _, err := ctxs.Open(context.Background(), "nope"); err == nil {
		t.Error("an unknown context opened")
	}
}
