package forensics

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestKafkaControllerHistory plays Kafka's controller election as the
// brokers write it (one ephemeral /controller, {"brokerid": N}) on a real
// ZooKeeper: broker 1 leads and its session closes, broker 2 takes over
// and leads to the end. The history of the single-node election names
// both leaders and how each ended.
func TestKafkaControllerHistory(t *testing.T) {
	t.Parallel()
	e := zktest.RealWith(t, zktest.RealOptions{ExtraConfig: []string{"preAllocSize=16"}})
	m := e.Members()[0]
	acl := zk.WorldACL(zk.PermAll)
	admin := zktest.Conn(t, e.ConnectString())
	for _, p := range []string{"/kafka", "/kafka/brokers", "/kafka/brokers/ids"} {
		if _, err := admin.Create(p, nil, zk.FlagPersistent, acl); err != nil {
			t.Fatal(err)
		}
	}
	brokers := []*zk.Conn{zktest.Conn(t, e.ConnectString()), zktest.Conn(t, e.ConnectString())}
	for i, b := range brokers {
		reg := fmt.Sprintf(`{"version":5,"host":"kafka-%d","port":9092,"endpoints":["PLAINTEXT://kafka-%d:9092"]}`, i+1, i+1)
		if _, err := b.Create(fmt.Sprintf("/kafka/brokers/ids/%d", i+1), []byte(reg), zk.FlagEphemeral, acl); err != nil {
			t.Fatal(err)
		}
	}
	controller := func(i int) {
		t.Helper()
		data := fmt.Sprintf(`{"version":2,"brokerid":%d,"timestamp":"1700000000000"}`, i+1)
		if _, err := brokers[i].Create("/kafka/controller", []byte(data), zk.FlagEphemeral, acl); err != nil {
			t.Fatal(err)
		}
	}
	controller(0)
	first := brokers[0].SessionID()
	brokers[0].Close() // its closeSession removes /kafka/controller
	waitGone(t, admin, "/kafka/controller")
	controller(1)
	if _, err := admin.Sync("/kafka"); err != nil {
		t.Fatal(err)
	}
	m.WaitSnapshots(t)
	m.Kill(t)

	arch, err := OpenArchive(filepath.Join(m.DataDir()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Histories(context.Background(), arch, "/kafka", HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := findHistory(t, res, "/kafka/controller")
	if h.System != "kafka" || h.Role != "controller" || h.Recipe != "election" || len(h.Leaders) != 2 {
		t.Fatalf("/kafka/controller: %+v", h)
	}
	one, two := h.Leaders[0], h.Leaders[1]
	if one.Session != display.Hex(first) || one.Ended != EndedSessionClosed || two.Session != display.Hex(brokers[1].SessionID()) || two.Ended != EndedHeld {
		t.Errorf("leaders: %+v", h.Leaders)
	}
}

// waitGone waits, on a watch, until path does not exist.
func waitGone(t *testing.T, c *zk.Conn, path string) {
	t.Helper()
	for {
		ok, _, ch, err := c.ExistsW(path)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s still there after 30 s", path)
		}
	}
}
