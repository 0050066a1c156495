package recognize

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/zkview"
)

// Node names as each library writes them.
func curLock(seq int32) string  { return fmt.Sprintf("_c_%s-lock-%010d", testUUID, seq) }
func curRead(seq int32) string  { return fmt.Sprintf("_c_%s-__READ__%010d", testUUID, seq) }
func curWrite(seq int32) string { return fmt.Sprintf("_c_%s-__WRIT__%010d", testUUID, seq) }
func curLease(seq int32) string { return fmt.Sprintf("_c_%s-lease-%010d", testUUID2, seq) }
func kzLock(seq int32) string   { return fmt.Sprintf("%s__lock__%010d", testHex, seq) }
func kzRead(seq int32) string   { return fmt.Sprintf("%s__rlock__%010d", testHex, seq) }

func TestRecognizeCuratorMutex(t *testing.T) {
	t.Parallel()
	const dir = "/app/locks/orders"
	now := recEpoch.Add(20 * time.Minute)
	f := newRecFake().
		add(dir+"/"+curLock(3), "10.0.0.5", ephemeralOf(0x101), createdAt(recEpoch)).
		add(dir+"/"+curLock(4), "10.0.0.6", ephemeralOf(0x102), createdAt(recEpoch.Add(15*time.Minute))).
		add(dir+"/"+curLock(12), "10.0.0.7", ephemeralOf(0x103), createdAt(recEpoch.Add(19*time.Minute))).
		add(dir+"/junk", "")
	tables := fixedTables{
		addrs:     map[int64]string{0x101: "127.0.0.1:5001", 0x102: "127.0.0.1:5002"},
		connected: map[int64]bool{0x101: false, 0x102: true, 0x103: true},
		watches: map[int64]map[string]bool{
			0x102: {dir + "/" + curLock(3): true},
			0x103: {dir + "/" + curLock(3): true}, // the holder, not its predecessor
		},
	}
	l := recAsLock(t, recognizeT(t, f, dir, Options{Tables: tables, Now: now}))
	if l.Path != dir || l.Recipe != "mutex" || l.Format != "curator" {
		t.Errorf("lock %s %s %s, want %s mutex curator", l.Path, l.Recipe, l.Format, dir)
	}
	recWantNodes(t, "holders", l.Holders, curLock(3))
	recWantNodes(t, "waiters", l.Waiters, curLock(4)+">"+curLock(3), curLock(12)+">"+curLock(4))
	h := l.Holders[0]
	// Children came and went after the holder's node: when it began to
	// hold is not known, only its node's age.
	if h.Session != "0x101" || h.SessionID != 0x101 || h.Client != "127.0.0.1:5001" || h.Data != "10.0.0.5" || h.Seq != 3 ||
		h.AgeMs != (20*time.Minute).Milliseconds() || h.HeldMs != nil || h.Watch != "" || !h.Created.Equal(recEpoch) ||
		h.Format != "curator" || h.View != "Curator InterProcessMutex" || h.Connected == nil || *h.Connected {
		t.Errorf("holder %+v", h)
	}
	if want := []string{curLock(4)}; !recEqual(h.Next, want) || !strings.Contains(l.Handover(h.Node), "takes over") {
		t.Errorf("next of the holder %q (%q), want %q", h.Next, l.Handover(h.Node), want)
	}
	w1, w2 := l.Waiters[0], l.Waiters[1]
	if w1.Watch != "observed" || w1.AgeMs != (5*time.Minute).Milliseconds() || w1.Client != "127.0.0.1:5002" || w1.HeldMs != nil {
		t.Errorf("first waiter %+v", w1)
	}
	// The tables do not name this client: Curator's data does.
	if w2.Watch != "inferred" || w2.Client != "10.0.0.7" || w2.ClientFrom != ClientFromNodeData || w2.Seq != 12 {
		t.Errorf("second waiter %+v", w2)
	}
	if h.ClientFrom != "" || w1.ClientFrom != "" {
		t.Errorf("addresses from the tables marked as from the data: %q %q", h.ClientFrom, w1.ClientFrom)
	}
	recWantWarnings(t, l.Warnings,
		"holder session 0x101 has no live connection",
		"holder session 0x101 ("+curLock(3)+") may have held for up to 20m0s, longer than 10m0s (its node's age",
		"waiter session 0x103 ("+curLock(12)+") has no watch on "+curLock(4),
		"foreign child junk: not of the curator mutex layout")

	// Without the server's tables: nothing observed, no connection
	// checks, the clients as the data names them.
	l = recAsLock(t, recognizeT(t, f, dir, Options{Now: now, HeldTooLong: time.Hour}))
	for _, c := range append(l.Holders, l.Waiters...) {
		if c.Client != c.Data || c.ClientFrom != ClientFromNodeData || (c.WaitsFor != "" && c.Watch != "inferred") {
			t.Errorf("without tables: %+v", c)
		}
	}
	recWantWarnings(t, l.Warnings, "foreign child junk")
}

func TestRecognizeLockFormats(t *testing.T) {
	t.Parallel()
	type node struct {
		name, data string
		session    int64
	}
	eph := func(name, data string, s int64) node { return node{name, data, s} }
	tests := []struct {
		name           string
		nodes          []node
		recipe, format string
		holders        []string
		waiters        []string
	}{
		{"zkx", []node{eph(curLock(1), "web-1 4242", 1), eph(curLock(2), "web-2 77", 2)},
			"mutex", "zkx", []string{curLock(1)}, []string{curLock(2) + ">" + curLock(1)}},
		{"zkx and curator", []node{eph(curLock(1), "web-1 4242", 1), eph(curLock(2), "10.0.0.5", 2)},
			"mutex", "curator", []string{curLock(1)}, []string{curLock(2) + ">" + curLock(1)}},
		{"go-zookeeper", []node{eph("_c_"+testHex+"-lock-0000000000", "", 1), eph("_c_"+testHex2+"-lock-0000000001", "", 2)},
			"mutex", "go-zookeeper", []string{"_c_" + testHex + "-lock-0000000000"}, []string{"_c_" + testHex2 + "-lock-0000000001>_c_" + testHex + "-lock-0000000000"}},
		// Two layouts, so mixed; but each library sees the other's nodes
		// in sequence order: nothing to warn about.
		{"go-zookeeper and curator", []node{eph("_c_"+testHex+"-lock-0000000000", "", 1), eph(curLock(1), "", 2)},
			"mutex", "mixed", []string{"_c_" + testHex + "-lock-0000000000"}, []string{curLock(1) + ">_c_" + testHex + "-lock-0000000000"}},
		{"kazoo", []node{eph(kzLock(7), "worker-1", 1), eph(kzLock(9), "worker-2", 2)},
			"mutex", "kazoo", []string{kzLock(7)}, []string{kzLock(9) + ">" + kzLock(7)}},
		{"zookeeper WriteLock", []node{eph("x-72057594037927938-0000000000", "\x12\x34", 2), eph("x-72057594037927937-0000000001", "\x12\x34", 1)},
			"mutex", "zookeeper-recipes", []string{"x-72057594037927938-0000000000"}, []string{"x-72057594037927937-0000000001>x-72057594037927938-0000000000"}},
		{"tutorial lock-", []node{eph("lock-0000000000", "", 2), eph("lock-0000000001", "", 1)},
			"mutex", "generic", []string{"lock-0000000000"}, []string{"lock-0000000001>lock-0000000000"}},
		{"tutorial node_", []node{eph("node_0000000005", "", 1), eph("node_0000000006", "", 2)},
			"mutex", "generic", []string{"node_0000000005"}, []string{"node_0000000006>node_0000000005"}},
		{"tutorial lockid", []node{eph("lockid 0000000005", "", 1), eph("lockid 0000000006", "", 2)},
			"mutex", "generic", []string{"lockid 0000000005"}, []string{"lockid 0000000006>lockid 0000000005"}},
		{"bare sequence numbers", []node{eph("0000000001", "", 1), eph("0000000002", "", 2)},
			"mutex", "generic", []string{"0000000001"}, []string{"0000000002>0000000001"}},
		{"generic", []node{eph("other0000000001", "", 2), eph("member-0000000003", "", 1)},
			"mutex", "generic", []string{"other0000000001"}, []string{"member-0000000003>other0000000001"}},
		{"tutorial read-write", []node{eph("web-1-R-0000000001", "", 1), eph("web-2-W-0000000002", "", 2), eph("web-3-R-0000000003", "", 3)},
			"rwlock", "generic", []string{"read:web-1-R-0000000001"}, []string{"write:web-2-W-0000000002>web-1-R-0000000001", "read:web-3-R-0000000003>web-2-W-0000000002"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newRecFake()
			for _, n := range tt.nodes {
				f.add("/l/"+n.name, n.data, ephemeralOf(n.session))
			}
			l := recAsLock(t, recognizeT(t, f, "/l", Options{}))
			if l.Recipe != tt.recipe || l.Format != tt.format {
				t.Errorf("%s %s, want %s %s", l.Format, l.Recipe, tt.format, tt.recipe)
			}
			recWantNodes(t, "holders", l.Holders, tt.holders...)
			recWantNodes(t, "waiters", l.Waiters, tt.waiters...)
			recWantWarnings(t, l.Warnings)
		})
	}
}

func TestRecognizeNotALock(t *testing.T) {
	t.Parallel()
	f := newRecFake().
		add("/empty", "").
		add("/config/a", "x").add("/config/b", "y").
		add("/persistent/lock-0000000001", "").add("/persistent/lock-0000000002", "", ephemeralOf(7)).
		add("/logs/log-0000000001", "").add("/logs/log-0000000002", "").
		add("/objects/"+testHex, "").add("/objects/"+testHex2, "")
	for _, p := range []string{"/empty", "/config", "/config/a", "/persistent", "/logs", "/objects", "/"} {
		if v := recognizeT(t, f, p, Options{}); v != nil {
			t.Errorf("%s recognised as %T %+v, want nil", p, v, v)
		}
	}
	if _, err := Dir(t.Context(), f, "/missing", Options{}); !zkview.IsNoNode(err) {
		t.Errorf("missing directory: %v, want no node", err)
	}
}

func TestRecognizeReadWriteLocks(t *testing.T) {
	t.Parallel()
	// R1 R2 W3 R4 W5 R6: readers below the first writer hold.
	t.Run("curator", func(t *testing.T) {
		f := newRecFake()
		for i, name := range []string{curRead(1), curRead(2), curWrite(3), curRead(4), curWrite(5), curRead(6)} {
			f.add("/rw/"+name, "10.0.0.1", ephemeralOf(int64(i+1)))
		}
		l := recAsLock(t, recognizeT(t, f, "/rw", Options{}))
		if l.Recipe != "rwlock" || l.Format != "curator" {
			t.Errorf("%s %s", l.Format, l.Recipe)
		}
		recWantNodes(t, "holders", l.Holders, "read:"+curRead(1), "read:"+curRead(2))
		recWantNodes(t, "waiters", l.Waiters,
			"write:"+curWrite(3)+">"+curRead(2),
			"read:"+curRead(4)+">"+curWrite(3),
			"write:"+curWrite(5)+">"+curRead(4),
			"read:"+curRead(6)+">"+curWrite(3)) // the lowest writer ahead
		recWantWarnings(t, l.Warnings)
	})
	t.Run("kazoo", func(t *testing.T) {
		f := newRecFake()
		for i, name := range []string{kzRead(1), kzRead(2), kzLock(3), kzRead(4), kzLock(5), kzRead(6)} {
			f.add("/rw/"+name, "id", ephemeralOf(int64(i+1)))
		}
		l := recAsLock(t, recognizeT(t, f, "/rw", Options{}))
		if l.Recipe != "rwlock" || l.Format != "kazoo" {
			t.Errorf("%s %s", l.Format, l.Recipe)
		}
		recWantNodes(t, "holders", l.Holders, "read:"+kzRead(1), "read:"+kzRead(2))
		recWantNodes(t, "waiters", l.Waiters,
			"write:"+kzLock(3)+">"+kzRead(2),
			"read:"+kzRead(4)+">"+kzLock(5), // the highest writer: python-zk/kazoo#649
			"write:"+kzLock(5)+">"+kzRead(4),
			"read:"+kzRead(6)+">"+kzLock(5))
		recWantWarnings(t, l.Warnings, "reader "+kzRead(4)+" waits with writer "+kzLock(5)+" queued behind it: Kazoo 2.8")
	})
	t.Run("writer first", func(t *testing.T) {
		f := newRecFake()
		for i, name := range []string{curWrite(1), curRead(2), curRead(3)} {
			f.add("/rw/"+name, "", ephemeralOf(int64(i+1)))
		}
		l := recAsLock(t, recognizeT(t, f, "/rw", Options{}))
		recWantNodes(t, "holders", l.Holders, "write:"+curWrite(1))
		recWantNodes(t, "waiters", l.Waiters, "read:"+curRead(2)+">"+curWrite(1), "read:"+curRead(3)+">"+curWrite(1))
	})
}

func TestRecognizeLockDiagnostics(t *testing.T) {
	t.Parallel()
	t.Run("orphan", func(t *testing.T) {
		f := newRecFake().
			add("/o/"+curLock(1), "", ephemeralOf(5)).
			add("/o/"+curLock(2), "", ephemeralOf(6)).
			add("/o/"+curLock(3), "", ephemeralOf(5))
		l := recAsLock(t, recognizeT(t, f, "/o", Options{}))
		recWantWarnings(t, l.Warnings, "session 0x5 owns 2 nodes here ("+curLock(1)+", "+curLock(3)+")")
	})
	t.Run("near the wrap", func(t *testing.T) {
		f := newRecFake().
			add("/w/"+curLock(2147483000), "", ephemeralOf(1)).
			add("/w/"+curLock(2147483001), "", ephemeralOf(2))
		l := recAsLock(t, recognizeT(t, f, "/w", Options{}))
		recWantNodes(t, "holders", l.Holders, curLock(2147483000))
		recWantWarnings(t, l.Warnings, curLock(2147483001)+" has sequence number 2147483001, within 646 of the int32 wrap")
	})
	t.Run("past the wrap", func(t *testing.T) {
		// Curator compares the text after "lock-" as strings
		// (StandardLockInternalsDriver.fixForSorting), so after the wrap
		// each new node sorts before the older ones ("-2147483647" <
		// "-2147483648" < "2147483647") and takes the lock at once: every
		// one believes it holds.
		f := newRecFake().
			add("/w/"+curLock(2147483647), "", ephemeralOf(1)).
			add("/w/"+curLock(-2147483648), "", ephemeralOf(2)).
			add("/w/"+curLock(-2147483647), "", ephemeralOf(3))
		l := recAsLock(t, recognizeT(t, f, "/w", Options{}))
		recWantNodes(t, "holders", l.Holders, curLock(-2147483648), curLock(-2147483647), curLock(2147483647))
		recWantNodes(t, "waiters", l.Waiters)
		if !l.Broken || len(l.Alarms) == 0 || l.Alarms[0].Kind != AlarmTwoHolders {
			t.Errorf("broken %v alarms %+v, want two-holders first", l.Broken, l.Alarms)
		}
		recWantWarnings(t, l.Warnings,
			"three holders: mutual exclusion is broken",
			curLock(-2147483648)+" has a negative sequence number (-2147483648)",
			curLock(2147483647)+" has sequence number 2147483647, within 0 of the int32 wrap")
		if !strings.HasPrefix(l.Warnings[0], "three holders: mutual exclusion is broken") {
			t.Errorf("first warning %q, want the broken lock", l.Warnings[0])
		}
	})
	t.Run("many foreign children", func(t *testing.T) {
		f := newRecFake().add("/f/"+curLock(1), "", ephemeralOf(1))
		for i := 0; i < 7; i++ {
			f.add(fmt.Sprintf("/f/junk%d", i), "")
		}
		l := recAsLock(t, recognizeT(t, f, "/f", Options{}))
		recWantWarnings(t, l.Warnings, "foreign children junk0, junk1, junk2, junk3, junk4, and 2 more: not of the curator mutex layout")
	})
	t.Run("persistent generic nodes are foreign", func(t *testing.T) {
		f := newRecFake().
			add("/g/lock-0000000001", "", ephemeralOf(1)).
			add("/g/lock-0000000002", "").
			add("/g/lock-0000000003", "", ephemeralOf(3))
		l := recAsLock(t, recognizeT(t, f, "/g", Options{}))
		recWantNodes(t, "waiters", l.Waiters, "lock-0000000003>lock-0000000001")
		recWantWarnings(t, l.Warnings, "foreign child lock-0000000002: not of the generic mutex layout")
	})
}

func TestRecognizeCuratorSemaphore(t *testing.T) {
	t.Parallel()
	const dir = "/sem"
	now := recEpoch.Add(time.Minute)
	f := newRecFake().
		add(dir+"/leases/"+curLease(0), "10.0.0.1", ephemeralOf(1)).
		add(dir+"/leases/"+curLease(1), "10.0.0.2", ephemeralOf(2)).
		add(dir+"/leases/"+curLease(2), "10.0.0.3", ephemeralOf(3)). // waiting: 3 holds locks/
		add(dir+"/locks/"+curLock(5), "10.0.0.3", ephemeralOf(3)).
		add(dir+"/locks/"+curLock(6), "10.0.0.4", ephemeralOf(4)).
		add(dir+"/locks/"+curLock(7), "10.0.0.5", ephemeralOf(5))
	tables := fixedTables{watches: map[int64]map[string]bool{
		3: {}, // a child watch on leases/, which wchc does not list as a data watch
		4: {dir + "/locks/" + curLock(5): true},
	}}
	for _, p := range []string{dir, dir + "/leases", dir + "/locks"} {
		l := recAsLock(t, recognizeT(t, f, p, Options{Now: now, Tables: tables}))
		// A lease waits while two hold: full at 2, if every client has the
		// same maximum.
		if l.Path != dir || l.Recipe != "semaphore" || l.Format != "curator" || l.MaxLeases != 2 || l.MaxFrom != MaxFromInferred {
			t.Errorf("Dir(%s): %s %s %s max %d from %s", p, l.Path, l.Recipe, l.Format, l.MaxLeases, l.MaxFrom)
		}
		recWantNodes(t, "holders", l.Holders, "lease:leases/"+curLease(0), "lease:leases/"+curLease(1))
		recWantNodes(t, "waiters", l.Waiters,
			"lease:leases/"+curLease(2)+">leases",
			"locks/"+curLock(6)+">locks/"+curLock(5),
			"locks/"+curLock(7)+">locks/"+curLock(6))
		if w := l.Waiters; w[0].Watch != "inferred" || w[1].Watch != "observed" || w[2].Watch != "inferred" {
			t.Errorf("watches %q %q %q", w[0].Watch, w[1].Watch, w[2].Watch)
		}
		recWantWarnings(t, l.Warnings)
	}

	// Leases free: the holder of locks/ has no lease yet.
	f = newRecFake().
		add(dir+"/leases/"+curLease(0), "web 1", ephemeralOf(1)).
		add(dir+"/locks/"+curLock(0), "web 2", ephemeralOf(2))
	l := recAsLock(t, recognizeT(t, f, dir, Options{}))
	if l.Format != "zkx" {
		t.Errorf("format %s, want zkx", l.Format)
	}
	recWantNodes(t, "holders", l.Holders, "lease:leases/"+curLease(0))
	recWantNodes(t, "waiters", l.Waiters, "locks/"+curLock(0)+">leases")
}

func TestRecognizeKazooSemaphore(t *testing.T) {
	t.Parallel()
	f := newRecFake().
		add("/app/sem", "2").
		add("/app/sem/"+testHex, "worker-1", ephemeralOf(1)).
		add("/app/sem/"+testHex2, "worker-2", ephemeralOf(2)).
		add("/app/sem-__lock__/"+kzLock(3), "worker-3", ephemeralOf(3)).
		add("/app/sem-__lock__/"+kzLock(4), "worker-4", ephemeralOf(4))
	for _, p := range []string{"/app/sem", "/app/sem-__lock__"} {
		l := recAsLock(t, recognizeT(t, f, p, Options{}))
		if l.Path != "/app/sem" || l.Recipe != "semaphore" || l.Format != "kazoo" || l.MaxLeases != 2 {
			t.Errorf("Dir(%s): %s %s %s max %d", p, l.Path, l.Recipe, l.Format, l.MaxLeases)
		}
		recWantNodes(t, "holders", l.Holders, "lease:"+testHex, "lease:"+testHex2) // in creation order
		recWantNodes(t, "waiters", l.Waiters,
			"/app/sem-__lock__/"+kzLock(3)+">/app/sem",
			"/app/sem-__lock__/"+kzLock(4)+">/app/sem-__lock__/"+kzLock(3))
		if l.Holders[0].Data != "worker-1" || l.Holders[0].Seq != 0 {
			t.Errorf("lease %+v", l.Holders[0])
		}
		recWantWarnings(t, l.Warnings)
	}
	// An empty semaphore is still one.
	f = newRecFake().add("/s", "3").add("/s-__lock__", "")
	l := recAsLock(t, recognizeT(t, f, "/s", Options{}))
	if l.MaxLeases != 3 || len(l.Holders)+len(l.Waiters) != 0 {
		t.Errorf("empty semaphore %+v", l)
	}
	// A plain Kazoo lock whose name ends like a semaphore's.
	f = newRecFake().add("/x-__lock__/"+kzLock(1), "", ephemeralOf(1))
	if l := recAsLock(t, recognizeT(t, f, "/x-__lock__", Options{})); l.Recipe != "mutex" {
		t.Errorf("lone -__lock__ directory: %s", l.Recipe)
	}
}

func TestLockAsElection(t *testing.T) {
	t.Parallel()
	f := newRecFake().
		add("/sel/"+curLock(1), "leader-id", ephemeralOf(1)).
		add("/sel/"+curLock(2), "other-id", ephemeralOf(2))
	e := LockAsElection(*recAsLock(t, recognizeT(t, f, "/sel", Options{})))
	if e.Leader == nil || e.Leader.Node != curLock(1) || e.Leader.Data != "leader-id" || e.Format != "curator" {
		t.Errorf("leader %+v", e.Leader)
	}
	recWantNodes(t, "candidates", e.Candidates, curLock(2)+">"+curLock(1))
	if e := LockAsElection(Lock{Path: "/x"}); e.Leader != nil || e.Candidates == nil {
		t.Errorf("election of an empty lock %+v", e)
	}
}
