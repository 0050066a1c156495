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
)

// PostmortemBase is where the post-mortem scenario works.
const PostmortemBase = "/pm"

// The recipes of the post-mortem scenario.
const (
	PostmortemCuratorLock     = PostmortemBase + "/curator-lock"
	PostmortemKazooLock       = PostmortemBase + "/kazoo-lock"
	PostmortemCuratorElection = PostmortemBase + "/curator-election"
	PostmortemKazooQueue      = PostmortemBase + "/kazoo-queue"
)

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
	// ForceDeleted is C's lock node that admin deleted while C held it.
	ForceDeleted string
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
//	PostmortemCuratorLock     C holds; admin deletes C's node (a force-release)
//	PostmortemBase            admin's multis: one that commits, one that fails; a TTL
//	                          node, a container, a setACL, a failed create
//	PostmortemCuratorLock     A holds to the end
//
// It skips (fails under ZKX_REAL_ZK=required) when ZooKeeper, Curator or
// Kazoo is missing.
func RunPostmortem(t testing.TB) *Postmortem {
	t.Helper()
	curatorCP := postmortemCuratorClasspath(t)
	python := KazooPython(t)
	e := RealWith(t, RealOptions{ExtraConfig: []string{"snapCount=20", "preAllocSize=16"}})
	m := e.Members()[0]
	connect := e.ConnectString()
	pm := &Postmortem{DataDir: m.DataDir(), Sessions: map[string]int64{}}

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

	// A force-release: admin deletes the holder's node.
	curator.Do(t, "lock C "+cl, "locked C "+cl)
	children, _, err := admin.Children(cl)
	if err != nil || len(children) != 1 {
		t.Fatalf("children of %s while C holds: %v %v", cl, children, err)
	}
	pm.ForceDeleted = cl + "/" + children[0]
	if err := admin.Delete(pm.ForceDeleted, -1); err != nil {
		t.Fatalf("force-release %s: %v", pm.ForceDeleted, err)
	}
	curator.Do(t, "unlock C "+cl, "unlocked C "+cl)

	WriteTxnKinds(t, admin, PostmortemBase)

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
