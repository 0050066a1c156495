package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/syslayout"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// DigestUser and Password are the digest credentials Dir/acl's ACL grants
// everything to: a session that adds them reads it, and whoami and the
// ACL show the user's hostile name.
var DigestUser = User("user")

// Password goes with DigestUser.
const Password = "pw"

// The scene's sessions: the owners of its ephemeral nodes, listed by the
// servers' tables (cons, wchc) with hostile text.
const (
	Holder  = int64(0x1000000000000a1)
	Waiter  = int64(0x1000000000000a2)
	Kazoo   = int64(0x1000000000000a3)
	Leader  = int64(0x1000000000000a4)
	HMaster = int64(0x1000000000000a5)
	Broker  = int64(0x1000000000000a6)
)

// Sessions are the scene's sessions.
var Sessions = []int64{Holder, Waiter, Kazoo, Leader, HMaster, Broker}

// Base is where the scene's nodes are.
const Base = "/hostile"

// Paths of the scene.
var (
	// Dir holds text data, a child, text and JSON to edit (Dir/text,
	// Dir/json), a node whose ACL names DigestUser (Dir/acl), and a quota.
	Dir = Base + "/" + Name("dir")
	// Listed holds nodes named with every sequence: they can be listed,
	// not read (ZooKeeper's clients refuse such paths).
	Listed = Base + "/listed"
	// CuratorLock is a Curator lock: a holder, a waiter, a node whose
	// UUID holds a bidi override, and a stranger whose name warnings quote.
	CuratorLock = Base + "/locks/curator-" + Name("lock")
	// KazooLock is a Kazoo lock whose contenders' names are hostile before
	// "__lock__" (Kazoo finds contenders by what follows).
	KazooLock = Base + "/locks/kazoo"
	// Queue is a Curator queue of hostile items; Latch a LeaderLatch whose
	// participants' data is hostile.
	Queue = Base + "/queues/" + Name("queue")
	Latch = Base + "/elections/" + Name("latch")
	// Party and ShallowParty are Kazoo's groups, Lease a Kazoo
	// NonBlockingLease.
	Party        = Base + "/groups/" + Name("party")
	ShallowParty = Base + "/groups/shallow"
	Lease        = Base + "/leases/" + Name("lease")
	// HBase and Kafka are systems' roots: HBase's active and backup
	// masters, Kafka's controller and a broker, hostile host names.
	HBase = Base + "/systems/hbase"
	Kafka = Base + "/systems/kafka"
)

// Epoch is the scene's nodes' ctime and mtime.
var Epoch = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// Scene is the hostile scene being served.
type Scene struct {
	// Addr is where to connect: the proxy in front of the server.
	Addr   string
	server string // the server behind the proxy
	past   *zkserver.Past
	tree   *tree
}

// SetData changes a node's data, as a client's setData would: its
// watchers hear of it.
func (s *Scene) SetData(t testing.TB, p string, data []byte) {
	t.Helper()
	n, ok := s.tree.nodes[p]
	if !ok {
		t.Fatalf("hostile: no node %q in the scene", p)
	}
	s.tree.zxid++
	n.Data, n.Mzxid, n.Version = data, s.tree.zxid, n.Version+1
	s.tree.nodes[p] = n
	if err := s.past.Update(p, n); err != nil {
		t.Fatal(err)
	}
}

// WaitWatched waits, at most 20 s, until a session watches p's data, as
// the server's watch table (wchp) says.
func (s *Scene) WaitWatched(t testing.TB, p string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := net.Dial("tcp", s.server)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte("wchp"))
		answer, _ := io.ReadAll(conn)
		conn.Close()
		for _, line := range strings.Split(string(answer), "\n") {
			if line == p {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("hostile: nobody watches %q after 20s: %q", p, answer)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
}

// Serve serves the scene: a tree full of hostile text — in node names,
// data, recipes, systems' nodes, ACL ids, /zookeeper/config — from a
// read-only embedded server loaded as a data directory's past is (a
// hostile server or a crafted data directory may hold any name), behind
// a proxy that rewrites the four-letter words' answers with hostile text
// (see front.go); both stop at the end of the test.
func Serve(t testing.TB) *Scene {
	t.Helper()
	srv := zktest.EmbeddedServer(t, zkserver.Config{ReadOnly: true, Clock: func() time.Time { return Epoch }})
	past, err := srv.Past()
	if err != nil {
		t.Fatal(err)
	}
	sc := newTree()
	ms := Epoch.UnixMilli()
	open := []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
	sc.add("/zookeeper", nil, 0, open)
	// A member whose host and client address are hostile (no colon, no
	// bar, no semicolon: the configuration's separators).
	host := strings.NewReplacer(":", "", "|", "", ";", "", "\n", "").Replace(Text("member"))
	sc.add("/zookeeper/config", []byte("server.1="+host+":2888:3888:participant;"+host+":2181\nversion="+strings.ReplaceAll(Text("v"), "\n", "")), 0, open)
	sc.add(Base, []byte(Text("base data")), 0, open)
	sc.add(Dir, []byte(Text("text data")), 0, open)
	sc.add(Dir+"/"+Name("child"), []byte(Text("child data")), 0, open)
	sc.add(Dir+"/text", []byte(Name("text")), 0, open)
	// JSON escapes the control characters but C1's: zkx's editor takes it.
	noC1 := func(s string) string { return strings.ReplaceAll(s, "\u009b", "") }
	sc.add(Dir+"/json", jsonOf(map[string]any{noC1(UTF8("key")): noC1(UTF8("json")), "n": 1}), 0, open)
	digest := zk.DigestACL(zk.PermAll, DigestUser, Password)[0]
	sc.add(Dir+"/acl", []byte(Text("acl data")), 0, []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: digest.Scheme, ID: digest.ID}}})
	// A quota on Dir, whose path quota lists.
	sc.add("/zookeeper/quota"+Dir+"/zookeeper_limits", []byte("count=100,bytes=-1"), 0, open)
	sc.add("/zookeeper/quota"+Dir+"/zookeeper_stats", []byte("count=5,bytes=1000"), 0, open)
	for _, s := range Sequences {
		sc.add(Listed+"/"+strings.ReplaceAll("name "+s.Text, "/", ""), []byte("x"), 0, open)
	}
	sc.add(Listed+"/"+strings.ReplaceAll(Text("all"), "/", ""), []byte("x"), 0, open)

	curator := func(uuid string, seq int) string { return fmt.Sprintf("_c_%s-lock-%010d", uuid, seq) }
	sc.add(CuratorLock+"/"+curator("2b1f1b9e-6a42-4d3e-9a3e-2a7f36a1c001", 1), []byte(Text("holder ip")), Holder, open)
	sc.add(CuratorLock+"/"+curator("2b1f1b9e-6a42-4d3e-9a3e-2a7f36a1c002", 2), []byte(Text("waiter ip")), Waiter, open)
	sc.add(CuratorLock+"/"+Name("stranger"), []byte(Text("stranger")), 0, open)
	sc.add(CuratorLock+"/"+curator("2b1f1b9e-6a42-4d3e\u202e-9a3e-2a7f36a1c003", 3), []byte(Text("bad uuid")), Waiter, open)
	sc.add(KazooLock+"/"+Name("kz")+"__lock__0000000001", []byte(Text("kazoo holder")), Kazoo, open)
	sc.add(KazooLock+"/"+Name("kz2")+"__lock__0000000002", []byte(Text("kazoo waiter")), Waiter, open)
	for i := 1; i <= 3; i++ {
		sc.add(fmt.Sprintf("%s/queue-%010d", Queue, i), []byte(Text(fmt.Sprintf("item %d", i))), 0, open)
	}
	sc.add(Latch+"/_c_2b1f1b9e-6a42-4d3e-9a3e-2a7f36a1c0a4-latch-0000000001", []byte(Text("leader id")), Leader, open)
	sc.add(Latch+"/_c_2b1f1b9e-6a42-4d3e-9a3e-2a7f36a1c0a5-latch-0000000002", []byte(Text("follower id")), Waiter, open)

	// A Kazoo Party and a ShallowParty, whose members' identifiers are
	// hostile (in their data; in a ShallowParty's names too), and a Kazoo
	// NonBlockingLease whose holder is.
	sc.add(Party+"/2b1f1b9e6a424d3e9a3e2a7f36a1c0b1__party__", []byte(Text("party member")), Holder, open)
	sc.add(Party+"/2b1f1b9e6a424d3e9a3e2a7f36a1c0b2__party__", []byte(Text("party member 2")), Waiter, open)
	sc.add(ShallowParty+"/2b1f1b9e6a424d3e9a3e2a7f36a1c0b3-"+Name("member"), []byte(Name("member")), Holder, open)
	sc.add(Lease+"/2b1f1b9e6a424d3e9a3e2a7f36a1c0b4__lock__0000000001", []byte(Text("lease holder")), Kazoo, open)
	sc.add(Lease+"/lease_holder", jsonOf(map[string]any{"version": 1, "holder": UTF8("lease holder"), "end": Epoch.Add(time.Hour).Format("2006-01-02T15:04:05")}), 0, open)

	master := func(host string) []byte {
		name := syslayout.PB{}.String(1, host).Varint(2, 16000).Varint(3, uint64(ms))
		return syslayout.HBaseValue("4242@"+host, syslayout.PB{}.Message(1, name).Varint(2, 0).Varint(3, 16010))
	}
	sc.add(HBase+"/master", master(Text("hmaster")), HMaster, open)
	sc.add(HBase+"/backup-masters/"+syslayout.HBaseServerName(Name("hbackup"), 16000, ms), master(Text("hbackup")), Waiter, open)
	sc.add(HBase+"/rs", nil, 0, open)
	broker := UTF8("broker")
	sc.add(Kafka+"/brokers/ids/1", jsonOf(map[string]any{"features": map[string]any{}, "listener_security_protocol_map": map[string]string{"PLAINTEXT": "PLAINTEXT"},
		"endpoints": []string{"PLAINTEXT://" + broker + ":9092"}, "jmx_port": -1, "port": 9092, "host": broker, "version": 5, "timestamp": fmt.Sprint(ms)}), Broker, open)
	sc.add(Kafka+"/controller", jsonOf(map[string]any{"version": 2, "brokerid": 1, "timestamp": fmt.Sprint(ms), "kraftControllerEpoch": -1, "note": UTF8("controller")}), Broker, open)
	sc.add(Kafka+"/controller_epoch", []byte("7"), 0, open)

	sessions := map[int64]time.Duration{}
	for _, id := range Sessions {
		sessions[id] = 30 * time.Second
	}
	if err := past.Load(sc.yield, len(sc.order), sessions, 0x100); err != nil {
		t.Fatal(err)
	}
	return &Scene{Addr: front(t, srv.Addr().String()), server: srv.Addr().String(), past: past, tree: sc}
}

// jsonOf is v as JSON: control characters as \u escapes, bidi overrides
// as they are, as a JSON writer leaves them.
func jsonOf(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// tree collects nodes for zkserver.Past.Load, parents first.
type tree struct {
	nodes map[string]zkserver.PastNode
	order []string
	zxid  int64
}

func newTree() *tree {
	st := &tree{nodes: map[string]zkserver.PastNode{}}
	st.put("/", zkserver.PastNode{ACL: []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}})
	return st
}

func (st *tree) put(p string, n zkserver.PastNode) {
	st.zxid++
	ms := Epoch.UnixMilli()
	n.Czxid, n.Mzxid, n.Pzxid, n.Ctime, n.Mtime = st.zxid, st.zxid, st.zxid, ms, ms
	st.nodes[p] = n
	st.order = append(st.order, p)
}

// add puts a node and the parents it lacks (persistent, open).
func (st *tree) add(p string, data []byte, owner int64, acl []jute.ACL) {
	if parent := path.Dir(p); parent != "/" {
		if _, ok := st.nodes[parent]; !ok {
			st.add(parent, nil, 0, []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}})
		}
	}
	st.put(p, zkserver.PastNode{Data: data, ACL: acl, Owner: owner})
}

func (st *tree) yield(yield func(string, zkserver.PastNode) bool) {
	for _, p := range st.order {
		if !yield(p, st.nodes[p]) {
			return
		}
	}
}
