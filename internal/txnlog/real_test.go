package txnlog

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestRealLogsAgreeWithTxnLogToolkit has a real ZooKeeper 3.8 write
// transactions of every kind, then compares each log it wrote with what
// ZooKeeper's TxnLogToolkit prints for the same file.
func TestRealLogsAgreeWithTxnLogToolkit(t *testing.T) {
	t.Parallel()
	e := zktest.RealWith(t, zktest.RealOptions{ExtraConfig: []string{"snapCount=30", "preAllocSize=16"}})
	m := e.Members()[0]
	c := zktest.Conn(t, e.ConnectString())
	if _, err := c.Create("/real", []byte("r"), zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	zktest.WriteTxnKinds(t, c, "/real")
	for i := range 40 { // enough for a snapshot, and a new log after it
		if _, err := c.Create(fmt.Sprintf("/real/n%02d", i), []byte("data, with a comma"), zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	// A session that ends with ephemerals: its closeSession names them.
	other, _, err := zk.Connect([]string{e.ConnectString()}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/real/e1", "/real/e2"} {
		if _, err := other.Create(p, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	other.Close()
	if _, err := c.Sync("/real"); err != nil { // the close is logged before this answers
		t.Fatal(err)
	}
	m.Kill(t)
	logs, _ := filepath.Glob(filepath.Join(m.DataDir(), "version-2", "log.*"))
	if len(logs) < 2 {
		t.Fatalf("want a log rolled by a snapshot, found %v", logs)
	}
	closes := 0
	for _, log := range logs {
		p := zktest.ZooKeeperTool(t, "org.apache.zookeeper.server.persistence.TxnLogToolkit", log)
		if p.Err != nil {
			p.Log(t)
			t.Fatal(p.Err)
		}
		compareWithToolkit(t, log, p.Stdout)
		for _, e := range readAll(t, log) {
			if cs, ok := e.Txn.(*CloseSessionTxn); ok && len(cs.Paths) == 2 {
				closes++
			}
		}
	}
	if closes != 1 {
		t.Errorf("%d closeSessions naming two ephemerals, want 1", closes)
	}
}
