package recognize

import (
	"context"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

func TestEphemeralNodeRecipe(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"lock": recMutex, "LOCK": recMutex, "mutex": recMutex, "db_lock": recMutex, "run.lock": recMutex,
		"job-lock": recMutex, "ActiveStandbyElectorLock": recMutex, "jobLock": recMutex,
		"leader": recElection, "master": recElection, "controller": recElection, "shardLeader": recElection,
		"active_master": recElection,
		"clock":         "", "deadlock": "", "unlock": "", "locks": "", "config": "", "lock-0000000001": "", "": "",
	} {
		if got := ephemeralNodeRecipe(name); got != want {
			t.Errorf("ephemeralNodeRecipe(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestEphemeralNodeLock: one ephemeral node is the lock, its owner the
// holder, and the sessions watching it a herd of waiters; a persistent
// node of the same name is no lock.
func TestEphemeralNodeLock(t *testing.T) {
	t.Parallel()
	f := newRecFake().
		add("/exclusive/lock", "10.0.0.5", ephemeralOf(0x101)).
		add("/persistent/lock", "").
		add("/app/leader", `{"host":"a"}`, ephemeralOf(0x201))
	tables := fixedTables{
		addrs:     map[int64]string{0x101: "127.0.0.1:5001", 0x102: "127.0.0.1:5002", 0x103: "127.0.0.1:5003"},
		connected: map[int64]bool{0x101: true, 0x102: true, 0x103: true},
		watches: map[int64]map[string]bool{
			0x101: {"/exclusive/lock": true}, // the holder's own watch is not a waiter
			0x102: {"/exclusive/lock": true},
			0x103: {"/exclusive/lock": true, "/app/leader": true},
		},
	}
	opts := Options{Now: recEpoch, Tables: tables}

	l := recAsLock(t, recognizeT(t, f, "/exclusive/lock", opts))
	if l.Recipe != "mutex" || l.Format != "ephemeral-node" || l.Path != "/exclusive/lock" {
		t.Fatalf("got %s %s at %s", l.Recipe, l.Format, l.Path)
	}
	if len(l.Holders) != 1 || l.Holders[0].Session != "0x101" || l.Holders[0].Client != "127.0.0.1:5001" ||
		l.Holders[0].Data != "10.0.0.5" || l.Holders[0].Node != "/exclusive/lock" {
		t.Errorf("holder %+v", l.Holders)
	}
	var waiters []string
	for _, w := range l.Waiters {
		waiters = append(waiters, w.Session+" "+w.Client+" "+w.WaitsFor+" "+w.Watch)
	}
	if want := "0x102 127.0.0.1:5002 /exclusive/lock observed|0x103 127.0.0.1:5003 /exclusive/lock observed"; strings.Join(waiters, "|") != want {
		t.Errorf("waiters %q, want %q", strings.Join(waiters, "|"), want)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "herd") {
		t.Errorf("warnings %q, want the herd named", l.Warnings)
	}
	if got := strings.Join(l.Dirs(), " "); got != "/exclusive/lock /exclusive" {
		t.Errorf("Dirs = %q: the node's directory shows it go and come back", got)
	}

	if r := recognizeT(t, f, "/persistent/lock", opts); r != nil {
		t.Errorf("a persistent lock node was recognised as %+v", r)
	}

	e, ok := recognizeT(t, f, "/app/leader", opts).(*Election)
	if !ok || e.Format != "ephemeral-node" || e.Leader == nil || e.Leader.Session != "0x201" ||
		len(e.Candidates) != 1 || e.Candidates[0].Session != "0x103" {
		t.Errorf("leader node: %+v", e)
	}

	// Without watch tables, the waiters are not known.
	l = recAsLock(t, recognizeT(t, f, "/exclusive/lock", Options{Now: recEpoch}))
	if len(l.Waiters) != 0 || len(l.Warnings) != 0 {
		t.Errorf("no tables: waiters %+v warnings %q", l.Waiters, l.Warnings)
	}

	res, err := Scan(context.Background(), f, "/", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Locks) != 1 || res.Locks[0].Path != "/exclusive/lock" || len(res.Elections) != 1 || res.Elections[0].Path != "/app/leader" {
		t.Errorf("Scan found locks %+v, elections %+v", res.Locks, res.Elections)
	}
}

// TestEphemeralNodeLockOnServers lays the ZooKeeper recipe documentation's
// exclusive lock out on a real server: one session owns the node, two
// others watch it with exists, as their create failed. The servers' watch
// tables name the two waiters and their clients.
func TestEphemeralNodeLockOnServers(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		holder := zktest.Conn(t, connect)
		if _, err := holder.Create(base, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { holder.Delete(base, -1) })
		lockPath := base + "/lock"
		if _, err := holder.Create(lockPath, []byte("10.0.0.5"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		waiters := map[int64]bool{}
		for range 2 {
			w := zktest.Conn(t, connect)
			if _, err := w.Create(lockPath, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != zk.ErrNodeExists {
				t.Fatalf("create while held: %v, want node exists", err)
			}
			if ok, _, _, err := w.ExistsW(lockPath); err != nil || !ok {
				t.Fatalf("exists watch: %v %v", ok, err)
			}
			waiters[w.SessionID()] = true
		}
		in, err := introspect.Ask(context.Background(), connstr.ConnectString{Servers: strings.Split(connect, ",")}, introspect.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := dialTest(t, connect)
		l := recAsLock(t, recognizeT(t, c, lockPath, Options{Tables: in.Tables()}))
		if l.Format != "ephemeral-node" || len(l.Holders) != 1 || l.Holders[0].SessionID != holder.SessionID() || l.Holders[0].Client == "" {
			t.Fatalf("lock %s, holders %+v", l.Format, l.Holders)
		}
		if len(l.Waiters) != 2 {
			t.Fatalf("waiters %+v, want the 2 watching sessions", l.Waiters)
		}
		for _, w := range l.Waiters {
			if !waiters[w.SessionID] || w.Watch != WatchObserved || w.Client == "" || w.WaitsFor != lockPath {
				t.Errorf("waiter %+v", w)
			}
		}
	})
}
