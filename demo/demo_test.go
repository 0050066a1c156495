package demo

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/redistest"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// headless runs the lanes on connect and an embedded Redis, and returns
// the results by lane. The lanes run side by side, as in the interactive
// demo, each in a RunHeadless of its own with its own measured window:
// RunHeadless would run them one after another, and these lanes mostly
// wait (holds, polls, leases, sessions), so their windows can overlap.
func headless(t *testing.T, connect, redisAddr string, o HeadlessOptions) map[Kind]LaneResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o.Base = zktest.Path(t)
	o.Lane.Servers = strings.Split(connect, ",")
	o.Lane.Redis = redisAddr
	kinds := o.Lanes
	if len(kinds) == 0 {
		kinds = Kinds
	}
	results := make([]Result, len(kinds))
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, k := range kinds {
		one := o
		one.Lanes = []Kind{k}
		wg.Go(func() { results[i], errs[i] = RunHeadless(ctx, one) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	out := map[Kind]LaneResult{}
	for _, res := range results {
		for _, l := range res.Lanes {
			out[Kind(l.Lane)] = l
			t.Logf("%s: %+v", l.Lane, l)
			if l.Acquisitions == 0 {
				t.Errorf("%s: no acquisitions", l.Lane)
			}
		}
	}
	return out
}

// TestHeadlessShowsTheLesson runs the four lanes briefly and checks what
// the counters must show: one notification per release in the chain, N−1
// in the herd, none for spin and Redis (which try many times per
// acquisition instead), and no violation and no unsafe write anywhere.
func TestHeadlessShowsTheLesson(t *testing.T) {
	t.Parallel()
	zktest.EachParallel(t, func(t *testing.T, connect string) {
		const n = 5
		lanes := headless(t, connect, redistest.Embedded(t).Addr(), HeadlessOptions{
			Contenders: n, Duration: 1500 * time.Millisecond,
			// Held well past a loaded server's round trip, so that each
			// herd waiter has set its watch again before the next release:
			// a waiter that has not misses that release, and the herd's
			// count falls below N−1.
			Lane: LaneConfig{Hold: 100 * time.Millisecond, Poll: 20 * time.Millisecond},
		})
		if len(lanes) != 4 {
			t.Fatalf("%d lanes ran, want 4", len(lanes))
		}
		for k, l := range lanes {
			if l.Violations != 0 || l.UnsafeWrites != 0 || l.StaleRejected != 0 || l.Writes == 0 {
				t.Errorf("%s: %d violations, %d writes of which %d unsafe and %d refused; want writes, all safe", k, l.Violations, l.Writes, l.UnsafeWrites, l.StaleRejected)
			}
		}
		chain, herd, spin, redis := lanes[Chain], lanes[Herd], lanes[Spin], lanes[Redis]
		if chain.NotificationsPerRelease < 0.9 || chain.NotificationsPerRelease > 1.1 {
			t.Errorf("chain: %.2f notifications per release, want about 1", chain.NotificationsPerRelease)
		}
		if herd.NotificationsPerRelease < 0.8*(n-1) {
			t.Errorf("herd: %.2f notifications per release, want about %d", herd.NotificationsPerRelease, n-1)
		}
		for _, l := range []LaneResult{spin, redis} {
			if l.NotificationsPerRelease != 0 || l.CreatesPerAcquisition <= 1.5 {
				t.Errorf("%s: %.2f notifications per release and %.2f creates per acquisition, want none and many",
					l.Lane, l.NotificationsPerRelease, l.CreatesPerAcquisition)
			}
		}
		if herd.ReadsPerAcquisition <= chain.ReadsPerAcquisition {
			t.Errorf("herd reads %.2f per acquisition, chain %.2f: the herd must read more", herd.ReadsPerAcquisition, chain.ReadsPerAcquisition)
		}
	})
}

// stallOptions: holders freeze for three times the lease and the session
// timeout, so each frozen holder loses its lock while it believes it holds.
func stallOptions() HeadlessOptions {
	return HeadlessOptions{
		Contenders: 3, Duration: 3 * time.Second,
		Lane: LaneConfig{Hold: 20 * time.Millisecond, Poll: 20 * time.Millisecond,
			Lease: 400 * time.Millisecond, SessionTimeout: 400 * time.Millisecond,
			Stall: 1200 * time.Millisecond, StallEvery: 10},
	}
}

// checkStall: the Redis lane's stalled holders wrote unsafely (nothing can
// refuse a lease's write); every ZooKeeper lane's stale writes were
// refused by the token.
func checkStall(t *testing.T, lanes map[Kind]LaneResult) {
	t.Helper()
	for k, l := range lanes {
		if l.Stalls == 0 {
			t.Errorf("%s: no holder stalled", k)
			continue
		}
		if k == Redis {
			if l.UnsafeWrites == 0 {
				t.Errorf("redis: %d stalls and no unsafe write: a holder frozen past its lease must write unsafely", l.Stalls)
			}
			continue
		}
		if l.UnsafeWrites != 0 || l.StaleRejected == 0 {
			t.Errorf("%s: %d unsafe writes, %d refused: the token must refuse every stale write", k, l.UnsafeWrites, l.StaleRejected)
		}
	}
}

// stallWindows bounds the measured windows runStalls runs.
const stallWindows = 4

// runStalls runs the stall scene's lanes until each has shown a stalled
// holder's write (refused, or unsafe) and returns their counters summed
// over the windows. A stall's write comes a stall after the holder
// acquired, and lands only if the lock passed on meanwhile: on a busy
// machine a window can end before any does (the spin lane once stalled
// twice in 27 acquisitions, neither write in the window). A lane that has
// written unsafely has shown all there is to see.
func runStalls(t *testing.T, connect, redisAddr string, o HeadlessOptions) map[Kind]LaneResult {
	t.Helper()
	sum := map[Kind]LaneResult{}
	for window := 1; window <= stallWindows; window++ {
		for k, l := range headless(t, connect, redisAddr, o) {
			s := sum[k]
			s.Lane, s.Stalls, s.Writes = l.Lane, s.Stalls+l.Stalls, s.Writes+l.Writes
			s.UnsafeWrites, s.StaleRejected = s.UnsafeWrites+l.UnsafeWrites, s.StaleRejected+l.StaleRejected
			sum[k] = s
		}
		var pending []Kind
		for k, l := range sum {
			if l.UnsafeWrites == 0 && l.StaleRejected == 0 {
				pending = append(pending, k)
			}
		}
		if len(pending) == 0 {
			break
		}
		t.Logf("window %d: no stalled holder's write yet in %v", window, pending)
		o.Lanes = pending
	}
	return sum
}

func TestStallIsUnsafeOnlyWithoutAToken(t *testing.T) {
	t.Parallel()
	zktest.EachParallel(t, func(t *testing.T, connect string) {
		checkStall(t, runStalls(t, connect, redistest.Embedded(t).Addr(), stallOptions()))
	})
}

// TestStallOnRealRedis: the same on Debian's redis-server, whose keys
// expire on their own.
func TestStallOnRealRedis(t *testing.T) {
	t.Parallel()
	s := redistest.Real(t)
	o := stallOptions()
	o.Lanes = []Kind{Chain, Redis}
	checkStall(t, runStalls(t, zktest.Embedded(t), s.Addr, o))
}

// TestCrashedHolderIsRecovered: crashed holders leave their lock to expire;
// the lane takes it again after the lease or session timeout (never
// before: 2/3 of the lease is the least a renewed lease has left), and
// nobody overlaps.
func TestCrashedHolderIsRecovered(t *testing.T) {
	t.Parallel()
	const timeout = 500 * time.Millisecond
	lanes := headless(t, zktest.Embedded(t), redistest.Embedded(t).Addr(), HeadlessOptions{
		Lanes: []Kind{Chain, Spin, Redis}, Contenders: 3, Duration: 3 * time.Second,
		Lane: LaneConfig{Hold: 20 * time.Millisecond, Poll: 20 * time.Millisecond,
			Lease: timeout, SessionTimeout: timeout, CrashEvery: 5},
	})
	for k, l := range lanes {
		if l.Crashes == 0 || l.RecoveryP50Ms == 0 || l.Violations != 0 || l.UnsafeWrites != 0 {
			t.Errorf("%s: %d crashes, recovery p50 %.0f ms, %d violations, %d unsafe writes; want crashes recovered from safely",
				k, l.Crashes, l.RecoveryP50Ms, l.Violations, l.UnsafeWrites)
		}
		if least := float64(timeout.Milliseconds()) * 2 / 3; l.RecoveryP50Ms < least {
			t.Errorf("%s: recovered in %.0f ms, before the lock could have expired (%.0f ms)", k, l.RecoveryP50Ms, least)
		}
	}
}

// TestWatchdogOutlastsTheLease: holders holding longer than the lease keep
// the lock through the watchdog's renewals.
func TestWatchdogOutlastsTheLease(t *testing.T) {
	t.Parallel()
	lanes := headless(t, zktest.Embedded(t), redistest.Embedded(t).Addr(), HeadlessOptions{
		Lanes: []Kind{Redis}, Contenders: 2, Duration: 2 * time.Second,
		Lane: LaneConfig{Hold: 700 * time.Millisecond, Poll: 20 * time.Millisecond, Lease: 300 * time.Millisecond},
	})
	r := lanes[Redis]
	if r.Renewals == 0 || r.Violations != 0 || r.UnsafeWrites != 0 {
		t.Errorf("redis: %d renewals, %d violations, %d unsafe writes; want renewals and no overlap", r.Renewals, r.Violations, r.UnsafeWrites)
	}
}

func TestCheckerCountsOverlapsAndStaleTokens(t *testing.T) {
	t.Parallel()
	c := NewChecker()
	c.Enter(1, 10)
	c.Exit(1)
	c.Enter(2, 20)
	if c.Violations() != 0 {
		t.Fatal("a clean handoff counted as a violation")
	}
	c.Enter(3, 30) // 2 is still inside
	c.Exit(2)
	c.Exit(3)
	c.Enter(4, 25) // a stale token
	c.Exit(4)
	if got := c.Violations(); got != 2 {
		t.Fatalf("%d violations, want 2 (an overlap and a stale token)", got)
	}
	c.Enter(5, 0) // no token (Redis): only overlaps count
	c.Exit(5)
	c.Enter(6, 0)
	if got := c.Violations(); got != 2 {
		t.Fatalf("%d violations after two tokenless handoffs, want still 2", got)
	}
}

func TestFencedStore(t *testing.T) {
	t.Parallel()
	s := NewFencedStore()
	a := s.Grant()
	if got := s.Write(a, 10); got != Accepted {
		t.Fatalf("the holder's write: %v", got)
	}
	b := s.Grant() // a's lock passed on (its session expired)
	if got := s.Write(b, 20); got != Accepted {
		t.Fatalf("the new holder's write: %v", got)
	}
	if got := s.Write(a, 10); got != Refused {
		t.Fatalf("a stale token's write: %v, want refused", got)
	}
	// Without a token nothing can be refused: a stale holder's write lands.
	r1 := s.Grant()
	s.Grant()
	if got := s.Write(r1, 0); got != Unsafe {
		t.Fatalf("a tokenless write after the lock passed on: %v, want unsafe", got)
	}
	if c := s.Counts(); c.Writes != 3 || c.UnsafeWrites != 1 || c.StaleRejected != 1 {
		t.Fatalf("counts %+v, want 3 writes, 1 unsafe, 1 refused", c)
	}
	s.Reset()
	if got := s.Write(a, 10); got != Refused {
		t.Fatalf("after Reset the highest token still counts: %v", got)
	}
}

func TestParseKinds(t *testing.T) {
	t.Parallel()
	got, err := ParseKinds("redis, chain,redis")
	if err != nil || len(got) != 2 || got[0] != Chain || got[1] != Redis {
		t.Fatalf("ParseKinds = %v, %v; want [chain redis]", got, err)
	}
	for _, bad := range []string{"", "chain,etcd", ","} {
		if _, err := ParseKinds(bad); err == nil {
			t.Errorf("ParseKinds(%q) accepted", bad)
		}
	}
}

func TestTokenOwner(t *testing.T) {
	t.Parallel()
	if got := tokenOwner(redisOwner(12) + ":abcdef"); got != 12 {
		t.Fatalf("tokenOwner = %d, want 12", got)
	}
	if got := tokenOwner("someone-else"); got != 0 {
		t.Fatalf("tokenOwner of a foreign token = %d, want 0", got)
	}
}

// TestSweepStopsAtTheServersLimit: each count runs in fresh sessions and
// reports the server's CPU where it can be read; counts past the limit
// are not run, and the result says why.
func TestSweepStopsAtTheServersLimit(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var reads int
	res, err := Sweep(ctx, SweepOptions{
		Lanes: []Kind{Chain, Herd}, Counts: []int{2, 4, 50}, Base: zktest.Path(t), Duration: 300 * time.Millisecond,
		Lane:  LaneConfig{Servers: []string{zktest.Embedded(t)}, Hold: 5 * time.Millisecond},
		Limit: 10, LimitReason: "the server accepts 14 connections from this address (maxClientCnxns)",
		ServerCPU: func(k Kind) time.Duration {
			reads++
			if k == Herd {
				return -1 // unreadable
			}
			return time.Duration(reads) * time.Millisecond
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 4 || !strings.Contains(res.Stopped, "before 50 contenders") || !strings.Contains(res.Stopped, "maxClientCnxns") {
		t.Fatalf("%d points, stopped %q; want 2 lanes × 2 counts, stopped before 50 naming maxClientCnxns", len(res.Points), res.Stopped)
	}
	for _, p := range res.Points {
		if p.AcquisitionsPerSecond == 0 {
			t.Errorf("%s at %d: no acquisitions", p.Lane, p.Contenders)
		}
		if (p.ServerCPUMs != nil) != (p.Lane == "chain") {
			t.Errorf("%s at %d: server CPU %v; want it only where it was read", p.Lane, p.Contenders, p.ServerCPUMs)
		}
	}
}
