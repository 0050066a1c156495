package snapshot

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestRealSnapshotsAgreeWithSnapshotFormatter has a real ZooKeeper 3.8
// write snapshots — plain, gzip'd and snappy'd — while nodes of every kind
// and sessions exist, then compares each with what ZooKeeper's
// SnapshotFormatter prints for the same file.
func TestRealSnapshotsAgreeWithSnapshotFormatter(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"", "gz", "snappy"} {
		t.Run("compression="+method, func(t *testing.T) {
			cfg := []string{"snapCount=20", "preAllocSize=16"}
			if method != "" {
				cfg = append(cfg, "snapshot.compression.method="+method)
			}
			e := zktest.RealWith(t, zktest.RealOptions{ExtraConfig: cfg})
			m := e.Members()[0]
			c := zktest.Conn(t, e.ConnectString())
			acl := zk.WorldACL(zk.PermAll)
			if _, err := c.Create("/real", []byte("r"), zk.FlagPersistent, acl); err != nil {
				t.Fatal(err)
			}
			zktest.WriteTxnKinds(t, c, "/real")
			for i := range 30 {
				if _, err := c.Create(fmt.Sprintf("/real/n%02d", i), []byte(strings.Repeat("x", i*10)), zk.FlagPersistent, acl); err != nil {
					t.Fatal(err)
				}
			}
			m.WaitSnapshots(t)
			m.Kill(t)
			snaps, _ := filepath.Glob(filepath.Join(m.DataDir(), "version-2", "snapshot.*"))
			if len(snaps) < 2 {
				t.Fatalf("want snapshots taken while the server ran, found %v", snaps)
			}
			for _, s := range snaps {
				p := zktest.ZooKeeperTool(t, "org.apache.zookeeper.server.SnapshotFormatter", "-d", s)
				if p.Err != nil {
					p.Log(t)
					t.Fatal(p.Err)
				}
				r := compareWithFormatter(t, s, p.Stdout)
				want := map[string]Compression{"": Plain, "gz": Gzip, "snappy": Snappy}[method]
				if r.Compression() != want {
					t.Errorf("%s read as %s", s, r.Compression())
				}
			}
		})
	}
}
