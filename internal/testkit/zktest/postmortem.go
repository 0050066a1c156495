package zktest

import (
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/datadir"
)

// PostmortemBase is where the post-mortem scenario works.
const PostmortemBase = "/pm"

// The recipes of the post-mortem scenario.
const (
	PostmortemCuratorLock     = PostmortemBase + "/curator-lock"
	PostmortemKazooLock       = PostmortemBase + "/kazoo-lock"
	PostmortemCuratorElection = PostmortemBase + "/curator-election"
	PostmortemKazooQueue      = PostmortemBase + "/kazoo-queue"
	// PostmortemApp is an application's configuration that ops writes and
	// a zkCli.sh session then changes by hand.
	PostmortemApp = PostmortemBase + "/app"
)

// PostmortemOpsPassword is the password of the digest user ops, who
// writes PostmortemApp and force-releases a lock ("ops:" + it).
const PostmortemOpsPassword = "ops-secret"

// The digest users the scenario's clients authenticate as (user:password).
var postmortemDigests = map[string]string{
	"A": "billing:billing-pw", "C": "reports:reports-pw", "K1": "worker:worker-pw", "D": "batch:batch-pw",
}

// Postmortem is what RunPostmortem left: a stopped real ZooKeeper's
// data directory and what happened in it, step by step.
type Postmortem struct {
	// DataDir is the server's dataDir (its files are in version-2).
	DataDir string
	// Sessions are the scenario's sessions by name: A, B, C (Curator),
	// K1, K2, D (Kazoo; D's process was killed, its session expired) and
	// admin (go-zookeeper: the force-release, the multis, the odd types).
	Sessions map[string]int64
	// ChainZxid is the zxid at which A held PostmortemCuratorLock and B,
	// then C, waited behind it.
	ChainZxid int64
	// ForceDeleted is C's lock node that ops force-released while C held
	// it (Sessions["unlock"] is the session that deleted it).
	ForceDeleted string
	// AppGoodZxid is the last transaction of ops's writes of
	// PostmortemApp, before zkCli.sh changed it.
	AppGoodZxid int64
	// AuditDir is the folder of the server's audit log
	// (zookeeper_audit.log and its rotated copies), AuditZoned the same
	// events with zoned times, ServerLog the server's own log, the audit
	// events among its other lines (see RealOptions.Audit).
	AuditDir, AuditZoned, ServerLog string
	// Server is the stopped server: Members()[0].Restart brings the
	// scenario's end back live, on the same data directory.
	Server *Ensemble
}

// PostmortemOptions change how the scenario plays.
type PostmortemOptions struct {
	// ForceRelease, when set, force-releases the lock at path (one holder,
	// no waiter) as ops — the tests run zkx unlock with --auth
	// digest:ops:PostmortemOpsPassword. Without it a session authenticated
	// as ops deletes the holder's node at its version, as zkx unlock does.
	ForceRelease func(t testing.TB, connect, path string)
}

// RunPostmortem starts a real ZooKeeper 3.8 (snapshots every 10 to 20
// transactions, small log preallocation), plays the post-mortem scenario
// on it with Curator, Kazoo and go-zookeeper, stops it with SIGKILL and
// returns its data directory:
//
//	PostmortemCuratorLock     A holds, B and C queue (ChainZxid); A, B, C release in turn;
//	PostmortemCuratorElection LeaderLatch: A leads, B waits, A resigns, B leads, B resigns
//	PostmortemKazooLock       K1 holds, K2 waits; K1 releases; K2 releases
//	PostmortemKazooQueue      K1 puts a, b, c; K2 takes a and b
//	PostmortemKazooLock       D holds, K1 waits; D's process is SIGKILLed and its
//	                          session expires; K1 holds, releases
//	PostmortemKazooLock       K2 holds and closes its session
//	PostmortemCuratorLock     C holds; ops force-releases it (PostmortemOptions.ForceRelease)
//	PostmortemBase            admin's multis: one that commits, one that fails; a TTL
//	                          node, a container, a setACL, a failed create
//	PostmortemApp             ops writes the application's nodes (one readable by ops
//	                          only, one ephemeral of ops's session: AppGoodZxid); a
//	                          zkCli.sh session changes a node's data and a node's ACL,
//	                          deletes a node and creates another
//	PostmortemCuratorLock     A holds to the end
//
// The server writes its audit log (RealOptions.Audit). A (Curator), C
// (Curator), K1 and D (Kazoo) authenticate as the digest users billing,
// reports, worker and batch; B, K2, admin and zkCli.sh do not; ops is a
// digest user too. It skips (fails under ZKX_REAL_ZK=required) when
// ZooKeeper, Curator, Kazoo or zkCli.sh is missing.
func RunPostmortem(t testing.TB) *Postmortem {
	t.Helper()
	return RunPostmortemWith(t, PostmortemOptions{})
}

// RunPostmortemWith is RunPostmortem with options.
func RunPostmortemWith(t testing.TB, opts PostmortemOptions) *Postmortem {
	t.Helper()
	curatorCP := postmortemCuratorClasspath(t)
	python := KazooPython(t)
	zkCli := DebianFile(t, "zookeeper", "/bin/zkCli.sh", "apt-get install -y zookeeper")
	e := RealWith(t, RealOptions{Audit: true, ExtraConfig: []string{"snapCount=20", "preAllocSize=16"}})
	m := e.Members()[0]
	connect := e.ConnectString()
	pm := &Postmortem{DataDir: m.DataDir(), Sessions: map[string]int64{},
		AuditDir: m.AuditDir(), AuditZoned: m.AuditZonedFile(), ServerLog: m.LogFile(), Server: e}

	admin := Conn(t, connect)
	pm.Sessions["admin"] = admin.SessionID()
	acl := zk.WorldACL(zk.PermAll)
	if _, err := admin.Create(PostmortemBase, []byte("post-mortem"), zk.FlagPersistent, acl); err != nil {
		t.Fatalf("create %s: %v", PostmortemBase, err)
	}
	kazooPy := filepath.Join(postmortemTestdata(), "pm_peer.py")
	curator := StartLinePeer(t, Java(t), append(append([]string{}, JavaQuietFlags...), "-cp", curatorCP, "PmPeer", connect)...)
	kazoo := StartLinePeer(t, python, kazooPy, connect)
	open := func(p *LinePeer, name, cmd string) {
		if digest := postmortemDigests[name]; digest != "" {
			cmd += " " + digest
		}
		line := p.Do(t, cmd, "opened "+name+" ")
		id, err := strconv.ParseUint(strings.TrimPrefix(strings.Fields(line)[2], "0x"), 16, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", p, line, err)
		}
		pm.Sessions[name] = int64(id)
	}
	for _, n := range []string{"A", "B", "C"} {
		open(curator, n, "open "+n)
	}
	for _, n := range []string{"K1", "K2"} {
		open(kazoo, n, "open "+n+" 30")
	}

	// A Curator lock's chain, and three handoffs.
	cl := PostmortemCuratorLock
	curator.Do(t, "lock A "+cl, "locked A "+cl)
	curator.Send(t, "lock B "+cl)
	waitChildren(t, admin, cl, 2)
	curator.Send(t, "lock C "+cl)
	waitChildren(t, admin, cl, 3)
	_, st, err := admin.Exists(cl)
	if err != nil {
		t.Fatalf("exists %s: %v", cl, err)
	}
	pm.ChainZxid = st.Pzxid
	curator.Send(t, "unlock A "+cl)
	curator.Expect(t, "locked B "+cl)
	curator.Send(t, "unlock B "+cl)
	curator.Expect(t, "locked C "+cl)
	curator.Do(t, "unlock C "+cl, "unlocked C "+cl)

	// A Curator election.
	el := PostmortemCuratorElection
	curator.Do(t, "lead A "+el, "leading A "+el)
	curator.Send(t, "lead B "+el)
	waitChildren(t, admin, el, 2)
	curator.Send(t, "resign A "+el)
	curator.Expect(t, "leading B "+el)
	curator.Do(t, "resign B "+el, "resigned B "+el)

	// A Kazoo lock's handoff.
	kl := PostmortemKazooLock
	kazoo.Do(t, "lock K1 "+kl, "locked K1 "+kl)
	kazoo.Send(t, "lock K2 "+kl)
	waitChildren(t, admin, kl, 2)
	kazoo.Send(t, "unlock K1 "+kl)
	kazoo.Expect(t, "locked K2 "+kl)
	kazoo.Do(t, "unlock K2 "+kl, "unlocked K2 "+kl)

	// A Kazoo queue.
	q := PostmortemKazooQueue
	for _, item := range []string{"a", "b", "c"} {
		kazoo.Do(t, "put K1 "+q+" "+item, "put K1 "+q+" "+item)
	}
	kazoo.Do(t, "take K2 "+q, "took K2 "+q+" a")
	kazoo.Do(t, "take K2 "+q, "took K2 "+q+" b")

	// A holder whose process dies: its session expires.
	doomed := StartLinePeer(t, python, kazooPy, connect)
	open(doomed, "D", "open D 2")
	doomed.Do(t, "lock D "+kl, "locked D "+kl)
	kazoo.Send(t, "lock K1 "+kl)
	waitChildren(t, admin, kl, 2)
	doomed.Kill(t)
	kazoo.Expect(t, "locked K1 "+kl)
	kazoo.Do(t, "unlock K1 "+kl, "unlocked K1 "+kl)

	// A holder that closes its session.
	kazoo.Do(t, "lock K2 "+kl, "locked K2 "+kl)
	kazoo.Do(t, "close K2", "closed K2")

	// A force-release: ops deletes the holder's node.
	curator.Do(t, "lock C "+cl, "locked C "+cl)
	children, _, err := admin.Children(cl)
	if err != nil || len(children) != 1 {
		t.Fatalf("children of %s while C holds: %v %v", cl, children, err)
	}
	pm.ForceDeleted = cl + "/" + children[0]
	release := opts.ForceRelease
	if release == nil {
		release = opsRelease
	}
	release(t, connect, cl)
	if ok, _, err := admin.Exists(pm.ForceDeleted); ok || err != nil {
		t.Fatalf("%s after the force-release: exists %v, %v", pm.ForceDeleted, ok, err)
	}
	// The lock's pzxid is its last child's deletion: the force-release.
	_, lockStat, err := admin.Exists(cl)
	if err != nil {
		t.Fatalf("exists %s: %v", cl, err)
	}
	pm.Sessions["unlock"] = deleterOf(t, m.DataDir(), pm.ForceDeleted, lockStat.Pzxid)
	curator.Do(t, "unlock C "+cl, "unlocked C "+cl)

	WriteTxnKinds(t, admin, PostmortemBase)

	// An application's configuration, then a change by hand.
	ops := Conn(t, connect)
	if err := ops.AddAuth("digest", []byte("ops:"+PostmortemOpsPassword)); err != nil {
		t.Fatalf("ops: addAuth: %v", err)
	}
	pm.Sessions["ops"] = ops.SessionID()
	pm.AppGoodZxid = writeApp(t, ops)
	RunProgram(t, livePeerDeadline, zkCliIncident, true, zkCli, "-server", connect).ExpectLine(t, "[config, flags, instance, junk, secret]")

	// A holds to the end.
	curator.Do(t, "lock A "+cl, "locked A "+cl)
	// The peers die without a word and the server with them, before any
	// session can expire: what the logs hold is final.
	curator.Kill(t)
	kazoo.Kill(t)
	m.WaitSnapshots(t) // a snapshot half written is not the past
	m.Kill(t)
	return pm
}

// opsRelease force-releases the lock at path as zkx unlock does: a
// session authenticated as ops deletes its one child at its version.
func opsRelease(t testing.TB, connect, path string) {
	c := Conn(t, connect)
	defer c.Close()
	if err := c.AddAuth("digest", []byte("ops:"+PostmortemOpsPassword)); err != nil {
		t.Fatalf("ops: addAuth: %v", err)
	}
	children, _, err := c.Children(path)
	if err != nil || len(children) != 1 {
		t.Fatalf("children of %s: %v %v", path, children, err)
	}
	node := path + "/" + children[0]
	_, st, err := c.Get(node)
	if err != nil {
		t.Fatalf("get %s: %v", node, err)
	}
	if err := c.Delete(node, st.Version); err != nil {
		t.Fatalf("force-release %s: %v", node, err)
	}
}

// writeApp writes PostmortemApp as ops: data, a node only ops may read,
// children, an ephemeral node of ops's session. It returns the zxid of
// the last write.
func writeApp(t testing.TB, ops *zk.Conn) int64 {
	t.Helper()
	world := zk.WorldACL(zk.PermAll)
	opsOnly := zk.DigestACL(zk.PermAll, "ops", PostmortemOpsPassword)
	for _, n := range []struct {
		path, data string
		acl        []zk.ACL
		flags      int32
	}{
		{PostmortemApp, "app", world, 0},
		{PostmortemApp + "/config", "v1", world, 0},
		{PostmortemApp + "/secret", "s3cret", opsOnly, 0},
		{PostmortemApp + "/flags", "", world, 0},
		{PostmortemApp + "/flags/a", "1", world, 0},
		{PostmortemApp + "/flags/b", "2", world, 0},
		{PostmortemApp + "/instance", "ops@host", world, zk.FlagEphemeral},
	} {
		if _, err := ops.Create(n.path, []byte(n.data), n.flags, n.acl); err != nil {
			t.Fatalf("create %s: %v", n.path, err)
		}
	}
	_, st, err := ops.Exists(PostmortemApp + "/instance")
	if err != nil {
		t.Fatalf("exists %s/instance: %v", PostmortemApp, err)
	}
	return st.Czxid
}

// zkCliIncident is what a zkCli.sh session (no authentication) does to
// PostmortemApp: a node's data, a node's ACL (read and admin only: no one
// may create below it until it is put back), a node deleted, one created.
var zkCliIncident = strings.NewReplacer("$APP", PostmortemApp).Replace(`set $APP/config v2
delete $APP/flags/a
setAcl $APP/flags world:anyone:ra
create $APP/junk x
ls $APP
quit
`)

// WriteTxnKinds writes, under base (which must exist), transactions of
// the kinds recipes do not write: multis (one committed, one failed), an
// ephemeral and a sequential node, TTL and container nodes (the container
// removed by the server), an ACL change, a failed create, data changes.
// The server must run with extended types (zktest's real servers do).
func WriteTxnKinds(t testing.TB, admin *zk.Conn, base string) {
	t.Helper()
	acl := zk.WorldACL(zk.PermAll)
	a, b := base+"/multi-a", base+"/multi-b"
	if _, err := admin.Multi(
		&zk.CreateRequest{Path: a, Data: []byte("1"), Acl: acl},
		&zk.CreateRequest{Path: b, Data: []byte("2"), Acl: acl},
		&zk.SetDataRequest{Path: a, Data: []byte("3"), Version: 0},
		&zk.DeleteRequest{Path: b, Version: -1},
	); err != nil {
		t.Fatalf("multi: %v", err)
	}
	if _, err := admin.Multi(
		&zk.SetDataRequest{Path: a, Data: []byte("4"), Version: -1},
		&zk.CreateRequest{Path: a, Data: []byte("dup"), Acl: acl},
		&zk.DeleteRequest{Path: a, Version: -1},
	); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("failing multi: %v, want node exists", err)
	}
	if _, err := admin.Create(a, nil, zk.FlagPersistent, acl); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("duplicate create: %v, want node exists", err)
	}
	if _, err := admin.Create(base+"/eph", []byte("mine"), zk.FlagEphemeral, acl); err != nil {
		t.Fatalf("create ephemeral: %v", err)
	}
	if _, err := admin.Create(base+"/seq-", nil, zk.FlagSequence, acl); err != nil {
		t.Fatalf("create sequential: %v", err)
	}
	if _, err := admin.CreateTTL(base+"/ttl", []byte("t"), zk.FlagTTL, acl, time.Hour); err != nil {
		t.Fatalf("create TTL node: %v", err)
	}
	// A container the server removes itself (deleteContainer) once its
	// only child is gone.
	container := base + "/container"
	if _, err := admin.CreateContainer(container, nil, zk.FlagContainer, acl); err != nil {
		t.Fatalf("create container: %v", err)
	}
	if _, err := admin.Create(container+"/child", nil, zk.FlagPersistent, acl); err != nil {
		t.Fatalf("create in container: %v", err)
	}
	if err := admin.Delete(container+"/child", -1); err != nil {
		t.Fatalf("delete in container: %v", err)
	}
	waitGone(t, admin, container)
	if _, err := admin.SetACL(a, zk.DigestACL(zk.PermAll, "ops", "secret"), -1); err != nil {
		t.Fatalf("setACL: %v", err)
	}
	if _, err := admin.Set(base, []byte("post-mortem done"), -1); err != nil {
		t.Fatalf("setData: %v", err)
	}
}

// waitChildren waits, on watches, until path has at least n children.
func waitChildren(t testing.TB, c *zk.Conn, path string, n int) {
	t.Helper()
	deadline := time.After(livePeerDeadline)
	for {
		children, _, ch, err := c.ChildrenW(path)
		if errors.Is(err, zk.ErrNoNode) {
			var ok bool
			ok, _, ch, err = c.ExistsW(path)
			if ok {
				continue
			}
		}
		if err != nil {
			t.Fatalf("children of %s: %v", path, err)
		}
		if len(children) >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s: %d children, not %d, within %v", path, len(children), n, livePeerDeadline)
		}
	}
}

// waitGone waits, on a watch, until path does not exist.
func waitGone(t testing.TB, c *zk.Conn, path string) {
	t.Helper()
	deadline := time.After(livePeerDeadline)
	for {
		ok, _, ch, err := c.ExistsW(path)
		if err != nil {
			t.Fatalf("exists %s: %v", path, err)
		}
		if !ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s still there after %v", path, livePeerDeadline)
		}
	}
}

// postmortemTestdata is the project's testdata/postmortem.
func postmortemTestdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "postmortem")
}

// postmortemCuratorClasspath compiles the Curator peer.
func postmortemCuratorClasspath(t testing.TB) string {
	t.Helper()
	return CompileCurator(t, filepath.Join(postmortemTestdata(), "PmPeer.java"))
}

// deleterOf asks ZooKeeper's TxnLogToolkit which session deleted path at
// zxid. It reads the log that holds zxid first (each read starts a JVM,
// so reading the logs before it cost the scenario seconds), then the
// later ones.
func deleterOf(t testing.TB, dataDir, path string, zxid int64) int64 {
	t.Helper()
	dir, err := datadir.Open(dataDir)
	if err != nil {
		t.Fatalf("data directory %s: %v", dataDir, err)
	}
	var logs []string
	for _, f := range dir.LogsFrom(zxid) {
		logs = append(logs, f.Path)
	}
	for _, log := range logs {
		p := ZooKeeperTool(t, "org.apache.zookeeper.server.persistence.TxnLogToolkit", log)
		for _, line := range strings.Split(p.Stdout, "\n") {
			// "… session 0x1000011bb3a0007 cxid 0x7 zxid 0x2e delete '/pm/…"
			before, ok := strings.CutSuffix(strings.TrimSpace(line), " delete '"+path)
			_, session, found := strings.Cut(before, " session 0x")
			if !ok || !found {
				continue
			}
			id, err := strconv.ParseUint(strings.Fields(session)[0], 16, 64)
			if err != nil {
				t.Fatalf("TxnLogToolkit %s: %q: %v", log, line, err)
			}
			return int64(id)
		}
	}
	t.Fatalf("TxnLogToolkit finds no delete of %s in %v", path, logs)
	return 0
}
