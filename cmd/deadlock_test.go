package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// waitLocks runs zkx locks -o json on root until cond holds of its
// locks, or fails after testDeadline.
func waitLocks(t *testing.T, connect, root, what string, cond func([]recognize.Lock) bool) []recognize.Lock {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for {
		var locks []recognize.Lock
		raw := runJSON(t, &locks, "--server", connect, "locks", "-o", "json", root)
		if cond(locks) {
			return locks
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s:\n%s", testDeadline, what, raw)
		}
		time.Sleep(100 * time.Millisecond) // polling a condition with a deadline
	}
}

// sessionRing opens n sessions of zkx's recipes; session i takes lock i
// of root and then waits for lock i+1 (the last for lock 0): a ring of
// sessions each holding what the next waits for. It returns the sessions
// and the lock paths, once every lock is held and waited for.
func sessionRing(t *testing.T, connect, root string, n int) ([]*recipes.Session, []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var sessions []*recipes.Session
	var paths []string
	waiting := make(chan error, n)
	t.Cleanup(func() {
		cancel()
		for range n {
			<-waiting
		}
		for _, s := range sessions {
			s.Close()
		}
	})
	for i := range n {
		s, err := recipes.Dial(strings.Split(connect, ","))
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
		paths = append(paths, fmt.Sprintf("%s/l%d", root, i+1))
	}
	for i, s := range sessions {
		if err := recipes.NewMutex(s, paths[i]).Lock(ctx); err != nil {
			t.Fatalf("session %d holding %s: %v", i, paths[i], err)
		}
	}
	for i, s := range sessions {
		m := recipes.NewMutex(s, paths[(i+1)%n])
		go func() { waiting <- m.Lock(ctx) }()
	}
	waitLocks(t, connect, root, "every lock held and waited for", func(ls []recognize.Lock) bool {
		if len(ls) != n {
			return false
		}
		for _, l := range ls {
			if len(l.Holders) != 1 || len(l.Waiters) != 1 || l.Waiters[0].Watch != recognize.WatchObserved {
				return false
			}
		}
		return true
	})
	return sessions, paths
}

// TestDeadlockRing: three sessions of zkx's recipes, each holding a lock
// and waiting for the next one's: every lock of the ring leads with the
// deadlock, naming each session, what it holds, where it waits and what
// breaks it; locks --check exits 2 on it; sessions SESSION tells a
// session's part; and the release the warning names breaks the ring for
// real: the session behind takes the lock, and the deadlock is gone.
func TestDeadlockRing(t *testing.T) {
	t.Parallel()
	connect := zktest.Embedded(t)
	root := zktest.Path(t)
	sessions, paths := sessionRing(t, connect, root, 3)
	hex := func(i int) string { return fmt.Sprintf("0x%x", sessions[i].ID()) }

	locks := waitLocks(t, connect, root, "the deadlock", func(ls []recognize.Lock) bool {
		return len(ls) == 3 && ls[0].Deadlocked
	})
	for _, l := range locks {
		if !l.Deadlocked || len(l.Alarms) == 0 || l.Alarms[0].Kind != recognize.AlarmDeadlock || l.Alarms[0].Node != l.Holders[0].Node ||
			!strings.HasPrefix(l.Warnings[0], "deadlock: sessions ") {
			t.Errorf("%s: deadlock %v, alarms %+v, warnings %q", l.Path, l.Deadlocked, l.Alarms, l.Warnings)
		}
		for i := range sessions {
			holds := fmt.Sprintf("session %s holds %s (lock-", hex(i), paths[i])
			waits := fmt.Sprintf("waits in %s behind session %s", paths[(i+1)%3], hex((i+1)%3))
			if !strings.Contains(l.Warnings[0], holds) || !strings.Contains(l.Warnings[0], waits) {
				t.Errorf("%s: the warning does not say %q and %q:\n%s", l.Path, holds, waits, l.Warnings[0])
			}
			if release := fmt.Sprintf("%s's lock-0000000000 (session %s)", paths[i], hex(i)); !strings.Contains(l.Warnings[0], release) {
				t.Errorf("%s: the warning does not name the release %q:\n%s", l.Path, release, l.Warnings[0])
			}
		}
	}

	out, errs, err := run(t, "--server", connect, "locks", "--check", root)
	if exitCode(err) != exitCheckAlarm || strings.Count(out, "deadlock") < 3 {
		t.Errorf("zkx locks --check: exit %d, want %d\n%s\n%s", exitCode(err), exitCheckAlarm, out, errs)
	}
	out, _, err = run(t, "--server", connect, "locks", "-l", root)
	if err != nil || strings.Count(out, "  DEADLOCK: deadlock: sessions ") != 3 {
		t.Errorf("zkx locks -l does not lead each lock with the deadlock: %v\n%s", err, out)
	}

	// One lock asked for alone: the rest of the ring is found from the
	// ephemeral nodes the servers list.
	var one []recognize.Lock
	raw := runJSON(t, &one, "--server", connect, "locks", "-o", "json", paths[1])
	if len(one) != 1 || !one[0].Deadlocked || !strings.HasPrefix(one[0].Warnings[0], "deadlock: sessions ") {
		t.Errorf("zkx locks %s alone does not see the ring:\n%s", paths[1], raw)
	}

	// Session 0's story: it holds l1, waits in l2 behind session 1, and
	// is in the deadlock.
	var story sessionStoryJSON
	raw = runJSON(t, &story, "--server", connect, "sessions", "-o", "json", hex(0))
	if story.sessionJSON.Session != hex(0) || len(story.Holds) != 1 || story.Holds[0].Path != paths[0] ||
		len(story.Waits) != 1 || story.Waits[0].Path != paths[1] || len(story.Waits[0].Behind) != 1 || story.Waits[0].Behind[0].Session != hex(1) ||
		len(story.Deadlocks) != 1 || len(story.Others) != 0 {
		t.Errorf("zkx sessions %s -o json:\n%s", hex(0), raw)
	}
	out, _, err = run(t, "--server", connect, "sessions", hex(0))
	for _, want := range []string{
		"DEADLOCK   deadlock: sessions ",
		"holds      " + paths[0] + " (mutex, zkx): lock-0000000000, held ",
		"waits      " + paths[1] + " (mutex, zkx): waiter 1 lock-0000000001 — zkx lock-0000000000 (session " + hex(1) + ") holds",
	} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("zkx sessions %s: %v: no %q in\n%s", hex(0), err, want, out)
		}
	}

	// Free session 0's l1: session 2, behind it there, takes l1; the ring
	// is broken.
	out, errs, err = run(t, "--server", connect, "unlock", "--yes", paths[0])
	if err != nil || !strings.Contains(out, "now: zkx lock-0000000001 (session "+hex(2)+") took over: it holds now") ||
		!strings.Contains(errs, "  DEADLOCK: deadlock: sessions ") {
		t.Fatalf("zkx unlock %s: %v\n%s\n%s", paths[0], err, out, errs)
	}
	locks = waitLocks(t, connect, root, "the ring broken", func(ls []recognize.Lock) bool {
		return len(ls) == 3 && len(ls[0].Holders) == 1 && ls[0].Holders[0].Session == hex(2)
	})
	for _, l := range locks {
		if l.Deadlocked || (len(l.Alarms) > 0 && l.Alarms[0].Kind == recognize.AlarmDeadlock) {
			t.Errorf("%s still deadlocked after the release: %q", l.Path, l.Warnings)
		}
	}
	if _, _, err := run(t, "--server", connect, "locks", "--check", root); exitCode(err) != 0 {
		t.Errorf("zkx locks --check after the release: exit %d", exitCode(err))
	}
}

// TestUnlockReadWriteNextWords: two readers hold a read-write lock, a
// writer waits, a reader waits behind the writer. Freeing the first
// reader, unlock says plainly who still holds, and that the writer still
// waits, on whom; freeing the second, that the writer took over.
func TestUnlockReadWriteNextWords(t *testing.T) {
	t.Parallel()
	connect := zktest.Embedded(t)
	dir := zktest.Path(t) + "/rw"
	r0 := startContender(t, connect, func(s *recipes.Session, o recipes.Option) func(context.Context) error {
		return recipes.NewRWMutex(s, dir, o).RLock
	})
	r1 := startContender(t, connect, func(s *recipes.Session, o recipes.Option) func(context.Context) error {
		return recipes.NewRWMutex(s, dir, o).RLock
	})
	w2 := startContender(t, connect, func(s *recipes.Session, o recipes.Option) func(context.Context) error {
		return recipes.NewRWMutex(s, dir, o).Lock
	})
	r3 := startContender(t, connect, func(s *recipes.Session, o recipes.Option) func(context.Context) error {
		return recipes.NewRWMutex(s, dir, o).RLock
	})
	hex := func(c contender) string { return fmt.Sprintf("0x%x", c.session.ID()) }
	name := func(c contender) string { return recognize.BareName(c.node) }

	// Two readers hold: unlock does not guess which.
	if _, _, err := run(t, "--server", connect, "unlock", "--yes", dir); err == nil || !strings.Contains(err.Error(), "has 2 holders") {
		t.Fatalf("zkx unlock without --node on two readers: %v", err)
	}
	out, errs, err := run(t, "--server", connect, "unlock", "--yes", "--node", name(r0), dir)
	want := []string{
		"deleted " + dir + "/" + r0.node,
		"now: reader zkx " + name(r1) + " (session " + hex(r1) + ") still holds",
		"now: the writer zkx " + name(w2) + " (session " + hex(w2) + ") still waits: reader zkx " + name(r1) + " (session " + hex(r1) + ") holds",
		"now: the reader zkx " + name(r3) + " (session " + hex(r3) + ") still waits: writer zkx " + name(w2) + " (session " + hex(w2) +
			") waits ahead of it; reader zkx " + name(r1) + " (session " + hex(r1) + ") holds",
	}
	if err != nil || out != strings.Join(want, "\n")+"\n" {
		t.Errorf("zkx unlock --node %s: %v\ngot\n%s\nwant\n%s\n%s", name(r0), err, out, strings.Join(want, "\n"), errs)
	}
	// What it said before deleting: the holder's facts, in the
	// presenter's words.
	for _, line := range []string{dir + "  rwlock · zkx · 2 holding · 2 waiting", "  holder   " + name(r0), "  session  " + hex(r0),
		"  next     nobody wakes: no waiter watches this node; zkx " + name(r1) + " (session " + hex(r1) + ") still holds"} {
		if !strings.Contains(errs, line+"\n") {
			t.Errorf("unlock's description lacks %q:\n%s", line, errs)
		}
	}

	var res unlockJSON
	raw := runJSON(t, &res, "--server", connect, "unlock", "--yes", "-o", "json", dir)
	if res.Released.Node != r1.node || res.After == nil || len(res.After.Holders) != 1 || res.After.Holders[0].Node != w2.node ||
		len(res.Outcome) != 2 || res.Outcome[0] != "writer zkx "+name(w2)+" (session "+hex(w2)+") took over: it holds now" {
		t.Errorf("zkx unlock -o json on the last reader:\n%s", raw)
	}
	var check map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &check) != nil || check["may_also_hold"] == nil || check["outcome"] == nil || check["after"] == nil {
		t.Errorf("unlock's JSON lacks may_also_hold, outcome or after:\n%s", raw)
	}
}
