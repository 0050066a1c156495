package zkserver_test

import (
	"fmt"
	"testing"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// persistentWatchCases pin what zkx's persistent watches (zkx watch
// --recursive, the explorer's tree) rely on: one notification for every
// change however close together, how the watches are removed, and whoAmI
// with credentials.
func persistentWatchCases() []conformanceCase {
	return []conformanceCase{
		{"watch_recursive_burst", func(e *env) {
			e.mkBase("a")
			e.do("addWatch recursive", "w", jute.OpAddWatch, pathInt(e.base, jute.AddWatchPersistentRecursive))
			e.must("create x", "a", jute.OpCreate, create(e.P("x"), "0", jute.ModePersistent))
			// Writes back to back: each is one notification, in order,
			// with none merged as re-arming one-shot watches would.
			for i := 1; i <= 10; i++ {
				e.must(fmt.Sprintf("set x %d", i), "a", jute.OpSetData, setData(e.P("x"), fmt.Sprint(i), -1))
			}
			for i := 0; i < 5; i++ {
				p := e.P(fmt.Sprintf("x/t%d", i))
				e.must("create "+p, "a", jute.OpCreate, create(p, "", jute.ModePersistent))
				e.must("delete "+p, "a", jute.OpDelete, pathInt(p, -1))
			}
			e.events("w", 21)
			e.quiet("w")
			e.do("read x after the burst", "w", jute.OpGetData, watchReq(e.P("x"), false))
		}},
		{"watch_persistent_remove", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "0", jute.ModePersistent))
			e.do("addWatch persistent n", "w", jute.OpAddWatch, pathInt(e.P("n"), jute.AddWatchPersistent))
			e.do("checkWatches any n", "w", jute.OpCheckWatches, pathInt(e.P("n"), jute.WatcherAny))
			e.do("removeWatches data n", "w", jute.OpRemoveWatches, pathInt(e.P("n"), jute.WatcherData))
			e.do("set n", "a", jute.OpSetData, setData(e.P("n"), "1", -1))
			e.do("create n/c", "a", jute.OpCreate, create(e.P("n/c"), "", jute.ModePersistent))
			e.quiet("w")
			e.do("removeWatches any n", "w", jute.OpRemoveWatches, pathInt(e.P("n"), jute.WatcherAny))
			e.do("removeWatches any n again", "w", jute.OpRemoveWatches, pathInt(e.P("n"), jute.WatcherAny))
			e.do("delete n/c", "a", jute.OpDelete, pathInt(e.P("n/c"), -1))
			e.do("set n again", "a", jute.OpSetData, setData(e.P("n"), "2", -1))
			e.quiet("w")
			e.do("addWatch recursive base", "w", jute.OpAddWatch, pathInt(e.base, jute.AddWatchPersistentRecursive))
			e.do("removeWatches any on a node below", "w", jute.OpRemoveWatches, pathInt(e.P("n"), jute.WatcherAny))
			e.do("set n under the recursive watch", "a", jute.OpSetData, setData(e.P("n"), "3", -1))
			e.events("w", 1)
			e.do("removeWatches any base", "w", jute.OpRemoveWatches, pathInt(e.base, jute.WatcherAny))
			e.do("set n after removal", "a", jute.OpSetData, setData(e.P("n"), "4", -1))
			e.quiet("w")
		}},
		{"whoami_digest", func(e *env) {
			c := e.client("d")
			h, err := c.CallXid(jute.XidAuth, jute.OpAuth, &jute.AuthPacket{Scheme: "digest", Auth: []byte("alice:secret")}, nil)
			e.logf("d: addauth digest alice → %s (%v)", h.Err.String(), err)
			e.do("whoami", "d", jute.OpWhoAmI, nil)
			e.do("whoami without credentials", "plain", jute.OpWhoAmI, nil)
		}},
	}
}

// TestConformanceNoExtendedTypes runs the TTL creates zkx makes against a
// server without zookeeper.extendedTypesEnabled (ZooKeeper's default):
// the embedded server configured so, and a real ZooKeeper started so.
func TestConformanceNoExtendedTypes(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, connect, server string) {
		e := newEnv(t, connect, zktest.Path(t))
		e.mkBase("a")
		e.do("ttl", "a", jute.OpCreateTTL, createTTL(e.P("t"), jute.ModePersistentWithTTL, 60000))
		e.do("ttl sequential", "a", jute.OpCreateTTL, createTTL(e.P("ts-"), jute.ModePersistentSequentialWithTTL, 60000))
		e.do("ttl zero", "a", jute.OpCreateTTL, createTTL(e.P("t0"), jute.ModePersistentWithTTL, 0))
		e.do("ttl flags on plain create", "a", jute.OpCreate, create(e.P("tf"), "x", jute.ModePersistentWithTTL))
		e.do("ttl in a multi", "a", jute.OpMulti, multi(op(jute.OpCreateTTL, createTTL(e.P("tm"), jute.ModePersistentWithTTL, 1000))))
		e.do("container still", "a", jute.OpCreateContainer, create(e.P("c"), "x", jute.ModeContainer))
		e.do("session goes on", "a", jute.OpExists, watchReq(e.P("t"), false))
		compareGolden(t, "ttl_extended_types_disabled", server, e.finish())
	}
	t.Run("embedded", func(t *testing.T) {
		run(t, zktest.EmbeddedServer(t, zkserver.Config{NoExtendedTypes: true}).ConnectString(), "embedded")
	})
	t.Run("real", func(t *testing.T) {
		run(t, zktest.RealWith(t, zktest.RealOptions{NoExtendedTypes: true}).ConnectString(), "real")
	})
}

// TestUnknownOpsAnswerAsAnOlderServer: an op the configuration names is
// answered as ZooKeeper answers an op it does not know (the case
// protocol_edges pins with op 999 against real ZooKeeper): error -6, then
// the connection closes — how a 3.5 server meets addWatch.
func TestUnknownOpsAnswerAsAnOlderServer(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{UnknownOps: []jute.Op{jute.OpAddWatch, jute.OpWhoAmI}})
	e := newEnv(t, srv.ConnectString(), "/older")
	c := e.client("w")
	h, err := c.Call(jute.OpAddWatch, pathInt("/", jute.AddWatchPersistentRecursive), &jute.IntResponse{})
	if err != nil || h.Err != jute.ErrUnimplemented {
		t.Fatalf("addWatch on a 3.5-like server: %s, %v; want unimplemented", h.Err.String(), err)
	}
	if !waitClosed(c) {
		t.Fatal("the connection stayed open after the unknown op")
	}
	o := e.client("other")
	if h, err := o.Call(jute.OpExists, watchReq("/", false), &jute.StatResponse{}); err != nil || h.Err != jute.ErrOK {
		t.Fatalf("a known op on another session: %s, %v", h.Err.String(), err)
	}
}
