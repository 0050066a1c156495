package cmd

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestReadOnlyCommandsChangeNothing runs every command with --readonly on
// a tree with a lock, a queue and an election in it: the commands that
// would write refuse, and afterwards no node was created, changed or
// deleted (every stat is the same).
func TestReadOnlyCommandsChangeNothing(t *testing.T) {
	t.Parallel()
	connect := zktest.Embedded(t)
	base := zktest.Path(t)
	c := zktest.Conn(t, connect)
	open := zk.WorldACL(zk.PermAll)
	create(t, c, base, nil, 0, open)
	create(t, c, base+"/lock", nil, 0, open)
	create(t, c, base+"/lock/_c_2b0c2e4a-0f0b-4c37-9a53-6f6f1f1f1f1f-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, open)
	create(t, c, base+"/queue", nil, 0, open)
	create(t, c, base+"/queue/qn-", []byte("item"), zk.FlagSequence, open)
	create(t, c, base+"/data", []byte(`{"a":1}`), 0, open)
	before := snapshot(t, c, base)

	reads := [][]string{
		{"ls", "-l", base}, {"tree", base}, {"get", base + "/data"}, {"stat", base + "/data"},
		{"locks", base}, {"queues", base}, {"elections", base}, {"sessions"},
		{"find", base, "--name", "*"}, {"export", base}, {"diff", base, base}, {"whoami"}, {"quota", base},
	}
	for _, args := range reads {
		if _, _, err := run(t, append([]string{"--server", connect, "--readonly"}, args...)...); err != nil {
			t.Errorf("zkx --readonly %v: %v", args, err)
		}
	}
	writes := [][]string{
		{"lock", base + "/lock", "--", "true"},
		{"demo", "--headless", "--duration", "1s"},
		{"import", "-", "--to", base + "/copy"},
		{"cp", base + "/data", base + "/copy"},
		{"mv", base + "/data", base + "/copy", "--yes"},
		{"setacl", base + "/data", "world:anyone:r"},
		{"edit", base + "/data"},
		{"mirror", base + "/queue", base + "/copy", "--yes"},
		{"revoke", base + "/lock"},
	}
	for _, args := range writes {
		_, _, err := run(t, append([]string{"--server", connect, "--readonly"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "--readonly") {
			t.Errorf("zkx --readonly %v: error %v, want a refusal naming --readonly", args, err)
		}
	}
	if after := snapshot(t, c, base); after != before {
		t.Errorf("the tree changed under --readonly:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// snapshot describes every node under root with its stat, sorted.
func snapshot(t *testing.T, c *zk.Conn, root string) string {
	t.Helper()
	var lines []string
	var walk func(string)
	walk = func(p string) {
		children, st, err := c.Children(p)
		if err != nil {
			t.Fatalf("list %s: %v", p, err)
		}
		lines = append(lines, fmt.Sprintf("%s czxid=%d mzxid=%d pzxid=%d version=%d cversion=%d aversion=%d",
			p, st.Czxid, st.Mzxid, st.Pzxid, st.Version, st.Cversion, st.Aversion))
		for _, ch := range children {
			walk(p + "/" + ch)
		}
	}
	walk(root)
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
