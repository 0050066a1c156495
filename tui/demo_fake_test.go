package tui

import (
	"fmt"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/tui/theme"
)

// fakeLane is a lane with a fixed snapshot that records what was asked of it.
type fakeLane struct {
	mu    sync.Mutex
	snap  demo.LaneSnapshot
	calls []string
	// holding is what CrashHolder and CloseHolder report.
	holding bool
}

func (f *fakeLane) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeLane) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeLane) Snapshot() demo.LaneSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.snap
	s.Contenders = append([]demo.ContenderSnapshot(nil), f.snap.Contenders...)
	return s
}

func (f *fakeLane) Sample(time.Time) { f.record("Sample") }

func (f *fakeLane) SetHold(d time.Duration) {
	f.record("SetHold " + d.String())
	f.mu.Lock()
	f.snap.Hold = d
	f.mu.Unlock()
}

func (f *fakeLane) SetPaused(p bool) {
	f.record(fmt.Sprintf("SetPaused %v", p))
	f.mu.Lock()
	f.snap.Paused = p
	f.mu.Unlock()
}

func (f *fakeLane) Reset() { f.record("Reset") }

func (f *fakeLane) StallNext() time.Duration { f.record("StallNext"); return 5 * time.Second }

func (f *fakeLane) Add() error {
	f.record("Add")
	f.mu.Lock()
	defer f.mu.Unlock()
	id := len(f.snap.Contenders) + 1
	f.snap.Contenders = append(f.snap.Contenders, demo.ContenderSnapshot{ID: id})
	return nil
}

func (f *fakeLane) Remove() bool {
	f.record("Remove")
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.snap.Contenders); n > 0 {
		f.snap.Contenders = f.snap.Contenders[:n-1]
	}
	return true
}

func (f *fakeLane) CrashHolder() bool { f.record("CrashHolder"); return f.holding }
func (f *fakeLane) CloseHolder() bool { f.record("CloseHolder"); return f.holding }

// demoNow is the fixed clock of the demo's tests.
var demoNow = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// demoLockNode names a Curator-style lock node with sequence seq.
func demoLockNode(seq int) string {
	return fmt.Sprintf("_c_4f9a1c2e-8b7d-4e21-9c3a-5d6e7f8a9b0c-lock-%010d", seq)
}

// demoFixedLanes are the three lanes caught mid-run with 12 contenders each:
// the chain with one waiter just notified, the herd with every waiter
// just notified, spin polling.
func demoFixedLanes() []*fakeLane {
	notified := demoNow.Add(-20 * time.Millisecond)
	longAgo := demoNow.Add(-5 * time.Second)
	hist := func(base float64) []float64 {
		var h []float64
		for i := 0; i < 40; i++ {
			h = append(h, base+float64((i*7)%5)-2)
		}
		return h
	}

	// Chain: #4 holds node 41; the line behind it in queue order, each
	// watching the node just ahead; two are working outside the lock.
	chain := demo.LaneSnapshot{Name: "chain", Kind: demo.Chain, Dir: "/zkx-demo/lanes/chain", Hold: 20 * time.Millisecond,
		Counters: demo.Counters{Acquisitions: 1234, NotificationsPerRelease: 1, ReadsPerAcquisition: 1.98, CreatesPerAcquisition: 1,
			HandoffP50Ms: 0.9, HandoffP99Ms: 3.1},
		History: hist(38)}
	order := []int{4, 9, 1, 7, 12, 3, 10, 6, 2, 11}
	for i, id := range order {
		c := demo.ContenderSnapshot{ID: id, Node: demoLockNode(41 + i), Session: int64(0x100 + id), NotifiedAt: longAgo, Acquisitions: 100}
		if i == 0 {
			c.State = demo.Holding
		} else {
			c.State, c.Watching = demo.WaitingOn, []string{demoLockNode(40 + i)}
		}
		if i == 1 {
			c.NotifiedAt = notified
		}
		chain.Contenders = append(chain.Contenders, c)
	}
	chain.Contenders = append(chain.Contenders,
		demo.ContenderSnapshot{ID: 5, State: demo.Starting, Acquisitions: 99},
		demo.ContenderSnapshot{ID: 8, State: demo.Starting, Acquisitions: 99})

	// Herd: #2 holds node 77; everyone else watches it and was just woken.
	herd := demo.LaneSnapshot{Name: "herd", Kind: demo.Herd, Dir: "/zkx-demo/lanes/herd", Hold: 20 * time.Millisecond,
		Counters: demo.Counters{Acquisitions: 987, NotificationsPerRelease: 10.94, ReadsPerAcquisition: 12.1, CreatesPerAcquisition: 1,
			HandoffP50Ms: 2.4, HandoffP99Ms: 7.8},
		History: hist(30)}
	for i := 0; i < 12; i++ {
		id := (i*5)%12 + 1
		c := demo.ContenderSnapshot{ID: id, Node: demoLockNode(77 + i), NotifiedAt: notified, Acquisitions: 80}
		if i == 0 {
			c.State, c.NotifiedAt = demo.Holding, longAgo
		} else {
			c.State, c.Watching = demo.WaitingOn, []string{demoLockNode(77)}
		}
		herd.Contenders = append(herd.Contenders, c)
	}

	// Spin: #6 holds the single lock node; the rest retry their create.
	spin := demo.LaneSnapshot{Name: "spin", Kind: demo.Spin, Dir: "/zkx-demo/lanes/spin", Hold: 20 * time.Millisecond,
		Counters: demo.Counters{Acquisitions: 412, NotificationsPerRelease: 0, ReadsPerAcquisition: 1, CreatesPerAcquisition: 9.8,
			HandoffP50Ms: 48.2, HandoffP99Ms: 101.5},
		History: hist(12)}
	for id := 1; id <= 12; id++ {
		c := demo.ContenderSnapshot{ID: id, State: demo.Polling, Acquisitions: 30}
		switch id {
		case 6:
			c.State, c.Node = demo.Holding, "lock"
		case 3, 11:
			c.State = demo.Starting
		}
		spin.Contenders = append(spin.Contenders, c)
	}
	// Redis: #2 holds the key with 21.4 s of its lease left, #5 is frozen
	// in a stall, the rest retry SET NX.
	redis := demo.LaneSnapshot{Name: "redis", Kind: demo.Redis, Dir: "zkx-demo:lock", Hold: 20 * time.Millisecond, Lease: 30 * time.Second,
		Counters: demo.Counters{Acquisitions: 405, CreatesPerAcquisition: 8.7, HandoffP50Ms: 47.9, HandoffP99Ms: 99.2,
			Renewals: 12, Stalls: 1, Writes: 405, UnsafeWrites: 1, Crashes: 2, RecoveryP50Ms: 29400, RecoveryP99Ms: 30100},
		History: hist(12),
		Key:     &demo.RedisKey{Key: "zkx-demo:lock", Token: "contender-2:9f1c", Owner: 2, TTL: 21400 * time.Millisecond, At: demoNow}}
	for id := 1; id <= 12; id++ {
		c := demo.ContenderSnapshot{ID: id, State: demo.Polling, Acquisitions: 30}
		switch id {
		case 2:
			c.State, c.Node = demo.Holding, "zkx-demo:lock"
		case 5:
			c.State, c.StalledAt = demo.Stalled, demoNow.Add(-1200*time.Millisecond)
		}
		redis.Contenders = append(redis.Contenders, c)
	}
	for _, l := range []*demo.LaneSnapshot{&chain, &herd, &spin} {
		l.Session = 3 * time.Second
	}
	return []*fakeLane{{snap: chain, holding: true}, {snap: herd, holding: true}, {snap: spin}, {snap: redis}}
}

func demoAsLanes(fs []*fakeLane) []demoLane {
	out := make([]demoLane, len(fs))
	for i, f := range fs {
		out[i] = f
	}
	return out
}

// newDemoTestPage opens the page on fakes as a running page sees them:
// it saw every contender in place before its latest notification came.
func newDemoTestPage(shared *sharedState, lanes []*fakeLane) *demoPage {
	saved := make([][]time.Time, len(lanes))
	for i, l := range lanes {
		for j := range l.snap.Contenders {
			saved[i] = append(saved[i], l.snap.Contenders[j].NotifiedAt)
			l.snap.Contenders[j].NotifiedAt = time.Time{}
		}
	}
	p := newDemoPageOn(shared, demoAsLanes(lanes))
	for i, l := range lanes {
		for j := range l.snap.Contenders {
			l.snap.Contenders[j].NotifiedAt = saved[i][j]
		}
	}
	p.refresh(shared.Now())
	return p
}

// demoTestShared is what the demo's pages share in tests: plain styles,
// a fixed clock, no server.
func demoTestShared() *sharedState {
	return &sharedState{Styles: theme.Plain(), Keys: newKeyMap(false), Now: func() time.Time { return demoNow }}
}
