package tui

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/demo"
)

// demoPage shows the demo's lanes side by side, live: each contender with
// what it does and what it watches, a flash on every notification, and
// the counters that carry the lesson.
type demoPage struct {
	shared *sharedState
	lanes  []demoLane
	snaps  []demo.LaneSnapshot
	// target is the lane k and K act on; -1 is every lane.
	target        int
	ghosts        demoGhosts
	flashes       demoFlashes
	lastSample    time.Time
	width, height int
}

// Frame pacing: smooth enough for flashes while lanes run, slow while
// paused (holders still finish), none without lanes.
const (
	demoFrame       = 50 * time.Millisecond
	demoPausedFrame = 500 * time.Millisecond
	demoSampleEvery = time.Second
	// demoMaxContenders bounds + so a held key cannot open sessions
	// without end.
	demoMaxContenders = 100
)

// holdSteps are the hold times h and H step through.
var holdSteps = []time.Duration{
	0, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
}

func newDemoPage(shared *sharedState, lanes []*demo.Lane) *demoPage {
	ls := make([]demoLane, len(lanes))
	for i, l := range lanes {
		ls[i] = l
	}
	return newDemoPageOn(shared, ls)
}

// newDemoPageOn builds the page on any lanes (tests give fakes).
func newDemoPageOn(shared *sharedState, lanes []demoLane) *demoPage {
	p := &demoPage{shared: shared, lanes: lanes, target: -1}
	p.refresh(shared.Now())
	return p
}

func (p *demoPage) Init() tea.Cmd    { return nil }
func (p *demoPage) SetSize(w, h int) { p.width, p.height = max(w, 0), max(h, 0) }
func (p *demoPage) Title() string    { return "demo" }

// refresh copies every lane's state (in memory, no I/O) and, once a
// second, samples the acquisition rate for the sparklines.
func (p *demoPage) refresh(now time.Time) {
	if p.lastSample.IsZero() || now.Sub(p.lastSample) >= demoSampleEvery {
		for _, l := range p.lanes {
			l.Sample(now)
		}
		p.lastSample = now
	}
	p.snaps = make([]demo.LaneSnapshot, len(p.lanes))
	for i, l := range p.lanes {
		p.snaps[i] = l.Snapshot()
		p.ghosts.update(i, p.snaps[i], now)
		p.flashes.update(i, p.snaps[i])
	}
}

// nextFrame keeps frames coming while the lanes run (app asks only the
// page on top, so a demo under another page costs nothing).
func (p *demoPage) nextFrame() time.Duration {
	if len(p.lanes) == 0 {
		return 0
	}
	if p.paused() {
		return demoPausedFrame
	}
	return demoFrame
}

func (p *demoPage) paused() bool { return len(p.snaps) > 0 && p.snaps[0].Paused }

func (p *demoPage) hold() time.Duration {
	if len(p.snaps) == 0 {
		return demo.DefaultHold
	}
	return p.snaps[0].Hold
}

func (p *demoPage) Update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case frameMsg:
		p.refresh(p.shared.Now())
	case tea.KeyPressMsg:
		return p, p.key(msg)
	}
	return p, nil
}

func (p *demoPage) key(msg tea.KeyPressMsg) tea.Cmd {
	k := p.shared.Keys.Demo
	if len(p.lanes) == 0 {
		return nil
	}
	switch {
	case key.Matches(msg, k.More):
		n := p.minLive()
		if c := p.shared.DemoLimit; c.Max > 0 && n >= c.Max {
			return failure(fmt.Errorf("%d contenders per lane is the most that fits: %s", c.Max, c.Reason))
		}
		if n >= demoMaxContenders {
			return failure(fmt.Errorf("the demo stops at %d contenders per lane", demoMaxContenders))
		}
		return p.eachLane(p.all(), "adding a contender", func(l demoLane) (bool, error) { return true, l.Add() }, p.countNote)
	case key.Matches(msg, k.Fewer):
		if p.minLive() <= 1 {
			return failure(fmt.Errorf("each lane keeps at least one contender"))
		}
		return p.eachLane(p.all(), "removing a contender", func(l demoLane) (bool, error) { return l.Remove(), nil }, p.countNote)
	case key.Matches(msg, k.Crash):
		return p.eachLane(p.targets(), "crash", func(l demoLane) (bool, error) { return l.CrashHolder(), nil },
			holderNote("crashed", "its lock stays until its session (Redis: its lease) expires, and everyone behind it waits"))
	case key.Matches(msg, k.Stall):
		var d time.Duration
		for _, i := range p.targets() {
			d = max(d, p.lanes[i].StallNext())
		}
		p.refresh(p.shared.Now())
		return status(fmt.Sprintf("the next holder of %s freezes for %s (no pings, no renewals), then writes: watch unsafe / refused", p.targetName(), fmtHold(d)))
	case key.Matches(msg, k.Close):
		return p.eachLane(p.targets(), "close", func(l demoLane) (bool, error) { return l.CloseHolder(), nil },
			holderNote("closed", "its session ended cleanly, so its node went at once"))
	case key.Matches(msg, k.Lane):
		p.target++
		if p.target >= len(p.lanes) {
			p.target = -1
		}
		return status("k, K and z now act on " + p.targetName())
	case key.Matches(msg, k.Pause):
		pause := !p.paused()
		for _, l := range p.lanes {
			l.SetPaused(pause)
		}
		p.refresh(p.shared.Now())
		if pause {
			return status("paused: holders finish their hold, nobody takes the lock again")
		}
		return status("running")
	case key.Matches(msg, k.HoldLonger), key.Matches(msg, k.HoldShorter):
		d := stepHold(p.hold(), key.Matches(msg, k.HoldLonger))
		for _, l := range p.lanes {
			l.SetHold(d)
		}
		p.refresh(p.shared.Now())
		return status("each holder now holds the lock for " + fmtHold(d))
	case key.Matches(msg, k.Reset):
		for _, l := range p.lanes {
			l.Reset()
		}
		p.lastSample = time.Time{}
		p.refresh(p.shared.Now())
		return status("counters reset")
	}
	return nil
}

// eachLane runs act (which may talk to ZooKeeper) on lanes at once, in a
// command, and reports the outcome on the status line.
func (p *demoPage) eachLane(which []int, what string, act func(demoLane) (bool, error), note func(done []string, names []string) string) tea.Cmd {
	lanes := make([]demoLane, len(which))
	names := make([]string, len(which))
	for i, li := range which {
		lanes[i], names[i] = p.lanes[li], p.laneName(li)
	}
	return func() tea.Msg {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			done = make([]bool, len(lanes))
			errs []string
		)
		for i, l := range lanes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := act(l)
				mu.Lock()
				defer mu.Unlock()
				done[i] = ok
				if err != nil {
					errs = append(errs, fmt.Sprintf("%s: %v", names[i], err))
				}
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			return statusMsg{text: what + ": " + strings.Join(errs, "; "), err: true}
		}
		var did []string
		for i, ok := range done {
			if ok {
				did = append(did, names[i])
			}
		}
		return statusMsg{text: note(did, names)}
	}
}

// countNote reports how many contenders the lanes have now.
func (p *demoPage) countNote(_, _ []string) string {
	n := 0
	for i, l := range p.lanes {
		c := liveContenders(l.Snapshot())
		if i == 0 || c < n {
			n = c
		}
	}
	return fmt.Sprintf("%d contenders per lane", n)
}

// holderNote reports which lanes' holders were crashed or closed.
func holderNote(verb, why string) func(done, names []string) string {
	return func(done, names []string) string {
		if len(done) == 0 {
			return "nobody held the lock of " + strings.Join(names, ", ") + " just then: try again"
		}
		return verb + " the holder of " + strings.Join(done, ", ") + ": " + why
	}
}

// laneName names lane i from its last snapshot.
func (p *demoPage) laneName(i int) string {
	if i < len(p.snaps) && p.snaps[i].Name != "" {
		return p.snaps[i].Name
	}
	return fmt.Sprintf("lane %d", i+1)
}

// all is every lane's index.
func (p *demoPage) all() []int {
	out := make([]int, len(p.lanes))
	for i := range out {
		out[i] = i
	}
	return out
}

// targets are the indexes of the lanes k and K act on.
func (p *demoPage) targets() []int {
	if p.target < 0 || p.target >= len(p.lanes) {
		return p.all()
	}
	return []int{p.target}
}

func (p *demoPage) targetName() string {
	if p.target < 0 || p.target >= len(p.lanes) {
		return "every lane"
	}
	return "the " + p.laneName(p.target) + " lane"
}

// minLive is the smallest live contender count of the lanes.
func (p *demoPage) minLive() int {
	n := 0
	for i, s := range p.snaps {
		c := liveContenders(s)
		if i == 0 || c < n {
			n = c
		}
	}
	return n
}

// stepHold moves to the next hold step up or down from d.
func stepHold(d time.Duration, longer bool) time.Duration {
	if longer {
		for _, s := range holdSteps {
			if s > d {
				return s
			}
		}
		return holdSteps[len(holdSteps)-1]
	}
	for i := len(holdSteps) - 1; i >= 0; i-- {
		if holdSteps[i] < d {
			return holdSteps[i]
		}
	}
	return holdSteps[0]
}

func fmtHold(d time.Duration) string {
	if d == 0 {
		return "0ms (released at once)"
	}
	return d.String()
}

// Keys lists the demo's keys, with k and K saying what they act on now.
func (p *demoPage) Keys() []key.Binding {
	k := p.shared.Keys.Demo
	crash, closeKey, stall, lane := k.Crash, k.Close, k.Stall, k.Lane
	on := "every lane"
	if p.target >= 0 && p.target < len(p.lanes) {
		on = p.laneName(p.target)
	}
	more, fewer := k.More, k.Fewer
	more.SetHelp(more.Help().Key, "more contenders")
	fewer.SetHelp(fewer.Help().Key, "fewer contenders")
	crash.SetHelp(crash.Help().Key, "crash holder of "+on+" (lock stays to expiry)")
	closeKey.SetHelp(closeKey.Help().Key, "close holder of "+on+" (lock goes at once)")
	stall.SetHelp(stall.Help().Key, "stall next holder of "+on+" (a pause past its lease)")
	order := []string{"all"}
	for i := range p.lanes {
		order = append(order, p.laneName(i))
	}
	lane.SetHelp(lane.Help().Key, "k/K/z act on: "+strings.Join(order, " → "))
	return []key.Binding{more, fewer, crash, closeKey, stall, lane, k.Pause, k.HoldShorter, k.HoldLonger, k.Reset}
}
