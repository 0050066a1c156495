package zkserver_test

import (
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestConformance runs every case on the embedded server and on real
// ZooKeeper; both must reproduce the golden recorded from real ZooKeeper.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, c := range conformanceCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			zktest.Each(t, func(t *testing.T, connect string) {
				e := newEnv(t, connect, zktest.Path(t))
				c.run(e)
				server := t.Name()[strings.LastIndexByte(t.Name(), '/')+1:]
				compareGolden(t, c.name, server, e.finish())
			})
		})
	}
}

var (
	worldAll  = []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
	worldRead = []jute.ACL{{Perms: jute.PermRead, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
)

func create(path, data string, flags jute.CreateMode) *jute.CreateRequest {
	return &jute.CreateRequest{Path: path, Data: []byte(data), ACL: worldAll, Flags: flags}
}

func createACL(path string, acl []jute.ACL) *jute.CreateRequest {
	return &jute.CreateRequest{Path: path, Data: []byte("x"), ACL: acl, Flags: jute.ModePersistent}
}

func createTTL(path string, flags jute.CreateMode, ttl int64) *jute.CreateRequest {
	return &jute.CreateRequest{Path: path, Data: []byte("t"), ACL: worldAll, Flags: flags, TTL: ttl, HasTTL: true}
}

func pathReq(p string) *jute.PathRequest { return &jute.PathRequest{Path: p} }
func watchReq(p string, w bool) *jute.PathWatchRequest {
	return &jute.PathWatchRequest{Path: p, Watch: w}
}
func pathInt(p string, n int32) *jute.PathIntRequest { return &jute.PathIntRequest{Path: p, Value: n} }
func setData(p, data string, version int32) *jute.SetDataRequest {
	return &jute.SetDataRequest{Path: p, Data: []byte(data), Version: version}
}

func multi(ops ...jute.MultiOp) *jute.MultiRequest { return &jute.MultiRequest{Ops: ops} }
func op(typ jute.Op, rec jute.Record) jute.MultiOp { return jute.MultiOp{Type: typ, Rec: rec} }

// mkBase creates the case's base node.
func (e *env) mkBase(client string) {
	e.must("create $B", client, jute.OpCreate, create(e.base, "base", jute.ModePersistent))
}

func conformanceCases() []conformanceCase {
	var cases []conformanceCase
	cases = append(cases, createCases()...)
	cases = append(cases, deleteAndSetCases()...)
	cases = append(cases, aclCases()...)
	cases = append(cases, watchCases()...)
	cases = append(cases, multiCases()...)
	cases = append(cases, sessionCases()...)
	cases = append(cases, miscCases()...)
	cases = append(cases, persistentWatchCases()...)
	return cases
}

func createCases() []conformanceCase {
	return []conformanceCase{
		{"create_persistent", func(e *env) {
			e.mkBase("a")
			e.do("create child", "a", jute.OpCreate, create(e.P("child"), "hello", jute.ModePersistent))
			e.do("exists child", "a", jute.OpExists, watchReq(e.P("child"), false))
			e.do("getData child", "a", jute.OpGetData, watchReq(e.P("child"), false))
			e.do("getChildren2 base", "a", jute.OpGetChildren2, watchReq(e.base, false))
			e.do("create child again", "a", jute.OpCreate, create(e.P("child"), "x", jute.ModePersistent))
			e.do("create null data", "a", jute.OpCreate, &jute.CreateRequest{Path: e.P("null"), ACL: worldAll})
			e.do("getData null", "a", jute.OpGetData, watchReq(e.P("null"), false))
			e.do("create empty data", "a", jute.OpCreate, &jute.CreateRequest{Path: e.P("empty"), Data: []byte{}, ACL: worldAll})
			e.do("getData empty", "a", jute.OpGetData, watchReq(e.P("empty"), false))
			e.do("set null data", "a", jute.OpSetData, &jute.SetDataRequest{Path: e.P("empty"), Version: -1})
			e.do("getData after set null", "a", jute.OpGetData, watchReq(e.P("empty"), false))
			e.do("create under missing parent", "a", jute.OpCreate, create(e.P("missing/child"), "x", jute.ModePersistent))
			e.do("create2 returns stat", "a", jute.OpCreate2, create(e.P("two"), "22", jute.ModePersistent))
			e.do("getChildren base", "a", jute.OpGetChildren, watchReq(e.base, false))
		}},
		{"create_bad_paths", func(e *env) {
			e.mkBase("a")
			for _, p := range []string{"relative", e.P("trailing/"), e.base + "//double", e.P("."), e.P(".."),
				e.P("ctl\x01char"), e.P("del\x7f"), e.P("nul\x00byte"), "", e.P("emoji-😀"), e.P("private-\ue000"),
				e.P("repl-\ufffd")} {
				e.do("create "+strings.ToValidUTF8(strings.ReplaceAll(p, "\x00", "\\0"), "?"), "a", jute.OpCreate, create(p, "x", jute.ModePersistent))
			}
			e.do("create dots allowed", "a", jute.OpCreate, create(e.P("...")+"", "x", jute.ModePersistent))
			e.do("create dot prefix allowed", "a", jute.OpCreate, create(e.P(".hidden"), "x", jute.ModePersistent))
			e.do("create unicode allowed", "a", jute.OpCreate, create(e.P("ünï cødé spaced"), "x", jute.ModePersistent))
			e.do("create /", "a", jute.OpCreate, create("/", "x", jute.ModePersistent))
			e.do("sequential name under base/", "a", jute.OpCreate, create(e.P("")+"/", "x", jute.ModePersistentSequential))
			e.do("flags 7", "a", jute.OpCreate, create(e.P("f7"), "x", 7))
			e.do("flags -1", "a", jute.OpCreate, create(e.P("fm1"), "x", -1))
			e.do("getChildren base", "a", jute.OpGetChildren, watchReq(e.base, false))
		}},
		{"create_sequential", func(e *env) {
			e.mkBase("a")
			e.do("seq 1", "a", jute.OpCreate, create(e.P("lock-"), "", jute.ModeEphemeralSequential))
			e.do("seq 2", "a", jute.OpCreate, create(e.P("lock-"), "", jute.ModeEphemeralSequential))
			e.do("plain", "a", jute.OpCreate, create(e.P("plain"), "", jute.ModePersistent))
			e.do("seq 3 persistent", "a", jute.OpCreate, create(e.P("q-"), "", jute.ModePersistentSequential))
			e.do("delete seq 1", "a", jute.OpDelete, pathInt(e.P("lock-0000000000"), -1))
			e.do("seq after delete", "a", jute.OpCreate, create(e.P("lock-"), "", jute.ModeEphemeralSequential))
			e.do("failed create", "a", jute.OpCreate, create(e.P("plain"), "", jute.ModePersistent))
			e.do("seq after failed create", "a", jute.OpCreate, create(e.P("lock-"), "", jute.ModeEphemeralSequential))
			e.do("getChildren2 base", "a", jute.OpGetChildren2, watchReq(e.base, false))
			e.do("exists ephemeral", "a", jute.OpExists, watchReq(e.P("lock-0000000001"), false))
		}},
		{"create_ephemeral", func(e *env) {
			e.mkBase("a")
			e.do("ephemeral", "a", jute.OpCreate, create(e.P("e"), "x", jute.ModeEphemeral))
			e.do("child of ephemeral", "a", jute.OpCreate, create(e.P("e/child"), "x", jute.ModePersistent))
			e.do("seq child of ephemeral", "a", jute.OpCreate, create(e.P("e/s-"), "x", jute.ModePersistentSequential))
			e.do("stat from other client", "b", jute.OpExists, watchReq(e.P("e"), false))
			e.do("getEphemerals a", "a", jute.OpGetEphemerals, pathReq(e.base))
			e.do("getEphemerals b", "b", jute.OpGetEphemerals, pathReq(e.base))
		}},
		{"create_container_ttl", func(e *env) {
			e.mkBase("a")
			e.do("container", "a", jute.OpCreateContainer, create(e.P("c"), "x", jute.ModeContainer))
			e.do("container op, plain flags", "a", jute.OpCreateContainer, create(e.P("c2"), "x", jute.ModePersistent))
			e.do("create2 with container flag", "a", jute.OpCreate2, create(e.P("c3"), "x", jute.ModeContainer))
			e.do("exists c3", "a", jute.OpExists, watchReq(e.P("c3"), false))
			e.do("ttl", "a", jute.OpCreateTTL, createTTL(e.P("t"), jute.ModePersistentWithTTL, 60000))
			e.do("ttl sequential", "a", jute.OpCreateTTL, createTTL(e.P("ts-"), jute.ModePersistentSequentialWithTTL, 60000))
			e.do("ttl zero", "a", jute.OpCreateTTL, createTTL(e.P("t0"), jute.ModePersistentWithTTL, 0))
			e.do("ttl negative", "a", jute.OpCreateTTL, createTTL(e.P("tn"), jute.ModePersistentWithTTL, -5))
			e.do("ttl too large", "a", jute.OpCreateTTL, createTTL(e.P("tl"), jute.ModePersistentWithTTL, 1<<40))
			e.do("ttl max", "a", jute.OpCreateTTL, createTTL(e.P("tmax"), jute.ModePersistentWithTTL, 1<<40-1))
			e.do("ttl op, plain flags", "a", jute.OpCreateTTL, createTTL(e.P("tp"), jute.ModePersistent, 1000))
			e.do("ttl flags on plain create", "a", jute.OpCreate, create(e.P("tf"), "x", jute.ModePersistentWithTTL))
			e.do("ephemeral via container op", "a", jute.OpCreateContainer, create(e.P("ce"), "x", jute.ModeEphemeral))
			e.do("exists ce", "a", jute.OpExists, watchReq(e.P("ce"), false))
			e.do("child of container", "a", jute.OpCreate, create(e.P("c/x"), "x", jute.ModePersistent))
			e.do("child of ttl", "a", jute.OpCreate, create(e.P("t/x"), "x", jute.ModePersistent))
		}},
	}
}

func deleteAndSetCases() []conformanceCase {
	return []conformanceCase{
		{"delete", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "x", jute.ModePersistent))
			e.must("create n/c", "a", jute.OpCreate, create(e.P("n/c"), "x", jute.ModePersistent))
			e.do("delete non-empty", "a", jute.OpDelete, pathInt(e.P("n"), -1))
			e.do("delete bad version", "a", jute.OpDelete, pathInt(e.P("n/c"), 3))
			e.do("delete missing", "a", jute.OpDelete, pathInt(e.P("nope"), -1))
			e.do("delete under missing parent", "a", jute.OpDelete, pathInt(e.P("nope/x"), -1))
			e.do("delete child", "a", jute.OpDelete, pathInt(e.P("n/c"), 0))
			e.do("parent after delete", "a", jute.OpExists, watchReq(e.P("n"), false))
			e.do("delete n", "a", jute.OpDelete, pathInt(e.P("n"), -1))
			e.do("delete relative", "a", jute.OpDelete, pathInt("relative", -1))
			e.do("delete trailing slash", "a", jute.OpDelete, pathInt(e.P("x/"), -1))
			for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"} {
				e.do("delete "+p, "a", jute.OpDelete, pathInt(p, -1))
			}
			e.do("base after", "a", jute.OpExists, watchReq(e.base, false))
		}},
		{"set_data", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "v0", jute.ModePersistent))
			e.do("set any version", "a", jute.OpSetData, setData(e.P("n"), "v1", -1))
			e.do("set version 1", "a", jute.OpSetData, setData(e.P("n"), "v2", 1))
			e.do("set stale version", "a", jute.OpSetData, setData(e.P("n"), "v3", 1))
			e.do("set missing", "a", jute.OpSetData, setData(e.P("nope"), "x", -1))
			e.do("set bad path", "a", jute.OpSetData, setData(e.P("n/"), "x", -1))
			e.do("set empty", "a", jute.OpSetData, &jute.SetDataRequest{Path: e.P("n"), Version: -1})
			e.do("get n", "a", jute.OpGetData, watchReq(e.P("n"), false))
			e.do("set binary", "a", jute.OpSetData, setData(e.P("n"), "\x00\xff\x01binary", -1))
			e.do("get n", "a", jute.OpGetData, watchReq(e.P("n"), false))
			e.do("parent unchanged", "a", jute.OpExists, watchReq(e.base, false))
		}},
		{"reads_of_missing", func(e *env) {
			e.mkBase("a")
			e.do("exists missing", "a", jute.OpExists, watchReq(e.P("nope"), false))
			e.do("exists bad path", "a", jute.OpExists, watchReq(e.P("bad//path"), false))
			e.do("exists nul", "a", jute.OpExists, watchReq(e.P("nul\x00"), false))
			e.do("getData missing", "a", jute.OpGetData, watchReq(e.P("nope"), false))
			e.do("getChildren missing", "a", jute.OpGetChildren, watchReq(e.P("nope"), false))
			e.do("getChildren2 missing", "a", jute.OpGetChildren2, watchReq(e.P("nope"), false))
			e.do("getACL missing", "a", jute.OpGetACL, pathReq(e.P("nope")))
			e.do("getAllChildrenNumber missing", "a", jute.OpGetAllChildrenNumber, pathReq(e.P("nope")))
			e.do("getData trailing slash", "a", jute.OpGetData, watchReq(e.base+"/", false))
			// The root's stat depends on what else the server holds: only the
			// answer matters.
			h, err := e.client("a").Call(jute.OpGetData, watchReq("", false), nil)
			e.logf("a: getData empty path is root → %s (%v)", h.Err.String(), err)
		}},
		{"zookeeper_nodes", func(e *env) {
			e.do("getChildren2 /zookeeper", "a", jute.OpGetChildren2, watchReq("/zookeeper", false))
			// /zookeeper/quota's stat moves with other tests' quotas on a shared server.
			var quota jute.GetDataResponse
			h, err := e.client("a").Call(jute.OpGetData, watchReq("/zookeeper/quota", false), &quota)
			e.logf("a: getData /zookeeper/quota → %s %q (%v)", h.Err.String(), quota.Data, err)
			e.do("getACL /zookeeper/config", "a", jute.OpGetACL, pathReq("/zookeeper/config"))
			e.do("getACL /zookeeper", "a", jute.OpGetACL, pathReq("/zookeeper"))
			e.do("set /zookeeper/config", "a", jute.OpSetData, setData("/zookeeper/config", "x", -1))
			e.do("create under /zookeeper/config", "a", jute.OpCreate, create("/zookeeper/config/x", "x", jute.ModePersistent))
		}},
		{"quota_stats", func(e *env) {
			// What zkCli's setquota does, then the server's bookkeeping.
			e.mkBase("a")
			e.must("create q", "a", jute.OpCreate, create(e.P("q"), "", jute.ModePersistent))
			e.must("create q/a", "a", jute.OpCreate, create(e.P("q/a"), "x", jute.ModePersistent))
			e.must("create q/a/b", "a", jute.OpCreate, create(e.P("q/a/b"), "yy", jute.ModePersistent))
			quota := "/zookeeper/quota" + e.P("q/a")
			parts := strings.Split(strings.TrimPrefix(quota, "/zookeeper/quota/"), "/")
			for i := range parts {
				p := "/zookeeper/quota/" + strings.Join(parts[:i+1], "/")
				e.must("create "+p, "a", jute.OpCreate, create(p, "", jute.ModePersistent))
			}
			e.do("create limits", "a", jute.OpCreate, create(quota+"/zookeeper_limits", "count=5,bytes=-1", jute.ModePersistent))
			e.do("create stats", "a", jute.OpCreate, create(quota+"/zookeeper_stats", "count=0,bytes=0", jute.ModePersistent))
			e.do("stats", "a", jute.OpGetData, watchReq(quota+"/zookeeper_stats", true))
			e.do("create q/a/c", "a", jute.OpCreate, create(e.P("q/a/c"), "zzz", jute.ModePersistent))
			e.do("set q/a/b", "a", jute.OpSetData, setData(e.P("q/a/b"), "12345678", -1))
			e.do("delete q/a/c", "a", jute.OpDelete, pathInt(e.P("q/a/c"), -1))
			e.do("create outside", "a", jute.OpCreate, create(e.P("q/out"), "outside", jute.ModePersistent))
			e.do("stats", "a", jute.OpGetData, watchReq(quota+"/zookeeper_stats", false))
			e.quiet("a") // the server rewrites stats in place: no watch fires
			e.do("delete limits", "a", jute.OpDelete, pathInt(quota+"/zookeeper_limits", -1))
			e.do("create q/a/d", "a", jute.OpCreate, create(e.P("q/a/d"), "dddd", jute.ModePersistent))
			e.do("stats", "a", jute.OpGetData, watchReq(quota+"/zookeeper_stats", false))
			e.do("delete stats", "a", jute.OpDelete, pathInt(quota+"/zookeeper_stats", -1))
			for i := len(parts); i > 0; i-- {
				p := "/zookeeper/quota/" + strings.Join(parts[:i], "/")
				e.do("delete "+p, "a", jute.OpDelete, pathInt(p, -1))
			}
		}},
		{"counts_and_sync", func(e *env) {
			e.mkBase("a")
			for _, p := range []string{"x", "x/y", "x/y/z", "w"} {
				e.must("create "+p, "a", jute.OpCreate, create(e.P(p), "", jute.ModePersistent))
			}
			e.do("getAllChildrenNumber base", "a", jute.OpGetAllChildrenNumber, pathReq(e.base))
			e.do("getAllChildrenNumber x/y/z", "a", jute.OpGetAllChildrenNumber, pathReq(e.P("x/y/z")))
			e.do("sync base", "a", jute.OpSync, pathReq(e.base))
			e.do("sync missing", "a", jute.OpSync, pathReq(e.P("nope")))
		}},
	}
}

func aclCases() []conformanceCase {
	bob := jute.Id{Scheme: "digest", ID: digest("bob:secret")}
	bobAll := []jute.ACL{{Perms: jute.PermAll, ID: bob}}
	auth := func(e *env, client, creds string) {
		h, err := e.client(client).CallXid(jute.XidAuth, jute.OpAuth, &jute.AuthPacket{Scheme: "digest", Auth: []byte(creds)}, nil)
		if err != nil {
			e.logf("%s: addauth → transport error", client)
			return
		}
		e.logf("%s: addauth digest %s → %s", client, strings.SplitN(creds, ":", 2)[0], h.Err.String())
	}
	return []conformanceCase{
		{"acl_invalid", func(e *env) {
			e.mkBase("a")
			e.do("empty acl", "a", jute.OpCreate, createACL(e.P("n1"), nil))
			e.do("world:nobody", "a", jute.OpCreate, createACL(e.P("n2"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "nobody"}}}))
			e.do("digest without colon", "a", jute.OpCreate, createACL(e.P("n3"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "digest", ID: "bob"}}}))
			e.do("digest two colons", "a", jute.OpCreate, createACL(e.P("n4"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "digest", ID: "a:b:c"}}}))
			e.do("bad ip", "a", jute.OpCreate, createACL(e.P("n5"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "ip", ID: "300.1.1.1"}}}))
			e.do("bad cidr", "a", jute.OpCreate, createACL(e.P("n6"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "ip", ID: "10.0.0.0/33"}}}))
			e.do("unknown scheme", "a", jute.OpCreate, createACL(e.P("n7"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "kerberos", ID: "x"}}}))
			e.do("auth without credentials", "a", jute.OpCreate, createACL(e.P("n8"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "auth", ID: ""}}}))
			e.do("duplicates collapse", "a", jute.OpCreate, createACL(e.P("n9"), append(append([]jute.ACL{}, worldAll...), worldAll...)))
			e.do("getACL n9", "a", jute.OpGetACL, pathReq(e.P("n9")))
			e.do("cidr ok", "a", jute.OpCreate, createACL(e.P("n10"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "ip", ID: "10.0.0.0/8"}}}))
			e.do("setACL invalid", "a", jute.OpSetACL, &jute.SetACLRequest{Path: e.P("n9"), Version: -1})
			e.do("setACL missing node", "a", jute.OpSetACL, &jute.SetACLRequest{Path: e.P("nope"), ACL: worldAll, Version: -1})
		}},
		{"acl_digest", func(e *env) {
			e.mkBase("a")
			auth(e, "a", "bob:secret")
			e.do("whoami a", "a", jute.OpWhoAmI, nil)
			e.do("create bob-only", "a", jute.OpCreate, createACL(e.P("secret"), bobAll))
			e.do("create auth acl", "a", jute.OpCreate, createACL(e.P("mine"), []jute.ACL{{Perms: jute.PermRead | jute.PermWrite, ID: jute.Id{Scheme: "auth", ID: ""}}}))
			e.do("getACL mine (a)", "a", jute.OpGetACL, pathReq(e.P("mine")))
			e.do("getData by b", "b", jute.OpGetData, watchReq(e.P("secret"), false))
			e.do("exists by b", "b", jute.OpExists, watchReq(e.P("secret"), false))
			e.do("getChildren by b", "b", jute.OpGetChildren, watchReq(e.P("secret"), false))
			e.do("setData by b", "b", jute.OpSetData, setData(e.P("secret"), "x", -1))
			e.do("create child by b", "b", jute.OpCreate, create(e.P("secret/c"), "x", jute.ModePersistent))
			e.do("getACL by b", "b", jute.OpGetACL, pathReq(e.P("secret")))
			e.do("setACL by b", "b", jute.OpSetACL, &jute.SetACLRequest{Path: e.P("secret"), ACL: worldAll, Version: -1})
			e.do("getAllChildrenNumber by b", "b", jute.OpGetAllChildrenNumber, pathReq(e.P("secret")))
			e.do("create child by a", "a", jute.OpCreate, create(e.P("secret/c"), "x", jute.ModePersistent))
			e.do("delete child by b", "b", jute.OpDelete, pathInt(e.P("secret/c"), -1))
			auth(e, "b", "bob:wrong")
			e.do("whoami b", "b", jute.OpWhoAmI, nil)
			e.do("getData by b, wrong password", "b", jute.OpGetData, watchReq(e.P("secret"), false))
			auth(e, "b", "bob:secret")
			e.do("getData by b, right password", "b", jute.OpGetData, watchReq(e.P("secret"), false))
			e.do("delete child by b", "b", jute.OpDelete, pathInt(e.P("secret/c"), -1))
			e.do("getData mine by c", "c", jute.OpGetACL, pathReq(e.P("mine")))
		}},
		{"acl_masking_and_setacl", func(e *env) {
			e.mkBase("a")
			readAndBob := []jute.ACL{{Perms: jute.PermRead, ID: jute.Id{Scheme: "world", ID: "anyone"}}, {Perms: jute.PermAll, ID: bob}}
			e.do("create", "a", jute.OpCreate, createACL(e.P("n"), readAndBob))
			e.do("getACL without admin masks digests", "b", jute.OpGetACL, pathReq(e.P("n")))
			auth(e, "b", "bob:secret")
			e.do("getACL with admin", "b", jute.OpGetACL, pathReq(e.P("n")))
			e.do("setACL bad version", "b", jute.OpSetACL, &jute.SetACLRequest{Path: e.P("n"), ACL: worldRead, Version: 5})
			e.do("setACL version 0", "b", jute.OpSetACL, &jute.SetACLRequest{Path: e.P("n"), ACL: worldRead, Version: 0})
			e.do("setACL again", "b", jute.OpSetACL, &jute.SetACLRequest{Path: e.P("n"), ACL: worldAll, Version: -1})
			e.do("exists after", "b", jute.OpExists, watchReq(e.P("n"), false))
			e.do("ip acl for loopback", "a", jute.OpCreate, createACL(e.P("ip"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "ip", ID: "127.0.0.1"}}}))
			e.do("ip acl read", "c", jute.OpGetData, watchReq(e.P("ip"), false))
			e.do("cidr acl", "a", jute.OpCreate, createACL(e.P("cidr"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "ip", ID: "127.0.0.0/8"}}}))
			e.do("cidr acl read", "c", jute.OpGetData, watchReq(e.P("cidr"), false))
			e.do("other net", "a", jute.OpCreate, createACL(e.P("other"), []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "ip", ID: "10.0.0.0/8"}}}))
			e.do("other net read", "c", jute.OpGetData, watchReq(e.P("other"), false))
			e.do("create-only parent", "a", jute.OpCreate, createACL(e.P("co"), []jute.ACL{{Perms: jute.PermCreate | jute.PermRead, ID: jute.Id{Scheme: "world", ID: "anyone"}}}))
			e.do("create in create-only", "c", jute.OpCreate, create(e.P("co/x"), "x", jute.ModePersistent))
			e.do("delete in create-only", "c", jute.OpDelete, pathInt(e.P("co/x"), -1))
			e.do("check without read", "c", jute.OpMulti, multi(op(jute.OpCheck, pathInt(e.P("other"), -1))))
		}},
	}
}

func watchCases() []conformanceCase {
	return []conformanceCase{
		{"watch_data_one_shot", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "0", jute.ModePersistent))
			e.do("getData watch", "w", jute.OpGetData, watchReq(e.P("n"), true))
			e.do("set 1", "a", jute.OpSetData, setData(e.P("n"), "1", -1))
			e.events("w", 1)
			e.do("set 2", "a", jute.OpSetData, setData(e.P("n"), "2", -1))
			e.quiet("w")
			e.do("exists watch", "w", jute.OpExists, watchReq(e.P("n"), true))
			e.do("getData watch again", "w", jute.OpGetData, watchReq(e.P("n"), true))
			e.do("set 3", "a", jute.OpSetData, setData(e.P("n"), "3", -1))
			e.events("w", 1)
			e.quiet("w")
			e.do("getData watch", "w", jute.OpGetData, watchReq(e.P("n"), true))
			e.do("delete", "a", jute.OpDelete, pathInt(e.P("n"), -1))
			e.events("w", 1)
			e.quiet("w")
		}},
		{"watch_exists_missing", func(e *env) {
			e.mkBase("a")
			e.do("exists watch on missing", "w", jute.OpExists, watchReq(e.P("n"), true))
			e.do("getData watch on missing", "w", jute.OpGetData, watchReq(e.P("m"), true))
			e.do("create n", "a", jute.OpCreate, create(e.P("n"), "x", jute.ModePersistent))
			e.do("create m", "a", jute.OpCreate, create(e.P("m"), "x", jute.ModePersistent))
			e.events("w", 1)
			e.quiet("w")
		}},
		{"watch_children", func(e *env) {
			e.mkBase("a")
			e.do("getChildren watch", "w", jute.OpGetChildren, watchReq(e.base, true))
			e.do("create c1", "a", jute.OpCreate, create(e.P("c1"), "x", jute.ModePersistent))
			e.events("w", 1)
			e.do("create c2 (unwatched)", "a", jute.OpCreate, create(e.P("c2"), "x", jute.ModePersistent))
			e.quiet("w")
			e.do("getChildren2 watch", "w", jute.OpGetChildren2, watchReq(e.base, true))
			e.do("set c1 (not a child change)", "a", jute.OpSetData, setData(e.P("c1"), "y", -1))
			e.quiet("w")
			e.do("delete c1", "a", jute.OpDelete, pathInt(e.P("c1"), -1))
			e.events("w", 1)
			e.do("child watch on c2", "w", jute.OpGetChildren, watchReq(e.P("c2"), true))
			e.do("data watch on c2", "w", jute.OpGetData, watchReq(e.P("c2"), true))
			e.do("parent watch", "w", jute.OpGetChildren, watchReq(e.base, true))
			e.do("delete c2", "a", jute.OpDelete, pathInt(e.P("c2"), -1))
			e.events("w", 2)
			e.quiet("w")
		}},
		{"watch_many_watchers", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "x", jute.ModePersistent))
			for _, w := range []string{"w1", "w2", "w3"} {
				e.do("watch", w, jute.OpGetData, watchReq(e.P("n"), true))
			}
			e.do("self watch", "a", jute.OpExists, watchReq(e.P("n"), true))
			e.do("delete", "a", jute.OpDelete, pathInt(e.P("n"), -1))
			for _, w := range []string{"w1", "w2", "w3", "a"} {
				e.events(w, 1)
			}
		}},
		{"watch_before_data", func(e *env) {
			// A client must see a watch event before the data that follows it.
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "0", jute.ModePersistent))
			w := e.client("w")
			e.do("getData watch", "w", jute.OpGetData, watchReq(e.P("n"), true))
			e.do("set", "a", jute.OpSetData, setData(e.P("n"), "1", -1))
			f, err := w.CallRaw(99, jute.OpGetData, watchReq(e.P("n"), false))
			if err != nil {
				e.test.Fatal(err)
			}
			evs := w.EventFrames()
			if len(evs) != 1 || evs[0].Seq >= f.Seq {
				e.test.Errorf("watch event did not precede the read reply: events %v, reply seq %d", evs, f.Seq)
			}
			e.logf("w: event before read reply: %v", len(evs) == 1 && evs[0].Seq < f.Seq)
		}},
		{"watch_persistent", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "0", jute.ModePersistent))
			e.do("addWatch persistent", "w", jute.OpAddWatch, pathInt(e.P("n"), jute.AddWatchPersistent))
			e.do("set 1", "a", jute.OpSetData, setData(e.P("n"), "1", -1))
			e.do("set 2", "a", jute.OpSetData, setData(e.P("n"), "2", -1))
			e.do("create child", "a", jute.OpCreate, create(e.P("n/c"), "x", jute.ModePersistent))
			e.do("set child", "a", jute.OpSetData, setData(e.P("n/c"), "y", -1))
			e.do("delete child", "a", jute.OpDelete, pathInt(e.P("n/c"), -1))
			e.do("delete n", "a", jute.OpDelete, pathInt(e.P("n"), -1))
			e.do("recreate n", "a", jute.OpCreate, create(e.P("n"), "0", jute.ModePersistent))
			e.events("w", 6)
			e.quiet("w")
			e.do("addWatch on missing path", "w", jute.OpAddWatch, pathInt(e.P("later"), jute.AddWatchPersistent))
			e.do("create later", "a", jute.OpCreate, create(e.P("later"), "x", jute.ModePersistent))
			e.events("w", 1)
			e.do("addWatch bad mode", "w", jute.OpAddWatch, pathInt(e.P("n"), 7))
		}},
		{"watch_recursive", func(e *env) {
			e.mkBase("a")
			e.do("addWatch recursive", "w", jute.OpAddWatch, pathInt(e.base, jute.AddWatchPersistentRecursive))
			e.do("create x", "a", jute.OpCreate, create(e.P("x"), "0", jute.ModePersistent))
			e.do("create x/y", "a", jute.OpCreate, create(e.P("x/y"), "0", jute.ModePersistent))
			e.do("set x/y", "a", jute.OpSetData, setData(e.P("x/y"), "1", -1))
			e.do("delete x/y", "a", jute.OpDelete, pathInt(e.P("x/y"), -1))
			e.do("set base", "a", jute.OpSetData, setData(e.base, "1", -1))
			e.events("w", 5)
			e.quiet("w")
			e.do("one-shot data watch too", "w", jute.OpGetData, watchReq(e.P("x"), true))
			e.do("set x", "a", jute.OpSetData, setData(e.P("x"), "2", -1))
			e.events("w", 1)
			e.quiet("w")
		}},
		{"watch_remove_and_check", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "0", jute.ModePersistent))
			e.do("checkWatches none", "w", jute.OpCheckWatches, pathInt(e.P("n"), jute.WatcherData))
			e.do("removeWatches none", "w", jute.OpRemoveWatches, pathInt(e.P("n"), jute.WatcherAny))
			e.do("getData watch", "w", jute.OpGetData, watchReq(e.P("n"), true))
			e.do("getChildren watch", "w", jute.OpGetChildren, watchReq(e.P("n"), true))
			e.do("checkWatches data", "w", jute.OpCheckWatches, pathInt(e.P("n"), jute.WatcherData))
			e.do("checkWatches children", "w", jute.OpCheckWatches, pathInt(e.P("n"), jute.WatcherChildren))
			e.do("removeWatches data", "w", jute.OpRemoveWatches, pathInt(e.P("n"), jute.WatcherData))
			e.do("checkWatches data after", "w", jute.OpCheckWatches, pathInt(e.P("n"), jute.WatcherData))
			e.do("set n", "a", jute.OpSetData, setData(e.P("n"), "1", -1))
			e.quiet("w")
			e.do("create child", "a", jute.OpCreate, create(e.P("n/c"), "x", jute.ModePersistent))
			e.events("w", 1)
			e.do("removeWatches bad type", "w", jute.OpRemoveWatches, pathInt(e.P("n"), 9))
		}},
	}
}

func multiCases() []conformanceCase {
	return []conformanceCase{
		{"multi_success", func(e *env) {
			e.mkBase("a")
			e.do("watch base children", "w", jute.OpGetChildren, watchReq(e.base, true))
			e.do("multi", "a", jute.OpMulti, multi(
				op(jute.OpCreate, create(e.P("m1"), "1", jute.ModePersistent)),
				op(jute.OpCreate, create(e.P("m1/s-"), "s", jute.ModePersistentSequential)),
				op(jute.OpSetData, setData(e.P("m1"), "2", 0)),
				op(jute.OpCheck, pathInt(e.P("m1"), 1)),
				op(jute.OpCreate2, create(e.P("m2"), "x", jute.ModePersistent)),
				op(jute.OpCreateContainer, create(e.P("m3"), "x", jute.ModeContainer)),
				op(jute.OpCreateTTL, createTTL(e.P("m4"), jute.ModePersistentWithTTL, 60000)),
				op(jute.OpDelete, pathInt(e.P("m2"), -1)),
			))
			e.events("w", 1)
			e.quiet("w")
			e.do("getChildren2 base", "a", jute.OpGetChildren2, watchReq(e.base, false))
			e.do("exists m3", "a", jute.OpExists, watchReq(e.P("m3"), false))
			e.do("empty multi", "a", jute.OpMulti, multi())
		}},
		{"multi_failure", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "0", jute.ModePersistent))
			e.do("watch n", "w", jute.OpGetData, watchReq(e.P("n"), true))
			e.do("watch base", "w", jute.OpGetChildren, watchReq(e.base, true))
			e.do("failing multi", "a", jute.OpMulti, multi(
				op(jute.OpCreate, create(e.P("s-"), "1", jute.ModePersistentSequential)),
				op(jute.OpSetData, setData(e.P("n"), "changed", -1)),
				op(jute.OpCheck, pathInt(e.P("n"), 7)),
				op(jute.OpCreate, create(e.P("after"), "x", jute.ModePersistent)),
				op(jute.OpDelete, pathInt(e.P("nope"), -1)),
			))
			e.quiet("w")
			e.do("n unchanged", "a", jute.OpGetData, watchReq(e.P("n"), false))
			e.do("sequence not consumed", "a", jute.OpCreate, create(e.P("s-"), "1", jute.ModePersistentSequential))
			e.events("w", 1)
			e.do("multi missing node", "a", jute.OpMulti, multi(op(jute.OpDelete, pathInt(e.P("nope"), -1))))
			e.do("multi bad path first", "a", jute.OpMulti, multi(
				op(jute.OpCreate, create("bad", "x", jute.ModePersistent)),
				op(jute.OpCreate, create(e.P("ok"), "x", jute.ModePersistent))))
			e.do("multi create then duplicate", "a", jute.OpMulti, multi(
				op(jute.OpCreate, create(e.P("d"), "x", jute.ModePersistent)),
				op(jute.OpCreate, create(e.P("d"), "x", jute.ModePersistent))))
			e.do("multi create then delete same", "a", jute.OpMulti, multi(
				op(jute.OpCreate, create(e.P("cd"), "x", jute.ModePersistent)),
				op(jute.OpDelete, pathInt(e.P("cd"), 0))))
			e.do("multi with a read op", "a", jute.OpMulti, multi(op(jute.OpGetData, watchReq(e.P("n"), false))))
			e.do("getChildren base", "a", jute.OpGetChildren, watchReq(e.base, false))
		}},
		{"multi_read", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "data", jute.ModePersistent))
			e.must("create n/c", "a", jute.OpCreate, create(e.P("n/c"), "", jute.ModePersistent))
			e.do("multiRead", "a", jute.OpMultiRead, multi(
				op(jute.OpGetChildren, watchReq(e.P("n"), false)),
				op(jute.OpGetData, watchReq(e.P("n"), false)),
				op(jute.OpGetData, watchReq(e.P("nope"), false)),
				op(jute.OpGetChildren, watchReq(e.P("nope"), false)),
			))
			e.do("multiRead with a write", "a", jute.OpMultiRead, multi(op(jute.OpDelete, pathInt(e.P("n/c"), -1))))
			e.do("c still there", "a", jute.OpExists, watchReq(e.P("n/c"), false))
		}},
	}
}

// digest is the digest scheme's id for user:password. Real ZooKeeper checks
// our derivation: the "right password" steps only pass if it agrees.
func digest(userPassword string) string { return zkserver.DigestID(userPassword) }
