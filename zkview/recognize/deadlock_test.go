package recognize

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// lockOfSessions is a mutex at path held by holder's node #0, with
// waiters queued in order, each watching the one before: sessions by id.
func lockOfSessions(path, recipe string, holder int64, waiters ...int64) Lock {
	node := func(i int) string { return fmt.Sprintf("_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-%010d", i) }
	c := func(s int64, i int) Contender {
		return Contender{Node: node(i), Seq: int32(i), Format: "curator", SessionID: s, Session: sessionText(s)}
	}
	l := Lock{Path: path, Recipe: recipe, Format: "curator", Holders: []Contender{}, Waiters: []Contender{}}
	if holder != 0 {
		l.Holders = append(l.Holders, c(holder, 0))
	}
	for i, s := range waiters {
		w := c(s, i+1)
		w.WaitsFor = node(i)
		l.Waiters = append(l.Waiters, w)
	}
	return l
}

func cycleSessions(ds []Deadlock) []string {
	var out []string
	for _, d := range ds {
		var ss []string
		for _, l := range d.Links {
			ss = append(ss, l.Session)
		}
		out = append(out, strings.Join(ss, ">"))
	}
	return out
}

func TestDeadlocks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		locks  []Lock
		cycles []string // sessions in ring order, per deadlock
		breaks int      // of the first deadlock
	}{
		{"two locks taken in opposite orders", []Lock{
			lockOfSessions("/L1", recMutex, 0xa, 0xb),
			lockOfSessions("/L2", recMutex, 0xb, 0xa),
		}, []string{"0xa>0xb"}, 2},
		{"a chain that ends at a session waiting for nothing", []Lock{
			lockOfSessions("/L1", recMutex, 0xa, 0xb),
			lockOfSessions("/L2", recMutex, 0xb, 0xc),
			lockOfSessions("/L3", recMutex, 0xd, 0xa),
		}, nil, 0},
		{"a ring of three", []Lock{
			lockOfSessions("/L1", recMutex, 0xa, 0xc),
			lockOfSessions("/L2", recMutex, 0xb, 0xa),
			lockOfSessions("/L3", recMutex, 0xc, 0xb),
		}, []string{"0xa>0xb>0xc"}, 3},
		{"through a waiter queued between: it waits too", []Lock{
			lockOfSessions("/L1", recMutex, 0xa, 0xc, 0xb), // c waits behind a, b behind c
			lockOfSessions("/L2", recMutex, 0xb, 0xa),
		}, []string{"0xa>0xb>0xc"}, 2},
		{"a session waiting behind a cycle is stuck, not in it", []Lock{
			lockOfSessions("/L1", recMutex, 0xa, 0xb, 0xe),
			lockOfSessions("/L2", recMutex, 0xb, 0xa),
		}, []string{"0xa>0xb"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := Deadlocks(tc.locks)
			if got := cycleSessions(ds); strings.Join(got, " ") != strings.Join(tc.cycles, " ") {
				t.Fatalf("cycles %q, want %q", got, tc.cycles)
			}
			if len(ds) > 0 && len(ds[0].Breaks) != tc.breaks {
				t.Errorf("breaks %+v, want %d", ds[0].Breaks, tc.breaks)
			}
		})
	}
}

// TestDeadlockSemaphore: a semaphore's waiter goes on when any one lease
// goes: with one lease holder free there is no deadlock; with every lease
// holder waiting behind the waiter, there is.
func TestDeadlockSemaphore(t *testing.T) {
	t.Parallel()
	sem := Lock{Path: "/S", Recipe: recSemaphore, Format: "curator",
		Holders: []Contender{
			{Node: "leases/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lease-0000000000", Kind: "lease", SessionID: 0xb, Session: "0xb"},
			{Node: "leases/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lease-0000000001", Kind: "lease", SessionID: 0xc, Session: "0xc"},
		},
		Waiters: []Contender{{Node: "leases/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lease-0000000002", Kind: "lease", SessionID: 0xa, Session: "0xa", WaitsFor: "leases"}}}
	l1 := lockOfSessions("/L1", recMutex, 0xa, 0xb)
	if ds := Deadlocks([]Lock{sem, l1}); len(ds) != 0 {
		t.Errorf("0xc holds a lease and waits for nothing, yet: %q", cycleSessions(ds))
	}
	l1 = lockOfSessions("/L1", recMutex, 0xa, 0xb, 0xc)
	ds := Deadlocks([]Lock{sem, l1})
	if got := cycleSessions(ds); strings.Join(got, " ") != "0xa>0xb>0xc" {
		t.Fatalf("cycles %q", got)
	}
	// Any lease going lets 0xa on; 0xa's L1 node going lets 0xb, then
	// 0xc, on.
	if len(ds[0].Breaks) != 3 {
		t.Errorf("breaks %+v", ds[0].Breaks)
	}
}

// TestMarkDeadlocks: every lock of the cycle leads with the deadlock, an
// alarm of kind deadlock about its node the cycle waits behind; a lock
// outside it is untouched; the words name each session, what it holds,
// where it waits, and what breaks it.
func TestMarkDeadlocks(t *testing.T) {
	t.Parallel()
	locks := []Lock{
		lockOfSessions("/L1", recMutex, 0xa, 0xb),
		lockOfSessions("/L2", recMutex, 0xb, 0xa),
		lockOfSessions("/L3", recMutex, 0xc, 0xd),
	}
	locks[0].Warnings = []string{"something else"}
	MarkDeadlocks(locks)
	want := "deadlock: sessions 0xa and 0xb wait for each other in a cycle: session 0xa holds /L1 (lock-0000000000) and waits in /L2 behind session 0xb; " +
		"session 0xb holds /L2 (lock-0000000000) and waits in /L1 behind session 0xa. None goes on while each keeps what it holds " +
		"(unless a session's holder and its waiter are threads that let go on their own). " +
		"Releasing any one of these breaks it: /L1's lock-0000000000 (session 0xa), /L2's lock-0000000000 (session 0xb)"
	for _, l := range locks[:2] {
		if !l.Deadlocked || len(l.Warnings) == 0 || l.Warnings[0] != want || len(l.Alarms) != 1 || l.Alarms[0].Kind != AlarmDeadlock ||
			l.Alarms[0].Node != l.Holders[0].Node || l.Alarms[0].Text != want {
			t.Errorf("%s: deadlocked %v, warnings %q, alarms %+v", l.Path, l.Deadlocked, l.Warnings, l.Alarms)
		}
	}
	if locks[0].Warnings[1] != "something else" {
		t.Errorf("the lock's own warnings moved: %q", locks[0].Warnings)
	}
	if l := locks[2]; l.Deadlocked || len(l.Warnings) != 0 || len(l.Alarms) != 0 {
		t.Errorf("a lock outside the cycle: %+v", l)
	}
}

// TestDeadlockThroughAWaiterThatMayHold: a cycle through a waiter zkx
// cannot be sure waits is said, with why it may be none.
func TestDeadlockThroughAWaiterThatMayHold(t *testing.T) {
	t.Parallel()
	l1 := lockOfSessions("/L1", recMutex, 0xa, 0xb)
	l1.Waiters[0].MayHold, l1.Waiters[0].MayHoldReason = true, "holds if it runs as Kazoo Lock"
	ds := Deadlocks([]Lock{l1, lockOfSessions("/L2", recMutex, 0xb, 0xa)})
	if len(ds) != 1 || len(ds[0].Unsure) != 1 ||
		!strings.Contains(ds[0].Text(), ". It may be none: curator lock-0000000001 (session 0xb) may hold: it holds if it runs as Kazoo Lock; a waiter that holds breaks its lock instead") {
		t.Errorf("%+v\n%s", ds, ds[0].Text())
	}
}

// TestLocksAround: a viewer of one lock of a ring finds the others
// through its contenders' sessions' ephemeral nodes, and the deadlock
// with them; a lock no session of the ring touches is not read.
func TestLocksAround(t *testing.T) {
	t.Parallel()
	f := newRecFake()
	ephemerals := map[int64][]string{}
	add := func(dir string, seq int32, session int64) {
		p := dir + "/" + curLock(seq)
		f.add(p, "10.0.0.5", ephemeralOf(session))
		ephemerals[session] = append(ephemerals[session], p)
	}
	add("/r/l1", 0, 0xa)
	add("/r/l1", 1, 0xc)
	add("/r/l2", 0, 0xb)
	add("/r/l2", 1, 0xa)
	add("/r/l3", 0, 0xc)
	add("/r/l3", 1, 0xb)
	add("/elsewhere/l9", 0, 0xd)
	l := recAsLock(t, recognizeT(t, f, "/r/l1", Options{}))
	around, err := LocksAround(context.Background(), f, l, func(s int64) []string { return ephemerals[s] }, Options{Now: recEpoch}, 64)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, o := range around {
		paths = append(paths, o.Path)
	}
	if strings.Join(paths, " ") != "/r/l2 /r/l3" {
		t.Fatalf("around /r/l1: %q", paths)
	}
	marked := []Lock{*l}
	if ds := MarkDeadlocks(marked, around...); len(ds) != 1 || !marked[0].Deadlocked {
		t.Errorf("deadlocks %+v, marked %v", ds, marked[0].Deadlocked)
	}
	// The limit bounds the directories read.
	if around, _ := LocksAround(context.Background(), f, l, func(s int64) []string { return ephemerals[s] }, Options{Now: recEpoch}, 2); len(around) != 1 {
		t.Errorf("limit 2 read %d locks besides /r/l1", len(around))
	}
}
