package zkserver_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

var openACL = []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}

// pastTree yields a small tree as a snapshot would list it.
func pastTree(nodes map[string]zkserver.PastNode, order []string) func(func(string, zkserver.PastNode) bool) {
	return func(yield func(string, zkserver.PastNode) bool) {
		for _, p := range order {
			if !yield(p, nodes[p]) {
				return
			}
		}
	}
}

// TestPastServer loads a state into a read-only server and changes it
// through Past: a client reads it as it was loaded (stats included), hears
// each change on its watches, cannot write, and the loaded session that
// owns an ephemeral node does not expire.
func TestPastServer(t *testing.T) {
	t.Parallel()
	s := zktest.EmbeddedServer(t, zkserver.Config{ReadOnly: true})
	if _, err := zktest.EmbeddedServer(t, zkserver.Config{}).Past(); !errors.Is(err, zkserver.ErrNotReadOnly) {
		t.Fatalf("Past on a read-write server: %v", err)
	}
	past, err := s.Past()
	if err != nil {
		t.Fatal(err)
	}
	const owner = int64(0x100000f4c810001)
	nodes := map[string]zkserver.PastNode{
		"/":          {ACL: openACL, Cversion: 2, Pzxid: 5},
		"/zookeeper": {ACL: openACL},
		"/app":       {Data: []byte("a"), ACL: openACL, Czxid: 2, Mzxid: 3, Pzxid: 5, Ctime: 1000, Mtime: 2000, Version: 1, Cversion: 3},
		"/app/lock":  {Data: []byte("10.0.0.1"), ACL: openACL, Czxid: 5, Mzxid: 5, Pzxid: 5, Ctime: 3000, Mtime: 3000, Owner: owner},
	}
	order := []string{"/", "/zookeeper", "/app", "/app/lock"}
	if err := past.Load(pastTree(nodes, order), 4, map[int64]time.Duration{owner: 200 * time.Millisecond}, 5); err != nil {
		t.Fatal(err)
	}
	c, _ := gozkConnect(t, s.ConnectString())
	data, st, err := c.Get("/app")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "a" || st.Czxid != 2 || st.Mzxid != 3 || st.Version != 1 || st.Cversion != 3*2-1 || st.NumChildren != 1 || st.Ctime != 1000 {
		t.Errorf("/app read back as %q %+v", data, st)
	}
	if _, st, err := c.Get("/app/lock"); err != nil || st.EphemeralOwner != owner {
		t.Errorf("/app/lock: %+v %v", st, err)
	}
	// go-zookeeper knows no NOTREADONLY (-119): it says "unknown error".
	if _, err := c.Create("/app/x", nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err == nil || !strings.Contains(err.Error(), "-119") {
		t.Errorf("create on a read-only server: %v", err)
	}
	if err := c.Delete("/app/lock", -1); err == nil || !strings.Contains(err.Error(), "-119") {
		t.Errorf("delete on a read-only server: %v", err)
	}
	if got := past.Ephemerals(owner); len(got) != 1 || got[0] != "/app/lock" {
		t.Errorf("ephemerals of the loaded session: %v", got)
	}
	// dump tells the past's ephemerals by session, and neither expiries
	// nor connections: the viewer's is not the past's.
	dump, err := zktest.FourLetter(s.ConnectString(), "dump", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dump, "0x100000f4c810001:\n\t/app/lock") || !strings.Contains(dump, "Session Sets (0)/") ||
		!strings.Contains(dump, "Connections Sets (1)/(0)") {
		t.Errorf("dump of a read-only server:\n%s", dump)
	}

	// A change through Past reaches the watches it fires.
	_, _, dataW, err := c.GetW("/app")
	if err != nil {
		t.Fatal(err)
	}
	_, _, childW, err := c.ChildrenW("/app")
	if err != nil {
		t.Fatal(err)
	}
	app := nodes["/app"]
	app.Data, app.Mzxid, app.Version = []byte("b"), 6, 2
	if err := past.Update("/app", app); err != nil {
		t.Fatal(err)
	}
	if ev := waitEvent(t, dataW); ev.Type != zk.EventNodeDataChanged || ev.Path != "/app" {
		t.Errorf("after Update: %+v", ev)
	}
	if err := past.Delete("/app/lock"); err != nil {
		t.Fatal(err)
	}
	if ev := waitEvent(t, childW); ev.Type != zk.EventNodeChildrenChanged || ev.Path != "/app" {
		t.Errorf("after Delete: %+v", ev)
	}
	if err := past.Delete("/app/lock"); err == nil {
		t.Error("a node deleted twice")
	}
	if err := past.Create("/nowhere/x", zkserver.PastNode{}); err == nil {
		t.Error("a node created under a missing parent")
	}
	_, _, existsW, err := c.ExistsW("/app/lock")
	if err != nil {
		t.Fatal(err)
	}
	if err := past.Create("/app/lock", nodes["/app/lock"]); err != nil {
		t.Fatal(err)
	}
	if ev := waitEvent(t, existsW); ev.Type != zk.EventNodeCreated {
		t.Errorf("after Create: %+v", ev)
	}
	past.SetZxid(9)
	if _, st, err := c.Get("/app"); err != nil || st.Mzxid != 6 {
		t.Errorf("after SetZxid: %+v %v", st, err)
	}

	// The loaded session's timeout (200 ms) passes many times over: it
	// stays, with its node, while the server lives.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if _, _, err := c.Get("/app/lock"); err != nil {
			t.Fatalf("the past's ephemeral went: %v", err)
		}
		time.Sleep(100 * time.Millisecond) // time must pass: the test is that nothing happens
	}
	if ids := s.SessionIDs(); len(ids) != 2 {
		t.Errorf("sessions %x, want the loaded one and the client's", ids)
	}

	// A reload tells the watchers.
	_, _, dataW, err = c.GetW("/app")
	if err != nil {
		t.Fatal(err)
	}
	delete(nodes, "/app/lock")
	if err := past.Load(pastTree(nodes, order[:3]), 3, nil, 3); err != nil {
		t.Fatal(err)
	}
	if ev := waitEvent(t, dataW); ev.Type != zk.EventNodeDataChanged {
		t.Errorf("after Load: %+v", ev)
	}
	if ids := s.SessionIDs(); len(ids) != 1 {
		t.Errorf("after a Load without sessions: sessions %x, want the client's", ids)
	}
	if err := past.Load(pastTree(nodes, []string{"/app"}), 1, nil, 3); err == nil {
		t.Error("a tree without its root loaded")
	}
}
