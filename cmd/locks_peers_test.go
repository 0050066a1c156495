package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The tests in this file run real Curator and Kazoo processes
// (testdata/interop/*/LockPeer, lock_peer.py) against a real ZooKeeper: each
// prints HOLDING when its own library believes it holds the lock, which is
// what zkx's model must say.

// peerSessionTimeout is the peers' session timeout: long enough to see a
// stopped holder go silent (a third of it) well before it expires.
const peerSessionTimeout = 12 * time.Second

// lockOf runs zkx locks -o json on dir and returns its one lock.
func lockOf(t *testing.T, connect, dir string) (recognize.Lock, string) {
	t.Helper()
	var locks []recognize.Lock
	out, errs, err := run(t, "--server", connect, "locks", "-o", "json", dir)
	if err != nil || json.Unmarshal([]byte(out), &locks) != nil || len(locks) != 1 {
		t.Fatalf("zkx locks -o json %s: %v\n%s\n%s", dir, err, out, errs)
	}
	return locks[0], out
}

// waitLock runs zkx locks until cond holds of the lock (the peers' nodes
// and watches are in place), or fails after a minute.
func waitLock(t *testing.T, connect, dir, what string, cond func(l recognize.Lock) bool) recognize.Lock {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		l, out := lockOf(t, connect, dir)
		if cond(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s:\n%s", what, out)
		}
		<-tick.C
	}
}

// sessionsOf lists a lineup's nodes by role, for messages and comparisons:
// "holder:curator:SESSION", "waiter:kazoo:SESSION>SESSION".
func sessionsOf(l recognize.Lock) []string {
	bySession := map[string]string{}
	for _, p := range l.Lineup() {
		bySession[p.Node] = p.Session
	}
	var out []string
	for _, p := range l.Lineup() {
		s := p.Role + ":" + p.Format + ":" + p.Session
		if p.WaitsFor != "" {
			s += ">" + bySession[p.WaitsFor]
		}
		out = append(out, s)
	}
	return out
}

func sessionOf(t *testing.T, p *zktest.LivePeer) string {
	t.Helper()
	line, _ := p.WaitLine(t, 0, "SESSION ")
	return strings.TrimPrefix(line, "SESSION ")
}

func wantSessions(t *testing.T, l recognize.Lock, want ...string) {
	t.Helper()
	if got := sessionsOf(l); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("lock %s:\n got %q\nwant %q\nwarnings %q", l.Path, got, want, l.Warnings)
	}
}

// observedWaiters reports whether every waiter's watch is in the servers'
// tables: the peers are settled.
func observedWaiters(l recognize.Lock, n int) bool {
	if len(l.Waiters) != n {
		return false
	}
	for _, w := range l.Waiters {
		if w.Watch != recognize.WatchObserved {
			return false
		}
	}
	return true
}

// TestPeersCuratorThenKazooWithExtraPatterns: a Curator holder, then two
// Kazoo contenders configured to see Curator's nodes: one queue, one
// holder; zkx unlock hands the lock to the first Kazoo contender, which
// says it holds.
func TestPeersCuratorThenKazooWithExtraPatterns(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/lock"
	cur := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
	cur.WaitLine(t, 0, "HOLDING")
	k1 := zktest.StartKazooLock(t, connect, dir, "k1", peerSessionTimeout, "-lock-")
	s1 := sessionOf(t, k1)
	waitLock(t, connect, dir, "k1 waiting with its watch", func(l recognize.Lock) bool { return observedWaiters(l, 1) })
	k2 := zktest.StartKazooLock(t, connect, dir, "k2", peerSessionTimeout, "-lock-")
	s2 := sessionOf(t, k2)
	l := waitLock(t, connect, dir, "k1 and k2 waiting with their watches", func(l recognize.Lock) bool { return observedWaiters(l, 2) })
	sc := sessionOf(t, cur)
	wantSessions(t, l, "holder:curator:"+sc, "waiter:kazoo:"+s1+">"+sc, "waiter:kazoo:"+s2+">"+s1)
	// Sound now; the one warning is what a Curator contender joining would
	// do (TestPeersMixedLockCannotStaySafe plays it out).
	if l.Format != "mixed" || strings.Join(l.Formats, ",") != "curator,kazoo" || l.Broken || len(l.Warnings) != 1 ||
		!strings.HasPrefix(l.Warnings[0], "mixed layouts cannot stay safe: ") {
		t.Errorf("format %s %v, broken %v, warnings %q", l.Format, l.Formats, l.Broken, l.Warnings)
	}
	for _, w := range l.Waiters {
		if w.View != `Kazoo Lock with extra_lock_patterns=("-lock-",)` {
			t.Errorf("waiter %s judged as %q", w.Node, w.View)
		}
	}
	if k1.Said("HOLDING") || k2.Said("HOLDING") {
		t.Fatalf("a Kazoo contender holds beside Curator:\n%s\n%s", k1.Output(), k2.Output())
	}

	out, errs, err := run(t, "--server", connect, "locks", "--check", dir)
	if exitCode(err) != 0 || out != "" {
		t.Errorf("zkx locks --check on a sound lock: exit %d\n%s\n%s", exitCode(err), out, errs)
	}

	out, errs, err = run(t, "--server", connect, "unlock", "--yes", dir)
	if err != nil || !strings.Contains(out, "deleted "+dir+"/"+l.Holders[0].Node) ||
		!strings.Contains(out, "now: kazoo "+recognize.BareName(l.Waiters[0].Node)+" (session "+s1+") took over: it holds now") ||
		!strings.Contains(out, "now: the kazoo "+recognize.BareName(l.Waiters[1].Node)+" (session "+s2+") still waits: kazoo "+recognize.BareName(l.Waiters[0].Node)+" (session "+s1+") holds") ||
		!strings.Contains(errs, "holder   lock-0000000000") || !strings.Contains(errs, "session  "+sc) ||
		!strings.Contains(errs, "next     kazoo "+recognize.BareName(l.Waiters[0].Node)+" (session "+s1+") takes over") {
		t.Fatalf("zkx unlock: %v\n%s\n%s", err, out, errs)
	}
	k1.WaitLine(t, 0, "HOLDING")
	l = waitLock(t, connect, dir, "k1 holding", func(l recognize.Lock) bool { return len(l.Holders) == 1 && observedWaiters(l, 1) })
	wantSessions(t, l, "holder:kazoo:"+s1, "waiter:kazoo:"+s2+">"+s1)
	if k2.Said("HOLDING") {
		t.Errorf("k2 holds too:\n%s", k2.Output())
	}
}

// TestPeersMixedLockCannotStaySafe: a Curator holder and a Kazoo waiter
// that counts its node are sound, and zkx says a Curator contender joining
// would not keep them so; one joins, the holder releases, and the new
// Curator contender and the Kazoo waiter both say they hold, as zkx
// predicted and then reports.
func TestPeersMixedLockCannotStaySafe(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/lock"
	cur := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
	cur.WaitLine(t, 0, "HOLDING")
	k1 := zktest.StartKazooLock(t, connect, dir, "k1", peerSessionTimeout, "-lock-")
	s1 := sessionOf(t, k1)
	l := waitLock(t, connect, dir, "k1 waiting with its watch", func(l recognize.Lock) bool { return observedWaiters(l, 1) })
	if l.Broken || len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "mixed layouts cannot stay safe: kazoo "+l.Waiters[0].Node) ||
		!strings.Contains(l.Warnings[0], "a new curator contender joining now (Curator InterProcessMutex) would both hold the lock once") {
		t.Fatalf("broken %v, warnings %q", l.Broken, l.Warnings)
	}
	c2 := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
	s2 := sessionOf(t, c2)
	waitLock(t, connect, dir, "the second Curator contender queued", func(l recognize.Lock) bool { return len(l.Waiters) == 2 })
	cur.Send(t, "release")
	k1.WaitLine(t, 0, "HOLDING")
	c2.WaitLine(t, 0, "HOLDING")
	l = waitLock(t, connect, dir, "both holding", func(l recognize.Lock) bool { return l.Broken })
	wantSessions(t, l, "holder:kazoo:"+s1, "holder:curator:"+s2)
	if !strings.HasPrefix(l.Warnings[0], "two holders: mutual exclusion is broken") {
		t.Errorf("warnings %q", l.Warnings)
	}
}

// TestPeersCuratorThenKazooWithoutExtraPatterns: a Curator holder, then a
// Kazoo Lock without extra_lock_patterns: Kazoo sees only its own names and
// takes the lock too. zkx names both holders in the red warning, --check
// exits 2, and unlock will not guess.
func TestPeersCuratorThenKazooWithoutExtraPatterns(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/lock"
	cur := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
	cur.WaitLine(t, 0, "HOLDING")
	k1 := zktest.StartKazooLock(t, connect, dir, "k1", peerSessionTimeout)
	k1.WaitLine(t, 0, "HOLDING") // Kazoo itself says it holds
	sc, s1 := sessionOf(t, cur), sessionOf(t, k1)
	l, raw := lockOf(t, connect, dir)
	wantSessions(t, l, "holder:curator:"+sc, "holder:kazoo:"+s1)
	if !l.Broken || len(l.Alarms) == 0 || l.Alarms[0].Kind != recognize.AlarmTwoHolders ||
		!strings.HasPrefix(l.Warnings[0], "two holders: mutual exclusion is broken: curator ") {
		t.Errorf("not broken first:\n%s", raw)
	}
	if !strings.Contains(raw, `"broken": true`) || !strings.Contains(raw, `"formats": [`) {
		t.Errorf("JSON lacks broken or formats:\n%s", raw)
	}
	out, _, err := run(t, "--server", connect, "locks", "-l", dir)
	if err != nil || !strings.Contains(out, "  BROKEN: two holders: mutual exclusion is broken") {
		t.Errorf("zkx locks -l does not lead with the broken lock: %v\n%s", err, out)
	}
	out, errs, err := run(t, "--server", connect, "locks", "--check", dir)
	if exitCode(err) != exitCheckAlarm || !strings.Contains(out, dir+"  two-holders") {
		t.Errorf("zkx locks --check: exit %d, want %d:\n%s\n%s", exitCode(err), exitCheckAlarm, out, errs)
	}
	_, _, err = run(t, "--server", connect, "unlock", "--yes", dir)
	if err == nil || !strings.Contains(err.Error(), "has 2 holders") || !strings.Contains(err.Error(), "--node") {
		t.Errorf("zkx unlock guessed between two holders: %v", err)
	}
	kz := l.Holders[1]
	out, errs, err = run(t, "--server", connect, "unlock", "--yes", "--node", fmt.Sprintf("#%d", kz.Seq), dir)
	if err != nil || !strings.Contains(out, "deleted "+dir+"/"+kz.Node) || !strings.Contains(errs, "BROKEN") {
		t.Errorf("zkx unlock --node: %v\n%s\n%s", err, out, errs)
	}
	l = waitLock(t, connect, dir, "the Curator holder alone", func(l recognize.Lock) bool { return len(l.Holders) == 1 })
	wantSessions(t, l, "holder:curator:"+sc)
	if l.Broken {
		t.Errorf("still broken: %q", l.Warnings)
	}
}

// TestPeersKazooThenCurator: a Kazoo holder, then a Curator contender:
// Curator sorts by the text after "lock-", which Kazoo's names lack, so it
// takes the lock too — whether Kazoo sees Curator's names or not.
func TestPeersKazooThenCurator(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	for _, extra := range [][]string{nil, {"-lock-"}} {
		t.Run(fmt.Sprintf("extra_lock_patterns=%q", extra), func(t *testing.T) {
			dir := zktest.Path(t) + "/lock"
			k0 := zktest.StartKazooLock(t, connect, dir, "k0", peerSessionTimeout, extra...)
			k0.WaitLine(t, 0, "HOLDING")
			cur := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
			cur.WaitLine(t, 0, "HOLDING") // Curator itself says it holds
			s0, sc := sessionOf(t, k0), sessionOf(t, cur)
			l, raw := lockOf(t, connect, dir)
			wantSessions(t, l, "holder:kazoo:"+s0, "holder:curator:"+sc)
			if !l.Broken || !strings.HasPrefix(l.Warnings[0], "two holders: mutual exclusion is broken: kazoo ") ||
				!strings.Contains(raw, `Curator InterProcessMutex sorts by the text after \"lock-\"`) {
				t.Errorf("the broken lock is not named first, with Curator's blind spot:\n%s", raw)
			}
		})
	}
}

// TestPeersStoppedHolderGoesSilent: a stopped Curator holder (SIGSTOP: its
// socket stays open, it answers nothing) goes silent: its last_heard_ms
// grows past a third of its session timeout while its Kazoo waiters,
// pinging, stay heard from; zkx names it, and --check exits 2.
func TestPeersStoppedHolderGoesSilent(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/lock"
	cur := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
	cur.WaitLine(t, 0, "HOLDING")
	zktest.StartKazooLock(t, connect, dir, "k1", peerSessionTimeout, "-lock-")
	zktest.StartKazooLock(t, connect, dir, "k2", peerSessionTimeout, "-lock-")
	before := waitLock(t, connect, dir, "two waiters settled", func(l recognize.Lock) bool { return observedWaiters(l, 2) })
	if h := before.Holders[0]; h.Silent || h.LastHeardMs == nil || *h.LastHeardMs > peerSessionTimeout.Milliseconds()/3 {
		t.Fatalf("the running holder is not heard from: %+v", h)
	}
	cur.Pause(t)
	third := peerSessionTimeout.Milliseconds() / 3
	l := waitLock(t, connect, dir, "the stopped holder silent", func(l recognize.Lock) bool {
		return len(l.Holders) == 1 && l.Holders[0].Silent
	})
	h := l.Holders[0]
	if *h.LastHeardMs <= third {
		t.Errorf("silent holder heard from %d ms ago, not past a third of %v", *h.LastHeardMs, peerSessionTimeout)
	}
	for _, w := range l.Waiters {
		if w.Silent || w.LastHeardMs == nil || *w.LastHeardMs > third+500 || *w.LastHeardMs >= *h.LastHeardMs {
			t.Errorf("waiter %s: silent %v, heard %v ms ago (holder %d ms ago)", w.Node, w.Silent, w.LastHeardMs, *h.LastHeardMs)
		}
	}
	found := false
	for _, a := range l.Alarms {
		found = found || (a.Kind == recognize.AlarmSilent && a.Node == h.Node && strings.Contains(a.Text, "frozen"))
	}
	if !found {
		t.Errorf("no silent-holder alarm: %+v", l.Alarms)
	}
	out, errs, err := run(t, "--server", connect, "locks", "--check", dir)
	if exitCode(err) != exitCheckAlarm || !strings.Contains(out, "silent-holder") {
		t.Errorf("zkx locks --check: exit %d\n%s\n%s", exitCode(err), out, errs)
	}
	cur.Resume(t)
}
