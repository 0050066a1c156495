package recipes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// faultLog counts the faults a nemesis injected, by kind.
type faultLog struct {
	mu     sync.Mutex
	counts map[string]int
}

func newFaultLog() *faultLog { return &faultLog{counts: map[string]int{}} }

func (l *faultLog) add(kind string, n int) {
	l.mu.Lock()
	l.counts[kind] += n
	l.mu.Unlock()
}

func (l *faultLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	kinds := make([]string, 0, len(l.counts))
	for k := range l.counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n  %6d  %s", l.counts[k], k)
	}
	return b.String()
}

// The embedded server's nemesis. Every fault is one a real ensemble can
// produce, made on demand:
//
//   - a connection dropped (the client reconnects to its live session);
//   - a request dropped with its connection, before it is applied, or after
//     (the change happened, the answer is lost: the case protected creates
//     and uncertain deletes exist for);
//   - a session expired the way ZooKeeper expires one: the server stops
//     answering it (a one-hour reply delay), and a session timeout later
//     expires it, so its client has seen silence first;
//   - the whole server paused, as by a long GC pause or SIGSTOP, for a third
//     of a session timeout to one and a half: sessions silent for a whole
//     timeout expire when it resumes;
//   - every reply delayed for a while, by up to a fifth of a timeout.
//
// It never expires a session whose client still hears from the server (see
// nemesisContender): a holder could not know before the next holder is told.
const (
	faultDrop          = "connection dropped"
	faultDropBefore    = "request dropped with its connection, not applied"
	faultDropAfter     = "change applied, its reply lost with the connection"
	faultSilenceExpire = "session silenced, expired a timeout later"
	faultPause         = "server paused"
	faultPauseExpired  = "sessions expired by a pause"
	faultSlow          = "replies delayed for a while"
)

// embeddedNemesis injects faults into srv for d, then heals it.
func embeddedNemesis(srv *zkserver.Server, run *nemesisRun, recipes []*nemesisRecipe, base string, d time.Duration, faults *faultLog) {
	timeout := run.sessionTimeout
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup

	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if !strings.HasPrefix(r.Path, base) || rand.IntN(400) != 0 {
			return zkserver.Proceed
		}
		switch r.Op {
		case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer, jute.OpDelete:
			if rand.IntN(2) == 0 {
				faults.add(faultDropAfter, 1)
				return zkserver.DropAfterApply
			}
		case jute.OpGetData, jute.OpGetChildren, jute.OpGetChildren2, jute.OpExists:
		default:
			return zkserver.Proceed
		}
		faults.add(faultDropBefore, 1)
		return zkserver.DropBeforeApply
	})

	every := func(first, period time.Duration, f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nap(ctx, first)
			for ctx.Err() == nil {
				f()
				nap(ctx, period)
			}
		}()
	}
	var silencedMu sync.Mutex
	silenced := map[int64]bool{}
	pick := func(holders bool) (int64, *nemesisContender) {
		live := run.liveSessions()
		var ids []int64
		if holders {
			for _, r := range recipes {
				for _, h := range r.fence.heldNow() {
					if live[h.token.Session] != nil {
						ids = append(ids, h.token.Session)
					}
				}
			}
		}
		if len(ids) == 0 {
			for id := range live {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return 0, nil
		}
		id := ids[rand.IntN(len(ids))]
		return id, live[id]
	}

	every(100*time.Millisecond, 150*time.Millisecond, func() {
		if id, _ := pick(rand.IntN(2) == 0); id != 0 && srv.DropConnection(id) {
			faults.add(faultDrop, 1)
		}
	})
	every(200*time.Millisecond, 400*time.Millisecond, func() {
		id, c := pick(rand.IntN(2) == 0)
		silencedMu.Lock()
		if id == 0 || silenced[id] {
			silencedMu.Unlock()
			return
		}
		silenced[id] = true
		silencedMu.Unlock()
		if !srv.SetSessionReplyDelay(id, time.Hour) {
			return
		}
		c.lingerSession(id) // if it holds, let it try to go on holding
		faults.add(faultSilenceExpire, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(timeout) // the nemesis' schedule: the session's timeout
			if srv.ExpireSession(id) {
				for _, r := range recipes {
					r.fence.sessionExpired(id, "the nemesis expired its session")
				}
			}
		}()
	})
	every(300*time.Millisecond, 900*time.Millisecond, func() {
		srv.SetReplyDelay(time.Duration(rand.Int64N(int64(timeout / 5))))
		faults.add(faultSlow, 1)
		nap(ctx, 300*time.Millisecond)
		srv.SetReplyDelay(0)
	})
	every(1500*time.Millisecond, 4*time.Second, func() {
		srv.Pause()
		faults.add(faultPause, 1)
		// Unpaused even when the run ends meanwhile.
		time.Sleep(timeout/3 + time.Duration(rand.Int64N(int64(timeout*7/6))))
		before := srv.SessionIDs()
		srv.Resume()
		after := map[int64]bool{}
		for _, id := range srv.SessionIDs() {
			after[id] = true
		}
		for _, id := range before {
			if !after[id] {
				faults.add(faultPauseExpired, 1)
				for _, r := range recipes {
					r.fence.sessionExpired(id, "its session expired during a server pause")
				}
			}
		}
	})

	<-ctx.Done()
	wg.Wait()
	srv.SetFaultHook(nil)
	srv.SetReplyDelay(0)
}

// The real ensemble's nemesis, run on the test goroutine (the zktest
// controls fail the test from there). In turn:
//
//   - kill the leader (SIGKILL), wait for the others to elect a new one,
//     leave the old one down for a session timeout and more (the sessions
//     pinned to it expire), restart it and wait until all three serve;
//   - pause a follower (SIGSTOP) for a session timeout and a half, then
//     continue it (SIGCONT): sessions pinned to it expire; the others move
//     (it picks the follower most holders are pinned to);
//   - pause the leader for two session timeouts and more: the others elect
//     a new leader, which gives every session a fresh timeout, after which
//     the sessions pinned to the paused one expire.
//
// Each fault once, and on in turn until d has passed. Before the first and
// between faults it lets the contenders work for a while; after the last,
// runNemesis waits for their progress.
const (
	faultKillLeader    = "leader killed (SIGKILL), restarted"
	faultPauseFollower = "follower paused (SIGSTOP/SIGCONT)"
	faultPauseLeader   = "leader paused (SIGSTOP/SIGCONT)"
	realFaultKinds     = 3
)

func realNemesis(t *testing.T, e *zktest.Ensemble, run *nemesisRun, recipes []*nemesisRecipe, d time.Duration, faults *faultLog) {
	timeout := run.sessionTimeout
	start := time.Now()
	more := func(step int) bool { return step < realFaultKinds || time.Since(start) < d }
	time.Sleep(2 * time.Second) // the schedule: let the contenders get going
	for step := 0; more(step); step++ {
		leader := e.Leader(t)
		begin := time.Now()
		switch step % realFaultKinds {
		case 0:
			lingerOn(run, leader.Addr())
			leader.Kill(t)
			faults.add(faultKillLeader, 1)
			next := e.Leader(t)
			t.Logf("nemesis: killed leader %v; %v leads after %v", leader, next, time.Since(begin).Round(time.Millisecond))
			time.Sleep(timeout + time.Second) // the schedule: let pinned sessions expire
			leader.Restart(t)
		case 1:
			m := busiestFollower(e, leader, run, recipes)
			t.Logf("nemesis: pausing follower %v", m)
			lingerOn(run, m.Addr())
			m.Pause(t)
			faults.add(faultPauseFollower, 1)
			time.Sleep(timeout * 3 / 2)
			m.Resume(t)
			t.Logf("nemesis: paused follower %v for %v", m, time.Since(begin).Round(time.Millisecond))
		case 2:
			lingerOn(run, leader.Addr())
			leader.Pause(t)
			faults.add(faultPauseLeader, 1)
			time.Sleep(2*timeout + 2*time.Second)
			leader.Resume(t)
			t.Logf("nemesis: paused leader %v for %v", leader, time.Since(begin).Round(time.Millisecond))
		}
		healing := time.Now()
		e.WaitServing(t)
		t.Logf("nemesis: all three serve again %v after the fault ended", time.Since(healing).Round(time.Millisecond))
		if more(step + 1) {
			time.Sleep(2 * time.Second) // the schedule: work between faults
		}
	}
}

// busiestFollower picks the follower most holders are connected to, those
// pinned to it counting most (the others move to another member), so that
// pausing it takes holdings with it.
func busiestFollower(e *zktest.Ensemble, leader *zktest.Member, run *nemesisRun, recipes []*nemesisRecipe) *zktest.Member {
	live := run.liveSessions()
	holders := map[string]int{}
	for _, r := range recipes {
		for _, h := range r.fence.heldNow() {
			if c := live[h.token.Session]; c != nil {
				if s := c.session.Load(); s != nil {
					holders[s.Conn().Server()]++
					if len(c.servers) == 1 {
						holders[s.Conn().Server()] += 10
					}
				}
			}
		}
	}
	var best *zktest.Member
	for _, m := range e.Members() {
		if m == leader {
			continue
		}
		if best == nil || holders[m.Addr()] > holders[best.Addr()] || (holders[m.Addr()] == holders[best.Addr()] && rand.IntN(2) == 0) {
			best = m
		}
	}
	return best
}

// lingerOn asks the holders connected to addr to go on holding: the
// nemesis is about to cut that server off.
func lingerOn(run *nemesisRun, addr string) {
	for _, c := range run.liveSessions() {
		if s := c.session.Load(); s != nil && s.Conn().Server() == addr {
			c.lingerSession(s.ID())
		}
	}
}
