package cmd

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestFind: the conditions on a live tree, and grep's exit status (the
// conditions refused, TestFindOptions).
func TestFind(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		populate(t, connect, map[string]int32{
			base: 0, base + "/locks": 0, base + "/locks/lock-1": 0, base + "/locks/lock-2": 0, base + "/cfg": 0,
		})
		c := zktest.Conn(t, connect)
		create(t, c, base+"/cfg/flag", []byte(`{"enabled": false}`), 0, zk.WorldACL(zk.PermAll))
		create(t, c, base+"/locks/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))

		out, _, err := run(t, "--server", connect, "find", base, "--name", "lock-*")
		if err != nil || out != base+"/locks/lock-1\n"+base+"/locks/lock-2\n" {
			t.Fatalf("find --name lock-*: %v\n%s", err, out)
		}
		out, _, err = run(t, "--server", connect, "find", base, "--data", `/"enabled": *false/`, "-o", "json")
		var rows []nodeJSON
		if err != nil || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0].Path != base+"/cfg/flag" || rows[0].DataLength != 18 {
			t.Fatalf("find --data -o json: %v\n%s", err, out)
		}
		out, _, err = run(t, "--server", connect, "find", base, "--ephemeral", "--owner", display.Hex(c.SessionID()))
		if err != nil || out != base+"/locks/eph\n" {
			t.Fatalf("find --ephemeral --owner: %v\n%s", err, out)
		}
		out, _, err = run(t, "--server", connect, "find", base, "--name", "/^nothing$/")
		var status exitStatus
		if !errors.As(err, &status) || status != 1 || out != "" {
			t.Fatalf("find with no match: %v %q, want exit status 1 and no output", err, out)
		}
	})
}
