package cmd

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zklimit"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestUnreadableSaysWhy: a node the server refuses for want of READ
// permission is blamed on permissions; a node whose reads fail for
// another reason (here its every read drops the connection) is not —
// in tree, find and export alike.
func TestUnreadableSaysWhy(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	connect := srv.ConnectString()
	base := zktest.Path(t)
	populate(t, connect, map[string]int32{base: 0, base + "/ok": 0, base + "/dropped": 0})
	c := zktest.Conn(t, connect)
	if _, err := c.Create(base+"/secret", nil, 0, zk.DigestACL(zk.PermAll, "bob", "pw")); err != nil {
		t.Fatal(err)
	}
	dropped := base + "/dropped"
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Path == dropped || (r.Op == jute.OpMultiRead && len(r.Paths) > 0 && r.Paths[0] == dropped) {
			return zkserver.DropBeforeApply
		}
		return zkserver.Proceed
	})
	for _, args := range [][]string{{"tree", base}, {"find", base, "--name", "nothing-matches"}, {"export", base}} {
		_, errOut, err := run(t, append([]string{"--server", connect}, args...)...)
		said := errOut
		if err != nil {
			said += err.Error()
		}
		if exitCode(err) != exitPartial || !strings.Contains(said, "2 nodes could not be read") ||
			!strings.Contains(said, "1 without READ permission") || !strings.Contains(said, "1 for another reason") {
			t.Errorf("zkx %s: exit %d, want 3 and one node blamed on permissions, one not:\n%s", strings.Join(args, " "), exitCode(err), said)
		}
	}
}

// TestLongNamesReadWhole: tree, find and export of nodes whose names
// are near ZooKeeper's path limit read every node, on the embedded server
// and on ZooKeeper: nothing unreadable, nothing missing from the export.
func TestLongNamesReadWhole(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		acl := zk.WorldACL(zk.PermAll)
		want := []string{base, base + "/normal", base + "/normal/child"}
		for i := range 6 {
			want = append(want, fmt.Sprintf("%s/%d-%s", base, i, strings.Repeat("x", 100_000)))
		}
		longest := zklimit.MaxRequest - (zklimit.RequestHeader + zklimit.CreateSize("", []byte("d"), acl))
		want = append(want, base+"/L"+strings.Repeat("y", longest-len(base)-2))
		sort.Strings(want)
		for _, p := range want {
			if _, err := c.Create(p, []byte("d"), 0, acl); err != nil {
				t.Fatalf("create %.40s…: %v", p, err)
			}
		}
		out, errOut, err := run(t, "--server", connect, "tree", base)
		if err != nil || strings.Count(out, "\n") != len(want) {
			t.Errorf("tree: %v, %d lines for %d nodes\n%.500s", err, strings.Count(out, "\n"), len(want), errOut)
		}
		out, errOut, err = run(t, "--server", connect, "find", base, "--name", "*")
		if err != nil || strings.Count(out, "\n") != len(want) {
			t.Errorf("find: %v, %d lines for %d nodes\n%.500s", err, strings.Count(out, "\n"), len(want), errOut)
		}
		out, errOut, err = run(t, "--server", connect, "export", base)
		if err != nil {
			t.Fatalf("export: %v\n%.500s", err, errOut)
		}
		var got []string
		for _, rec := range jsonLines(t, out)[1:] { // after the header
			if rec["error"] != nil {
				t.Errorf("export: %.60s… unreadable: %v", rec["path"], rec["error"])
			}
			got = append(got, rec["path"].(string))
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("export: %d records, want %d", len(got), len(want))
		}
	})
}
