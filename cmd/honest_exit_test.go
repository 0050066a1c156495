package cmd

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestWalkMissingRoot: tree and find on a path that does not exist fail,
// saying so, and print nothing (no empty JSON array that reads as an
// empty subtree).
func TestWalkMissingRoot(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		missing := zktest.Path(t) + "/does/not/exist"
		for _, args := range [][]string{
			{"tree", missing}, {"tree", "-o", "json", missing},
			{"find", missing}, {"find", "-o", "json", missing}, {"find", "--name", "x*", missing},
		} {
			out, _, err := run(t, append([]string{"--server", connect}, args...)...)
			var partial *partialError
			var status exitStatus
			if err == nil || errors.As(err, &partial) || errors.As(err, &status) || !strings.Contains(err.Error(), missing) ||
				!strings.Contains(err.Error(), "node does not exist") {
				t.Errorf("zkx %v: error %v, want a failure naming the missing node", args, err)
			}
			if out != "" {
				t.Errorf("zkx %v printed %q", args, out)
			}
		}
	})
}

// TestWalkUnreadable: a node this session may not read is marked in every
// output of tree, find and export, and counted in a partial result (exit
// 3); its children, which could not be listed, are said to be missing.
func TestWalkUnreadable(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		create(t, c, base, nil, 0, zk.WorldACL(zk.PermAll))
		create(t, c, base+"/open", nil, 0, zk.WorldACL(zk.PermAll))
		create(t, c, base+"/secret", nil, 0, zk.WorldACL(zk.PermAll))
		create(t, c, base+"/secret/hidden-child", nil, 0, zk.WorldACL(zk.PermAll))
		if _, err := c.SetACL(base+"/secret", zk.DigestACL(zk.PermAll, "alice", "pw"), -1); err != nil {
			t.Fatal(err)
		}
		partialOf := func(args []string) (string, error) {
			t.Helper()
			out, _, err := run(t, append([]string{"--server", connect}, args...)...)
			var partial *partialError
			if !errors.As(err, &partial) || !strings.Contains(err.Error(), "1 node could not be read") {
				t.Errorf("zkx %v: error %v, want a partial result counting 1 unreadable node", args, err)
			}
			return out, err
		}

		out, _ := partialOf([]string{"tree", base})
		if !strings.Contains(out, "secret (") || !strings.Contains(out, "not authenticated") || strings.Contains(out, "hidden-child") {
			t.Errorf("tree does not mark the unreadable node:\n%s", out)
		}
		out, _ = partialOf([]string{"tree", "-o", "json", base})
		if row := jsonRow(t, out, base+"/secret"); row == nil || !strings.Contains(row["error"].(string), "not authenticated") {
			t.Errorf("tree -o json: no error on the unreadable node:\n%s", out)
		}

		// find marks it whether or not it matches; what matches prints as
		// ever.
		out, _ = partialOf([]string{"find", "--name", "open", base})
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || lines[0] != base+"/open" || !strings.HasPrefix(lines[1], base+"/secret (unreadable, not searched below: ") {
			t.Errorf("find --name open:\n%s", out)
		}
		out, err := partialOf([]string{"find", "-o", "json", "--name", "open", base})
		if row := jsonRow(t, out, base+"/secret"); row == nil || row["error"] == nil || jsonRow(t, out, base+"/open") == nil {
			t.Errorf("find -o json: %v\n%s", err, out)
		}

		_, _, err = run(t, "--server", connect, "export", base)
		var partial *partialError
		if !errors.As(err, &partial) || !strings.Contains(err.Error(), "1 node could not be read") {
			t.Errorf("export: %v, want a partial result", err)
		}
	})
}

// jsonRow finds the object of path in a JSON array of nodes.
func jsonRow(t *testing.T, out, path string) map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	for _, r := range rows {
		if r["path"] == path {
			return r
		}
	}
	return nil
}
