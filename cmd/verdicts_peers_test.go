package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The tests in this file run real Curator and Kazoo processes against a
// real 3-member ZooKeeper ensemble, and hold zkx's verdicts — who holds
// for certain, who may, what unlock leaves, which sessions are deadlocked
// — to what the processes themselves say.

// lineSession is the session a line peer printed first.
func lineSession(t *testing.T, p *zktest.LinePeer) string {
	t.Helper()
	return strings.TrimPrefix(p.Expect(t, "SESSION "), "SESSION ")
}

// contenderOf is the contender of l whose session is session.
func contenderOf(t *testing.T, l recognize.Lock, session string) recognize.Place {
	t.Helper()
	for _, p := range l.Lineup() {
		if p.Session == session {
			return p
		}
	}
	t.Fatalf("no contender of session %s in %s: %q", session, l.Path, sessionsOf(l))
	return recognize.Place{}
}

// runAlongside runs f as a subtest of t in a goroutine of its own (t.Run
// may be called from several goroutines), which playing counts: a story
// with its own peers and paths plays while the next one does.
func runAlongside(playing *sync.WaitGroup, t *testing.T, name string, f func(t *testing.T)) {
	playing.Go(func() { t.Run(name, f) })
}

// TestPeersOnDefaultEnsemble: a 3-member ensemble in ZooKeeper's default
// configuration (four-letter words: srvr only; no AdminServer), so zkx
// reads no watch tables.
func TestPeersOnDefaultEnsemble(t *testing.T) {
	t.Parallel()
	e := zktest.RealWith(t, zktest.RealOptions{Nodes: 3, FourLetterWords: []string{"srvr"}})
	connect := e.ConnectString()
	zktest.Conn(t, connect) // the base path is created through it
	// The two stories play at once: each mostly waits for its peers.
	var playing sync.WaitGroup
	defer playing.Wait()

	// A Curator holder and two Kazoo waiters configured to count
	// Curator's node: they wait, and say so. Without the tables zkx cannot
	// tell that the first one runs with extra_lock_patterns: by Kazoo's
	// default it would hold. It is no holder for certain: it stays a
	// waiter, marked may_hold, and unlock frees the certain holder.
	runAlongside(&playing, t, "uncertain Kazoo waiter", func(t *testing.T) {
		dir := zktest.Path(t) + "/lock"
		cur := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
		cur.WaitLine(t, 0, "HOLDING")
		k1 := zktest.StartKazooLock(t, connect, dir, "k1", peerSessionTimeout, "-lock-")
		s1 := sessionOf(t, k1)
		waitLock(t, connect, dir, "k1 queued", func(l recognize.Lock) bool { return len(l.Waiters) == 1 })
		k2 := zktest.StartKazooLock(t, connect, dir, "k2", peerSessionTimeout, "-lock-")
		s2 := sessionOf(t, k2)
		l := waitLock(t, connect, dir, "k1 and k2 queued", func(l recognize.Lock) bool { return len(l.Waiters) == 2 })
		_, raw := lockOf(t, connect, dir)
		sc := sessionOf(t, cur)
		wantSessions(t, l, "holder:curator:"+sc, "waiter:kazoo:"+s1+">"+sc, "waiter:kazoo:"+s2+">"+s1)
		w1, w2 := l.Waiters[0], l.Waiters[1]
		if !w1.MayHold || !strings.HasPrefix(w1.MayHoldReason, `holds if it runs as Kazoo Lock, waits for lock-0000000000 if it runs as Kazoo Lock with extra_lock_patterns=("-lock-",): zkx cannot tell which`) ||
			w2.MayHold {
			t.Errorf("k1 may hold %v (%q), k2 may hold %v:\n%s", w1.MayHold, w1.MayHoldReason, w2.MayHold, raw)
		}
		if !l.MaybeBroken || l.Broken || len(l.Alarms) == 0 || l.Alarms[0].Kind != recognize.AlarmMaybeTwoHolders ||
			!strings.HasPrefix(l.Warnings[0], "maybe two holders: kazoo "+w1.Node+" (session "+s1+") may hold beside curator ") ||
			!strings.Contains(l.Warnings[0], "The servers' watch tables tell") {
			t.Errorf("maybe broken %v, broken %v, alarms %+v, warnings %q", l.MaybeBroken, l.Broken, l.Alarms, l.Warnings)
		}
		if !strings.Contains(raw, `"may_hold": true`) || !strings.Contains(raw, `"maybe_broken": true`) {
			t.Errorf("JSON lacks may_hold or maybe_broken:\n%s", raw)
		}
		if k1.Said("HOLDING") || k2.Said("HOLDING") {
			t.Fatalf("a Kazoo contender holds beside Curator:\n%s\n%s", k1.Output(), k2.Output())
		}
		out, errs, err := run(t, "--server", connect, "locks", "--check", dir)
		if exitCode(err) != exitCheckAlarm || !strings.Contains(out, "maybe-two-holders") {
			t.Errorf("zkx locks --check: exit %d\n%s\n%s", exitCode(err), out, errs)
		}

		// The runbook step: unlock without --node frees the one certain
		// holder, says who else may believe it holds, and what happened.
		out, errs, err = run(t, "--server", connect, "unlock", "--yes", dir)
		if err != nil || !strings.Contains(out, "deleted "+dir+"/"+l.Holders[0].Node+"\n") ||
			!strings.Contains(out, "now: kazoo "+recognize.BareName(w1.Node)+" (session "+s1+") took over: it holds now\n") ||
			!strings.Contains(out, "now: the kazoo "+recognize.BareName(w2.Node)+" (session "+s2+") still waits: kazoo "+recognize.BareName(w1.Node)+" (session "+s1+") holds\n") ||
			!strings.Contains(errs, "May also believe it holds:\n    kazoo "+recognize.BareName(w1.Node)+" (session "+s1+"): holds if it runs as Kazoo Lock") {
			t.Fatalf("zkx unlock: %v\n%s\n%s", err, out, errs)
		}
		k1.WaitLine(t, 0, "HOLDING") // Kazoo itself says k1 holds now
		if k2.Said("HOLDING") {
			t.Errorf("k2 holds too:\n%s", k2.Output())
		}
	})

	// The scene: two Curator readers hold a read-write lock, a
	// writer waits, the first reader's process is frozen. unlock frees
	// it and says plainly that the writer still waits, and on whom; the
	// writer, a real process, takes the lock only when the second reader
	// lets go.
	t.Run("read-write lock: unlock's next words", func(t *testing.T) {
		dir := zktest.Path(t) + "/rw"
		r0, r1, w2 := zktest.StartCuratorLocks(t, connect, peerSessionTimeout), zktest.StartCuratorLocks(t, connect, peerSessionTimeout),
			zktest.StartCuratorLocks(t, connect, peerSessionTimeout)
		s0, s1, s2 := lineSession(t, r0), lineSession(t, r1), lineSession(t, w2)
		r0.Do(t, "read "+dir, "read-locked "+dir)
		r1.Do(t, "read "+dir, "read-locked "+dir)
		w2.Send(t, "write "+dir)
		l := waitLock(t, connect, dir, "the writer queued", func(l recognize.Lock) bool { return len(l.Holders) == 2 && len(l.Waiters) == 1 })
		c0, c1, c2 := contenderOf(t, l, s0), contenderOf(t, l, s1), contenderOf(t, l, s2)
		r0.Pause(t) // frozen: a stuck GC, a stopped process
		out, errs, err := run(t, "--server", connect, "unlock", "--yes", "--node", c0.Node, dir)
		want := "deleted " + dir + "/" + c0.Node + "\n" +
			"now: reader curator " + recognize.BareName(c1.Node) + " (session " + s1 + ") still holds\n" +
			"now: the writer curator " + recognize.BareName(c2.Node) + " (session " + s2 + ") still waits: reader curator " + recognize.BareName(c1.Node) + " (session " + s1 + ") holds\n"
		if err != nil || out != want {
			t.Fatalf("zkx unlock --node %s: %v\ngot\n%s\nwant\n%s\n%s", c0.Node, err, out, want, errs)
		}
		if w2.Said("write-locked") {
			t.Fatalf("the writer took the lock while a reader holds:\n%s", w2.Output())
		}
		r1.Do(t, "unlock "+dir, "unlocked "+dir)
		w2.Expect(t, "write-locked "+dir)
		r0.Resume(t)
	})
}

// TestPeersDeadlocksOnEnsemble: Curator and Kazoo processes (one session
// each) and zkx's own recipes taking locks in orders that close a cycle,
// on a 3-member ensemble whose watch tables zkx reads.
func TestPeersDeadlocksOnEnsemble(t *testing.T) {
	t.Parallel()
	e := zktest.Real(t, 3)
	connect := e.ConnectString()
	zktest.Conn(t, connect)
	zkx, err := recipes.Dial(strings.Split(connect, ","))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zkx.Close() })
	zkxSession := fmt.Sprintf("0x%x", zkx.ID())
	// The story without zkx's session plays beside the one after it;
	// the two with it, one after the other.
	var playing sync.WaitGroup
	defer playing.Wait()

	// A ring across three libraries. Curator sorts a Kazoo node after
	// its own, so a Curator contender never waits behind a Kazoo one: a
	// cycle through both needs a third library Curator queues behind, in
	// Curator's layout, that queues behind Kazoo, in Kazoo's — zkx's
	// recipes write both. In l1, a mixed lock, the Kazoo process queues
	// behind the Curator holder with extra_lock_patterns.
	t.Run("ring across Curator, Kazoo and zkx", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		root := zktest.Path(t)
		l1, l2, l3 := root+"/l1", root+"/l2", root+"/l3"
		cur := zktest.StartCuratorLocks(t, connect, peerSessionTimeout)
		kz := zktest.StartKazooLocks(t, connect, "kz", peerSessionTimeout)
		sc, sk := lineSession(t, cur), lineSession(t, kz)
		cur.Do(t, "lock "+l1, "locked "+l1)
		if err := recipes.NewMutex(zkx, l2).Lock(ctx); err != nil {
			t.Fatal(err)
		}
		kz.Do(t, "lock "+l3, "locked "+l3)
		cur.Send(t, "lock "+l2)
		waitLock(t, connect, l2, "Curator queued behind zkx", func(l recognize.Lock) bool { return len(l.Waiters) == 1 })
		zkxWaits := make(chan error, 1)
		go func() { zkxWaits <- recipes.NewMutex(zkx, l3, recipes.WithFormat(recipes.Kazoo)).Lock(ctx) }()
		t.Cleanup(func() { cancel(); <-zkxWaits })
		waitLock(t, connect, l3, "zkx queued behind Kazoo", func(l recognize.Lock) bool { return len(l.Waiters) == 1 })
		kz.Send(t, "lock "+l1+" -lock-")
		locks := waitLocks(t, connect, root, "the ring deadlocked", func(ls []recognize.Lock) bool {
			return len(ls) == 3 && ls[0].Deadlocked && observedWaiters(ls[0], 1) && observedWaiters(ls[1], 1) && observedWaiters(ls[2], 1)
		})
		for _, l := range locks {
			if !l.Deadlocked || l.Alarms[0].Kind != recognize.AlarmDeadlock || !strings.HasPrefix(l.Warnings[0], "deadlock: sessions ") ||
				strings.Contains(l.Warnings[0], "It may be none") {
				t.Errorf("%s: %q", l.Path, l.Warnings)
			}
			for _, part := range []string{
				"session " + sc + " holds " + l1 + " (lock-0000000000) and waits in " + l2 + " behind session " + zkxSession,
				"session " + zkxSession + " holds " + l2 + " (lock-0000000000) and waits in " + l3 + " behind session " + sk,
				"session " + sk + " holds " + l3 + " (__lock__0000000000) and waits in " + l1 + " behind session " + sc,
			} {
				if !strings.Contains(l.Warnings[0], part) {
					t.Errorf("%s: no %q in %q", l.Path, part, l.Warnings[0])
				}
			}
		}
		if locks[0].Format != "mixed" || locks[0].Waiters[0].View != `Kazoo Lock with extra_lock_patterns=("-lock-",)` || locks[0].Waiters[0].MayHold {
			t.Errorf("l1: format %s, waiter %+v", locks[0].Format, locks[0].Waiters[0])
		}
		out, errs, err := run(t, "--server", connect, "locks", "--check", root)
		if exitCode(err) != exitCheckAlarm || strings.Count(out, "deadlock") < 3 {
			t.Errorf("zkx locks --check: exit %d\n%s\n%s", exitCode(err), out, errs)
		}
		var story sessionStoryJSON
		raw := runJSON(t, &story, "--server", connect, "sessions", "-o", "json", sc)
		if len(story.Holds) != 1 || story.Holds[0].Path != l1 || len(story.Waits) != 1 || story.Waits[0].Path != l2 ||
			len(story.Waits[0].Behind) != 1 || story.Waits[0].Behind[0].Session != zkxSession || len(story.Deadlocks) != 1 {
			t.Errorf("zkx sessions %s:\n%s", sc, raw)
		}

		// The release the warning names for l2 breaks the ring: the real
		// Curator process takes l2.
		out, errs, err = run(t, "--server", connect, "unlock", "--yes", l2)
		if err != nil || !strings.Contains(out, "now: curator lock-0000000001 (session "+sc+") took over: it holds now") {
			t.Fatalf("zkx unlock %s: %v\n%s\n%s", l2, err, out, errs)
		}
		cur.Expect(t, "locked "+l2)
		locks = waitLocks(t, connect, root, "the ring broken", func(ls []recognize.Lock) bool { return len(ls) == 3 && !ls[0].Deadlocked })
		for _, l := range locks {
			if l.Deadlocked {
				t.Errorf("%s still deadlocked: %q", l.Path, l.Warnings)
			}
		}
	})

	// The same two locks taken in opposite orders by a Curator and a
	// Kazoo process end in no deadlock: Curator, joining the lock Kazoo
	// holds, sorts the Kazoo node after its own and takes it too. Both
	// processes say they hold m2; zkx says two holders, not a deadlock.
	runAlongside(&playing, t, "Curator and Kazoo in opposite orders: a broken lock, no cycle", func(t *testing.T) {
		root := zktest.Path(t)
		m1, m2 := root+"/m1", root+"/m2"
		cur := zktest.StartCuratorLocks(t, connect, peerSessionTimeout)
		kz := zktest.StartKazooLocks(t, connect, "kz", peerSessionTimeout)
		sc, sk := lineSession(t, cur), lineSession(t, kz)
		cur.Do(t, "lock "+m1, "locked "+m1)
		kz.Do(t, "lock "+m2+" -lock-", "locked "+m2)
		cur.Do(t, "lock "+m2, "locked "+m2) // Curator itself says it holds m2, beside Kazoo
		kz.Send(t, "lock "+m1+" -lock-")
		locks := waitLocks(t, connect, root, "Kazoo queued in m1", func(ls []recognize.Lock) bool {
			return len(ls) == 2 && observedWaiters(ls[0], 1)
		})
		wantSessions(t, locks[0], "holder:curator:"+sc, "waiter:kazoo:"+sk+">"+sc)
		wantSessions(t, locks[1], "holder:kazoo:"+sk, "holder:curator:"+sc)
		if !locks[1].Broken || locks[0].Deadlocked || locks[1].Deadlocked {
			t.Errorf("m2 broken %v; deadlocked %v %v; warnings %q %q", locks[1].Broken, locks[0].Deadlocked, locks[1].Deadlocked, locks[0].Warnings, locks[1].Warnings)
		}
		if kz.Said("locked " + m1) {
			t.Errorf("Kazoo took m1 while Curator holds it:\n%s", kz.Output())
		}
	})

	// Two locks, two sessions, opposite orders: a Curator process and
	// zkx's recipes (in Curator's layout, which Curator queues behind).
	t.Run("two locks: Curator and zkx", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		root := zktest.Path(t)
		n1, n2 := root+"/n1", root+"/n2"
		cur := zktest.StartCuratorLocks(t, connect, peerSessionTimeout)
		sc := lineSession(t, cur)
		cur.Do(t, "lock "+n1, "locked "+n1)
		if err := recipes.NewMutex(zkx, n2).Lock(ctx); err != nil {
			t.Fatal(err)
		}
		cur.Send(t, "lock "+n2)
		waitLock(t, connect, n2, "Curator queued behind zkx", func(l recognize.Lock) bool { return len(l.Waiters) == 1 })
		zkxWaits := make(chan error, 1)
		go func() { zkxWaits <- recipes.NewMutex(zkx, n1).Lock(ctx) }()
		t.Cleanup(func() { cancel(); <-zkxWaits })
		locks := waitLocks(t, connect, root, "the two locks deadlocked", func(ls []recognize.Lock) bool {
			return len(ls) == 2 && ls[0].Deadlocked && ls[1].Deadlocked
		})
		var alarms []string
		for _, l := range locks {
			alarms = append(alarms, l.Alarms[0].Kind)
		}
		w := locks[0].Warnings[0]
		if !strings.HasPrefix(w, "deadlock: sessions ") || strings.Join(alarms, ",") != "deadlock,deadlock" ||
			!strings.Contains(w, "session "+sc+" holds "+n1+" (lock-0000000000) and waits in "+n2+" behind session "+zkxSession) ||
			!strings.Contains(w, "session "+zkxSession+" holds "+n2+" (lock-0000000000) and waits in "+n1+" behind session "+sc) {
			t.Errorf("warnings %q, alarms %q", w, alarms)
		}
		if cur.Said("locked " + n2) {
			t.Errorf("Curator took n2:\n%s", cur.Output())
		}
		var check []json.RawMessage
		out, _, err := run(t, "--server", connect, "locks", "--check", "-o", "json", root)
		if exitCode(err) != exitCheckAlarm || json.Unmarshal([]byte(out), &check) != nil || len(check) != 2 {
			t.Errorf("zkx locks --check -o json: exit %d\n%s", exitCode(err), out)
		}
	})
}
