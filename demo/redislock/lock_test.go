package redislock

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/testkit/redistest"
)

// eachServer runs f on miniredis and on a real redis-server.
func eachServer(t *testing.T, f func(t *testing.T, addr string)) {
	t.Run("miniredis", func(t *testing.T) { f(t, redistest.Embedded(t).Addr()) })
	t.Run("redis-server", func(t *testing.T) { f(t, redistest.Real(t).Addr) })
}

func client(t *testing.T, addr string) *redis.Client {
	c := NewClient(addr, nil)
	t.Cleanup(func() { c.Close() })
	return c
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds or the deadline passes: the server
// gives no signal when a key expires.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("no %s within 30s", what)
		case <-tick.C:
		}
	}
}

// TestReleaseChecksTheToken: a holder whose key now holds someone else's
// token (its lease ran out and another took the lock) must not delete it.
func TestReleaseChecksTheToken(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, addr string) {
		ctx, c := testContext(t), client(t, addr)
		st := lockstats.NewStats()
		a := New(c, "lock:token", WithStats(st), WithOwner("a"))
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if got := c.Get(ctx, "lock:token").Val(); got != a.Token() || !strings.HasPrefix(got, "a:") {
			t.Fatalf("key holds %q, want the holder's token %q", got, a.Token())
		}
		if pttl := c.PTTL(ctx, "lock:token").Val(); pttl <= 0 || pttl > DefaultLease {
			t.Fatalf("PTTL %v, want a lease of at most %v", pttl, DefaultLease)
		}
		// Someone else's lock now, as after an expiry.
		c.Set(ctx, "lock:token", "b:other", time.Minute)
		if err := a.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
			t.Fatalf("Unlock of a lock that is no longer ours: %v, want ErrNotHeld", err)
		}
		if got := c.Get(ctx, "lock:token").Val(); got != "b:other" {
			t.Fatalf("the other holder's key now holds %q: a stale release deleted it", got)
		}
		// And a lock that is ours goes.
		c.Del(ctx, "lock:token")
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if n := c.Exists(ctx, "lock:token").Val(); n != 0 {
			t.Fatal("the key is still there after Unlock")
		}
		if s := st.Snapshot(); s.Acquisitions != 2 || s.Creates != 2 {
			t.Errorf("stats %+v, want 2 acquisitions of 2 SETs", s)
		}
	})
}

// TestTryLockAndRetry: a held lock refuses TryLock, and Lock retries until
// the holder releases.
func TestTryLockAndRetry(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, addr string) {
		ctx, c := testContext(t), client(t, addr)
		st := lockstats.NewStats()
		a := New(c, "lock:retry", WithStats(st))
		b := New(c, "lock:retry", WithStats(st), WithRetry(5*time.Millisecond))
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := b.TryLock(ctx); !errors.Is(err, ErrLocked) {
			t.Fatalf("TryLock on a held lock: %v, want ErrLocked", err)
		}
		got := make(chan error, 1)
		go func() { got <- b.Lock(ctx) }()
		// a's SET, b's TryLock, b's first SET refused, then b's retry: it
		// is counted only once b has seen the lock held and started
		// waiting, so the release below happens during b's wait. (The first
		// SET is counted before it is sent: waiting for it alone let the
		// release overtake it, and no handoff was measured.)
		waitFor(t, "b's retry", func() bool { return st.Snapshot().Creates >= 4 })
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if s := st.Snapshot(); s.Acquisitions != 2 || s.Creates < 5 || s.Handoffs != 1 {
			t.Errorf("stats %+v: want a's acquisition and b's after several SETs, with its handoff measured", s)
		}
		b.Unlock(ctx)
	})
}

// TestWatchdogKeepsTheLock: a holder holding for several leases keeps the
// lock, renewed every lease/3.
func TestWatchdogKeepsTheLock(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, addr string) {
		ctx, c := testContext(t), client(t, addr)
		var renewals atomic.Uint64
		lease := 300 * time.Millisecond
		a := New(c, "lock:watchdog", WithLease(lease), WithRenewals(&renewals))
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// Six renewals, lease/3 apart: two leases have gone by.
		waitFor(t, "six renewals", func() bool { return renewals.Load() >= 6 })
		if got := c.Get(ctx, "lock:watchdog").Val(); got != a.Token() {
			t.Fatalf("after two leases the key holds %q, want our token", got)
		}
		select {
		case <-a.Done():
			t.Fatal("Done closed while the watchdog kept the lock")
		default:
		}
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAbandonedLockExpires: a holder that dies (the watchdog stops with
// it) leaves the key to its lease; then the next client takes it.
func TestAbandonedLockExpires(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, addr string) {
		ctx, c := testContext(t), client(t, addr)
		var renewals atomic.Uint64
		lease := 300 * time.Millisecond
		a := New(c, "lock:expiry", WithLease(lease), WithRenewals(&renewals))
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "a renewal", func() bool { return renewals.Load() >= 1 })
		a.Abandon()
		after := renewals.Load()
		b := New(c, "lock:expiry", WithLease(lease), WithRetry(10*time.Millisecond))
		if err := b.Lock(ctx); err != nil { // waits for the lease to run out
			t.Fatal(err)
		}
		if renewals.Load() != after {
			t.Errorf("the abandoned lock was renewed %d times after Abandon", renewals.Load()-after)
		}
		if got := c.Get(ctx, "lock:expiry").Val(); got != b.Token() {
			t.Fatalf("key holds %q, want the new holder's token", got)
		}
		b.Unlock(ctx)
	})
}

// TestWatchdogNoticesALostLock: when the key is gone (its lease ran out
// while the holder could not renew), the next renewal finds it and Done
// closes.
func TestWatchdogNoticesALostLock(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, addr string) {
		ctx, c := testContext(t), client(t, addr)
		a := New(c, "lock:lost", WithLease(300*time.Millisecond))
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		done := a.Done()
		c.Set(ctx, "lock:lost", "someone-else", time.Minute)
		select {
		case <-done:
		case <-ctx.Done():
			t.Fatal("the watchdog did not notice the lock was lost")
		}
		if err := a.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
			t.Fatalf("Unlock after the loss: %v, want ErrNotHeld", err)
		}
	})
}

// TestMiniredisExpiresOnItsClock: with ClockTTL, moving miniredis's clock
// past the lease frees an abandoned lock: the expiry the failure scenarios
// rely on (without ClockTTL no lease would ever run out).
func TestMiniredisExpiresOnItsClock(t *testing.T) {
	t.Parallel()
	m := redistest.Embedded(t)
	ctx, c := testContext(t), client(t, m.Addr())
	now := time.Now()
	m.SetTime(now)
	a := New(c, "lock:clock", WithLease(time.Hour))
	if err := a.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	a.Abandon()
	b := New(c, "lock:clock")
	if err := b.TryLock(ctx); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock before the lease ran out: %v, want ErrLocked", err)
	}
	m.SetTime(now.Add(time.Hour + time.Second))
	if err := b.TryLock(ctx); err != nil {
		t.Fatalf("TryLock after the lease ran out: %v", err)
	}
	b.Abandon()
}

// TestHandshakeLeavesNoServerErrors: Redis 7.0 counts every refused
// command; the client's connect handshake must not add any.
func TestHandshakeLeavesNoServerErrors(t *testing.T) {
	t.Parallel()
	s := redistest.Real(t)
	ctx, c := testContext(t), client(t, s.Addr)
	a := New(c, "lock:handshake")
	if err := a.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(ctx, "errorstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(info, "errorstat_") {
		t.Fatalf("the server counted errors:\n%s", info)
	}
	stats, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stats, "cmdstat_set:") || !strings.Contains(stats, "cmdstat_eval:") {
		t.Fatalf("commandstats do not show SET and EVAL:\n%s", stats)
	}
}
