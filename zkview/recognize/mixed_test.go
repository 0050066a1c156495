package recognize

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/zkview"
)

// kzLockOf is a Kazoo lock node with its own id (Kazoo's uuid4().hex).
func kzLockOf(id string, seq int32) string { return kzLock(seq)[:0] + id + kzLock(seq)[32:] }

// The hex ids of three Kazoo contenders: Curator compares whole names
// without "lock-" with its sequence texts, so what they start with
// decides where Curator puts them (all after "0000000…" here).
const (
	kzA = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
	kzB = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"
)

// TestMixedLockCuratorFirst: a Curator holder, then two Kazoo contenders
// on the same path. With extra_lock_patterns=("-lock-",) Kazoo sees the
// Curator node and queues behind it; without, it sees only its own names
// and its first contender believes it holds: two holders.
func TestMixedLockCuratorFirst(t *testing.T) {
	t.Parallel()
	const dir = "/shared/lock"
	cur, k1, k2 := curLock(0), kzLockOf(kzA, 1), kzLockOf(kzB, 2)
	f := newRecFake().
		add(dir+"/"+cur, "10.0.0.5", ephemeralOf(0x10)).
		add(dir+"/"+k1, "k1", ephemeralOf(0x11)).
		add(dir+"/"+k2, "k2", ephemeralOf(0x12))
	all := map[int64]bool{0x10: true, 0x11: true, 0x12: true}

	t.Run("extra_lock_patterns, seen in the watch tables", func(t *testing.T) {
		// The warning must not hang on where Kazoo's hex ids sort beside
		// Curator's "_c_" (a real run's ids started with 1 and d): the
		// newcomer is judged by Curator's key, the text after "lock-".
		tables := fixedTables{connected: all, watches: map[int64]map[string]bool{
			0x10: {}, 0x11: {dir + "/" + cur: true}, 0x12: {dir + "/" + k1: true}}}
		l := recAsLock(t, recognizeT(t, f, dir, Options{Tables: tables}))
		if l.Format != "mixed" || strings.Join(l.Formats, ",") != "curator,kazoo" || l.Broken {
			t.Errorf("format %s %v broken %v, want mixed curator,kazoo and not broken", l.Format, l.Formats, l.Broken)
		}
		recWantNodes(t, "holders", l.Holders, cur)
		recWantNodes(t, "waiters", l.Waiters, k1+">"+cur, k2+">"+k1)
		for _, w := range l.Waiters {
			if w.Format != "kazoo" || w.View != `Kazoo Lock with extra_lock_patterns=("-lock-",)` || w.Watch != "observed" {
				t.Errorf("waiter %s: format %s view %q watch %s", w.Node, w.Format, w.View, w.Watch)
			}
		}
		if h := l.Holders[0]; h.Format != "curator" || !recEqual(h.Next, []string{k1}) ||
			!strings.HasPrefix(l.Handover(cur), "kazoo __lock__0000000001 (session 0x11) takes over") {
			t.Errorf("holder %+v, handover %q", h, l.Handover(cur))
		}
		// Sound now, but not for long: a Curator contender joining now sorts
		// the Kazoo names after its own and holds beside k1 once the
		// Curator holder releases.
		recWantWarnings(t, l.Warnings,
			"mixed layouts cannot stay safe: kazoo "+k1+" and a new curator contender joining now (Curator InterProcessMutex) would both hold the lock once "+cur+` released: Curator InterProcessMutex sorts by the text after "lock-"`)
		if l.Broken || l.MaybeBroken || len(l.Alarms) != 0 {
			t.Errorf("a lock that is sound now is broken %v, maybe %v, alarms %+v", l.Broken, l.MaybeBroken, l.Alarms)
		}
	})

	t.Run("no extra_lock_patterns, seen in the watch tables", func(t *testing.T) {
		// k1 watches nothing: it runs without extra_lock_patterns and holds.
		tables := fixedTables{connected: all, watches: map[int64]map[string]bool{
			0x10: {}, 0x11: {}, 0x12: {dir + "/" + k1: true}}}
		l := recAsLock(t, recognizeT(t, f, dir, Options{Tables: tables}))
		recWantNodes(t, "holders", l.Holders, cur, k1)
		recWantNodes(t, "waiters", l.Waiters, k2+">"+k1)
		if !l.Broken || l.MaybeBroken || l.Alarms[0].Kind != AlarmTwoHolders {
			t.Errorf("broken %v (maybe %v) alarms %+v", l.Broken, l.MaybeBroken, l.Alarms)
		}
		// k2 runs as k1 does: it does not count the Curator node either.
		recWantWarnings(t, l.Warnings,
			"two holders: mutual exclusion is broken: curator "+cur+" (session 0x10) and kazoo "+k1+" (session 0x11) each believe they hold the lock",
			`mixed layouts: 1 curator and 2 kazoo contenders in one queue`,
			"kazoo waiter session 0x12 ("+k2+") does not count curator "+cur)
		if !strings.HasPrefix(l.Warnings[0], "two holders: mutual exclusion is broken") {
			t.Errorf("the broken lock is not the first warning: %q", l.Warnings)
		}
		if !strings.Contains(l.Warnings[1], "Kazoo Lock sees only __lock__ names") {
			t.Errorf("mixed-layout warning does not say what Kazoo fails to see: %q", l.Warnings[1])
		}
	})

	t.Run("no watch tables", func(t *testing.T) {
		// Kazoo's default (k1 holds) and extra_lock_patterns (k1 waits)
		// disagree, and nothing tells which: k1 is no holder for certain.
		// It stays in line, marked as one that may hold, and the lock is
		// maybe broken, not surely.
		l := recAsLock(t, recognizeT(t, f, dir, Options{}))
		recWantNodes(t, "holders", l.Holders, cur)
		recWantNodes(t, "waiters", l.Waiters, k1+">"+cur, k2+">"+k1)
		w1, w2 := l.Waiters[0], l.Waiters[1]
		if !w1.MayHold || w1.View != `Kazoo Lock with extra_lock_patterns=("-lock-",)` ||
			w1.MayHoldReason != `holds if it runs as Kazoo Lock, waits for lock-0000000000 if it runs as Kazoo Lock with extra_lock_patterns=("-lock-",): zkx cannot tell which (the servers' watch tables were not read)` {
			t.Errorf("k1: may hold %v, view %q, reason %q", w1.MayHold, w1.View, w1.MayHoldReason)
		}
		if w2.MayHold {
			t.Errorf("k2 waits by either rule, yet may hold: %q", w2.MayHoldReason)
		}
		if l.Broken || !l.MaybeBroken || len(l.Alarms) != 1 || l.Alarms[0].Kind != AlarmMaybeTwoHolders || l.Alarms[0].Text != l.Warnings[0] {
			t.Errorf("broken %v, maybe %v, alarms %+v", l.Broken, l.MaybeBroken, l.Alarms)
		}
		recWantWarnings(t, l.Warnings,
			"maybe two holders: kazoo "+k1+" (session 0x11) may hold beside curator "+cur+" (session 0x10), which holds for certain: kazoo __lock__0000000001 holds if it runs as Kazoo Lock, waits for lock-0000000000 if it runs as Kazoo Lock with extra_lock_patterns=(\"-lock-\",): zkx cannot tell which (the servers' watch tables were not read); if so, mutual exclusion is broken. The servers' watch tables tell",
			"mixed layouts: 1 curator and 2 kazoo contenders",
			"kazoo waiter session 0x12 ("+k2+") (if it runs as Kazoo Lock, its library's default) does not count curator "+cur,
			"mixed layouts cannot stay safe: kazoo "+k1+" and a new curator contender joining now")
		if !strings.HasPrefix(l.Warnings[0], "maybe two holders: ") {
			t.Errorf("the maybe-broken lock is not the first warning: %q", l.Warnings)
		}
		// Freed, the certain holder hands over to k1 either way.
		if h := l.Holders[0]; !recEqual(h.Next, []string{k1}) || !strings.HasPrefix(l.Handover(cur), "kazoo __lock__0000000001 (session 0x11) takes over") {
			t.Errorf("next %q, handover %q", h.Next, l.Handover(cur))
		}
	})
}

// TestMixedLockKazooFirst: a Kazoo holder, then a Curator contender. Curator
// sorts by the text after "lock-", which Kazoo's names lack, so it puts
// the Kazoo node after its own and takes the lock: two holders, whatever
// Kazoo's configuration.
func TestMixedLockKazooFirst(t *testing.T) {
	t.Parallel()
	const dir = "/shared/lock"
	k0, cur := kzLockOf(kzA, 0), curLock(1)
	f := newRecFake().
		add(dir+"/"+k0, "k0", ephemeralOf(0x20)).
		add(dir+"/"+cur, "10.0.0.5", ephemeralOf(0x21))
	tables := fixedTables{connected: map[int64]bool{0x20: true, 0x21: true}, watches: map[int64]map[string]bool{0x20: {}, 0x21: {}}}
	l := recAsLock(t, recognizeT(t, f, dir, Options{Tables: tables}))
	recWantNodes(t, "holders", l.Holders, k0, cur)
	if !l.Broken {
		t.Error("not broken")
	}
	recWantWarnings(t, l.Warnings,
		"two holders: mutual exclusion is broken: kazoo "+k0+" (session 0x20) and curator "+cur+" (session 0x21)",
		`mixed layouts: 1 kazoo and 1 curator contenders in one queue (the server numbers every child of a directory in one sequence), but not every library counts the others' nodes: Curator InterProcessMutex sorts by the text after "lock-"`)

	// A Kazoo waiter behind both, configured for Curator's names: it waits
	// for the Curator node; without, for the Kazoo holder. Neither way is
	// the lock whole.
	k2 := kzLockOf(kzB, 2)
	f.add(dir+"/"+k2, "k2", ephemeralOf(0x22))
	tables.connected[0x22] = true
	tables.watches[0x22] = map[string]bool{dir + "/" + cur: true}
	l = recAsLock(t, recognizeT(t, f, dir, Options{Tables: tables}))
	recWantNodes(t, "waiters", l.Waiters, k2+">"+cur)
	// Deleting the Curator node wakes k2, which then counts k0 (a
	// __lock__ name) and waits for it.
	if h := l.Holders[1]; len(h.Next) != 0 || l.Handover(cur) != "nobody at once: kazoo __lock__0000000002 (session 0x22) wakes and then waits for __lock__0000000000; kazoo __lock__0000000000 (session 0x20) still holds" {
		t.Errorf("next %q handover %q", h.Next, l.Handover(cur))
	}
}

// TestMixedLockBlindWaiter: a Curator holder and a Kazoo waiter that does
// not see it but waits for another Kazoo node: once that one goes, it
// takes the lock while the Curator node may still hold.
func TestMixedLockBlindWaiter(t *testing.T) {
	t.Parallel()
	const dir = "/shared/lock"
	k0, cur, k2 := kzLockOf(kzA, 0), curLock(1), kzLockOf(kzB, 2)
	f := newRecFake().
		add(dir+"/"+k0, "k0", ephemeralOf(0x30)).
		add(dir+"/"+cur, "10.0.0.5", ephemeralOf(0x31)).
		add(dir+"/"+k2, "k2", ephemeralOf(0x32))
	tables := fixedTables{connected: map[int64]bool{0x30: true, 0x31: true, 0x32: true},
		watches: map[int64]map[string]bool{0x30: {}, 0x31: {}, 0x32: {dir + "/" + k0: true}}}
	l := recAsLock(t, recognizeT(t, f, dir, Options{Tables: tables}))
	recWantNodes(t, "waiters", l.Waiters, k2+">"+k0)
	recWantWarnings(t, l.Warnings, "two holders", "mixed layouts",
		"kazoo waiter session 0x32 ("+k2+") does not count curator "+cur+", queued before it: once what it waits for goes, it takes the lock even while "+cur+" holds")
}

// TestMixedReadWriteLock: Curator's and Kazoo's read-write locks on one
// path: a Curator reader does not count Kazoo's writer, so it reads while
// the Kazoo writer writes.
func TestMixedReadWriteLock(t *testing.T) {
	t.Parallel()
	const dir = "/shared/rw"
	kw, cr := kzLockOf(kzA, 0), curRead(1)
	f := newRecFake().
		add(dir+"/"+kw, "w", ephemeralOf(0x40)).
		add(dir+"/"+cr, "10.0.0.5", ephemeralOf(0x41))
	l := recAsLock(t, recognizeT(t, f, dir, Options{}))
	if l.Recipe != "rwlock" || l.Format != "mixed" {
		t.Errorf("%s %s", l.Recipe, l.Format)
	}
	recWantNodes(t, "holders", l.Holders, "write:"+kw, "read:"+cr)
	recWantWarnings(t, l.Warnings, "two holders: mutual exclusion is broken: kazoo writer "+kw+" (session 0x40) and curator reader "+cr, "mixed layouts")
}

// TestGoZooKeeperFailsOnForeignNames: go-zookeeper's zk.Lock parses every
// child's sequence and gives up on one it cannot read.
func TestGoZooKeeperFailsOnForeignNames(t *testing.T) {
	t.Parallel()
	gz := "_c_" + testHex + "-lock-0000000001"
	f := newRecFake().
		add("/g/x-72057594037927938-0000000000", "", ephemeralOf(1)).
		add("/g/"+gz, "", ephemeralOf(2))
	l := recAsLock(t, recognizeT(t, f, "/g", Options{}))
	recWantNodes(t, "holders", l.Holders, "x-72057594037927938-0000000000")
	recWantNodes(t, "waiters", l.Waiters, gz)
	recWantWarnings(t, l.Warnings, "go-zookeeper session 0x2 ("+gz+") (go-zookeeper zk.Lock): it cannot parse the sequence of x-72057594037927938-0000000000")
}

// TestHeldKnownOnlyWhenSeen: held_ms is the node's age when nothing in the
// directory changed since the holder's node was created; a holder seen
// waiting by a HoldClock held from the recognition that first showed it
// holding; otherwise it is not known.
func TestHeldKnownOnlyWhenSeen(t *testing.T) {
	t.Parallel()
	const dir = "/h"
	created := recEpoch
	f := newRecFake().add(dir+"/"+curLock(1), "", ephemeralOf(1), createdAt(created))
	now := created.Add(time.Minute)
	l := recAsLock(t, recognizeT(t, f, dir, Options{Now: now}))
	if h := l.Holders[0]; h.HeldMs == nil || *h.HeldMs != time.Minute.Milliseconds() || !h.HeldSince.Equal(created) {
		t.Errorf("sole holder, nothing changed since: held %v since %v, want a minute", h.HeldMs, h.HeldSince)
	}

	f.add(dir+"/"+curLock(2), "", ephemeralOf(2), createdAt(created.Add(30*time.Second)))
	clock := NewHoldClock()
	l = recAsLock(t, recognizeT(t, f, dir, Options{Now: now, Holds: clock}))
	if h := l.Holders[0]; h.HeldMs != nil || h.AgeMs != time.Minute.Milliseconds() {
		t.Errorf("a waiter came since, the start unseen: held %v age %d", h.HeldMs, h.AgeMs)
	}
	f.remove(dir + "/" + curLock(1))
	later := now.Add(5 * time.Second)
	l = recAsLock(t, recognizeT(t, f, dir, Options{Now: later, Holds: clock}))
	h := l.Holders[0]
	if h.Node != curLock(2) || !h.HeldSince.Equal(later) || h.HeldMs == nil || *h.HeldMs != 0 {
		t.Fatalf("the waiter seen taking over: %+v", h)
	}
	l = recAsLock(t, recognizeT(t, f, dir, Options{Now: later.Add(3 * time.Second), Holds: clock}))
	if h := l.Holders[0]; *h.HeldMs != 3000 || h.AgeMs != 38000 {
		t.Errorf("3s later: held %d ms, age %d ms, want 3000 and 38000", *h.HeldMs, h.AgeMs)
	}
	// Without the clock the start is unknown: the directory changed.
	l = recAsLock(t, recognizeT(t, f, dir, Options{Now: later}))
	if l.Holders[0].HeldMs != nil {
		t.Errorf("held %d without a clock", *l.Holders[0].HeldMs)
	}
}

// TestSilentHolder: a holder the servers have not heard from for more than
// a third of its session timeout is named, with when its session expires.
func TestSilentHolder(t *testing.T) {
	t.Parallel()
	const dir = "/s"
	now := recEpoch.Add(time.Hour)
	f := newRecFake().
		add(dir+"/"+curLock(1), "", ephemeralOf(1)).
		add(dir+"/"+curLock(2), "", ephemeralOf(2))
	heardHolder := now.Add(-25 * time.Second)
	tables := fixedTables{connected: map[int64]bool{1: true, 2: true},
		heard: map[int64]zkview.Liveness{
			1: {Heard: heardHolder, Timeout: 30 * time.Second, ExpiresBy: heardHolder.Add(30*time.Second + 200*time.Millisecond)},
			2: {Heard: now.Add(-2 * time.Second), Timeout: 30 * time.Second},
		}}
	l := recAsLock(t, recognizeT(t, f, dir, Options{Now: now, Tables: tables, HeldTooLong: 2 * time.Hour}))
	h, w := l.Holders[0], l.Waiters[0]
	if !h.Silent || *h.LastHeardMs != 25000 || w.Silent || *w.LastHeardMs != 2000 {
		t.Errorf("holder silent %v heard %d ms ago, waiter silent %v heard %d ms ago", h.Silent, *h.LastHeardMs, w.Silent, *w.LastHeardMs)
	}
	want := "holder session 0x1 (" + curLock(1) + ") has not been heard from for 25s, more than a third of its 30s session timeout: " +
		"its process is likely frozen (a GC pause, a stopped process) or cut off from the servers, and it still holds; " +
		"the servers expire its session, and free its node, by " + heardHolder.Add(30*time.Second+200*time.Millisecond).Format("15:04:05") + " (in 5s) at the latest"
	recWantWarnings(t, l.Warnings, want)
	if len(l.Alarms) != 1 || l.Alarms[0].Kind != AlarmSilent || l.Alarms[0].Node != curLock(1) {
		t.Errorf("alarms %+v", l.Alarms)
	}
}

// TestMixedSemaphore: a Curator SemaphoreV2 and a Kazoo Semaphore of two
// leases on one path: each library counts only its own (Kazoo counting
// Curator's directories as leases too), and three leases are held.
func TestMixedSemaphore(t *testing.T) {
	t.Parallel()
	f := newRecFake().
		add("/sem", "2").
		add("/sem/leases/"+curLease(0), "10.0.0.1", ephemeralOf(1)).
		add("/sem/locks/"+curLock(0), "10.0.0.9", ephemeralOf(9)).
		add("/sem/"+testHex, "k1", ephemeralOf(2)).
		add("/sem/"+testHex2, "k2", ephemeralOf(3)).
		add("/sem-__lock__/"+kzLock(0), "k3", ephemeralOf(4))
	for _, p := range []string{"/sem", "/sem/leases", "/sem-__lock__"} {
		l := recAsLock(t, recognizeT(t, f, p, Options{}))
		if l.Path != "/sem" || l.Recipe != "semaphore" || l.Format != "mixed" || strings.Join(l.Formats, ",") != "curator,kazoo" || l.MaxLeases != 2 {
			t.Errorf("Dir(%s): %s %s %s %v max %d", p, l.Path, l.Recipe, l.Format, l.Formats, l.MaxLeases)
		}
		recWantNodes(t, "holders", l.Holders, "lease:leases/"+curLease(0), "lease:"+testHex, "lease:"+testHex2)
		recWantNodes(t, "waiters", l.Waiters, "locks/"+curLock(0)+">leases", "/sem-__lock__/"+kzLock(0)+">/sem")
		recWantWarnings(t, l.Warnings,
			"mixed layouts: a Curator InterProcessSemaphoreV2 (1 lease in leases/) and a Kazoo Semaphore (2 leases) on one path",
			"3 leases are held in all, more than Kazoo's max_leases 2")
	}
}

// TestMixedLockThatStaysSound: Curator and go-zookeeper both read the
// number after "lock-", so each counts the other's nodes in sequence order,
// now and for any contender that joins: no warning beyond the format.
func TestMixedLockThatStaysSound(t *testing.T) {
	t.Parallel()
	const dir = "/shared/gz"
	gz := func(seq int32) string { return fmt.Sprintf("_c_%s-lock-%010d", testHex, seq) }
	cur, g1, c2 := curLock(0), gz(1), curLock(2)
	f := newRecFake().
		add(dir+"/"+cur, "10.0.0.5", ephemeralOf(0x10)).
		add(dir+"/"+g1, "", ephemeralOf(0x11)).
		add(dir+"/"+c2, "10.0.0.6", ephemeralOf(0x12))
	l := recAsLock(t, recognizeT(t, f, dir, Options{}))
	if l.Format != "mixed" || l.Broken || l.MaybeBroken {
		t.Errorf("format %s %v, broken %v, maybe %v", l.Format, l.Formats, l.Broken, l.MaybeBroken)
	}
	recWantNodes(t, "holders", l.Holders, cur)
	recWantNodes(t, "waiters", l.Waiters, g1+">"+cur, c2+">"+g1)
	recWantWarnings(t, l.Warnings)
}

// TestMixedLockAheadWithDigitIDs: the same queue with Kazoo ids that sort
// before Curator's "_c_" as whole names (uuid4 hex often starts with a
// digit): the Curator newcomer still sorts first by its own key.
func TestMixedLockAheadWithDigitIDs(t *testing.T) {
	t.Parallel()
	const dir = "/shared/lock"
	cur, k1 := curLock(0), kzLockOf("12cb12dd3a954d34b15a6bad6700c042", 1)
	f := newRecFake().
		add(dir+"/"+cur, "10.0.0.5", ephemeralOf(0x10)).
		add(dir+"/"+k1, "k1", ephemeralOf(0x11))
	tables := fixedTables{connected: map[int64]bool{0x10: true, 0x11: true},
		watches: map[int64]map[string]bool{0x10: {}, 0x11: {dir + "/" + cur: true}}}
	l := recAsLock(t, recognizeT(t, f, dir, Options{Tables: tables}))
	recWantNodes(t, "holders", l.Holders, cur)
	recWantWarnings(t, l.Warnings,
		"mixed layouts cannot stay safe: kazoo "+k1+" and a new curator contender joining now (Curator InterProcessMutex) would both hold the lock once "+cur+" released")
}
