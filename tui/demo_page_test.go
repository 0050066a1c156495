package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkx-dev/zkx/demo"
)

// demoPageSize is the page's size: the terminal's less app's three lines
// of chrome.
func demoPageSize(w, h int) (int, int) { return w, h - chrome }

// TestDemoPage draws fixed lanes at the sizes a presenter uses and below.
func TestDemoPage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		w, h int
		prep func(*demoPage, []*fakeLane)
	}{
		{name: "120x40", w: 120, h: 40},
		{name: "80x24", w: 80, h: 24},
		{name: "60x20-stacked", w: 60, h: 20},
		{name: "crashed-chain-holder-120x40", w: 120, h: 40, prep: func(p *demoPage, lanes []*fakeLane) {
			// The chain's holder crashed 1.5s ago: it stays in line, the
			// others still wait behind it.
			lanes[0].snap.Contenders[0].State = demo.Crashed
			p.ghosts.crashed = map[ghostKey]ghost{{0, 4}: {seen: demoNow.Add(-1500 * time.Millisecond), acquisitions: 1234}}
			p.target = 0
			p.refresh(demoNow)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lanes := demoFixedLanes()
			p := newDemoTestPage(demoTestShared(), lanes)
			if tc.prep != nil {
				tc.prep(p, lanes)
			}
			w, h := demoPageSize(tc.w, tc.h)
			p.SetSize(w, h)
			out := p.View()
			demoCheckBlock(t, out, w, h)
			golden.RequireEqual(t, out)
		})
	}
}

// demoCheckBlock checks that a view is exactly w×h cells.
func demoCheckBlock(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if h == 0 {
		if out != "" {
			t.Fatalf("%dx%d: want nothing, got %q", w, h, out)
		}
		return
	}
	if len(lines) != h {
		t.Fatalf("%dx%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if got := lipgloss.Width(l); got != w {
			t.Fatalf("%dx%d: line %d is %d cells: %q", w, h, i, got, l)
		}
	}
}

// TestDemoPageSizes draws at every size down to nothing, and with no
// lanes, without panicking and at exactly the size given.
func TestDemoPageSizes(t *testing.T) {
	t.Parallel()
	for _, lanes := range [][]demoLane{demoAsLanes(demoFixedLanes()), nil} {
		p := newDemoPageOn(demoTestShared(), lanes)
		for w := 0; w <= 130; w += 7 {
			for h := 0; h <= 45; h += 3 {
				p.SetSize(w, h)
				demoCheckBlock(t, p.View(), w, h)
			}
		}
		p.SetSize(-3, -1)
		if p.View() != "" {
			t.Errorf("negative size: want nothing")
		}
	}
}

// demoPress builds a key press as the terminal sends it.
func demoPress(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// TestDemoPageKeys checks that each key calls the right lane methods, on
// the right lanes, and that those that talk to ZooKeeper do it in a
// command, not in Update.
func TestDemoPageKeys(t *testing.T) {
	t.Parallel()
	all := []int{0, 1, 2, 3}
	for _, tc := range []struct {
		keys   []string
		call   string
		lanes  []int // lanes that get call
		inCmd  bool  // the call happens when the command runs
		status string
	}{
		{keys: []string{"+"}, call: "Add", lanes: all, inCmd: true, status: "13 contenders per lane"},
		{keys: []string{"="}, call: "Add", lanes: all, inCmd: true},
		{keys: []string{"-"}, call: "Remove", lanes: all, inCmd: true, status: "11 contenders per lane"},
		{keys: []string{"k"}, call: "CrashHolder", lanes: all, inCmd: true, status: "crashed the holder of chain, herd"},
		{keys: []string{"K"}, call: "CloseHolder", lanes: all, inCmd: true, status: "closed the holder of chain, herd"},
		{keys: []string{"tab", "k"}, call: "CrashHolder", lanes: []int{0}, inCmd: true},
		{keys: []string{"tab", "tab", "K"}, call: "CloseHolder", lanes: []int{1}, inCmd: true},
		{keys: []string{"tab", "tab", "tab", "k"}, call: "CrashHolder", lanes: []int{2}, inCmd: true, status: "nobody held the lock of spin"},
		{keys: []string{"tab", "tab", "tab", "tab", "k"}, call: "CrashHolder", lanes: []int{3}, inCmd: true, status: "nobody held the lock of redis"},
		{keys: []string{"tab", "tab", "tab", "tab", "tab", "k"}, call: "CrashHolder", lanes: all, inCmd: true},
		{keys: []string{"z"}, call: "StallNext", lanes: all, status: "freezes for 5s"},
		{keys: []string{"tab", "tab", "tab", "tab", "z"}, call: "StallNext", lanes: []int{3}, status: "the next holder of the redis lane freezes"},
		{keys: []string{"p"}, call: "SetPaused true", lanes: all},
		{keys: []string{"p", "p"}, call: "SetPaused false", lanes: all},
		{keys: []string{"H"}, call: "SetHold 50ms", lanes: all},
		{keys: []string{"h"}, call: "SetHold 10ms", lanes: all},
		{keys: []string{"r"}, call: "Reset", lanes: all},
	} {
		t.Run(strings.Join(tc.keys, ","), func(t *testing.T) {
			lanes := demoFixedLanes()
			p := newDemoPageOn(demoTestShared(), demoAsLanes(lanes))
			var cmd tea.Cmd
			for _, k := range tc.keys {
				_, cmd = p.Update(demoPress(k))
			}
			if tc.inCmd {
				for _, l := range lanes {
					if slices.Contains(l.Calls(), tc.call) {
						t.Fatalf("%s ran in Update; it talks to ZooKeeper and belongs in a command", tc.call)
					}
				}
			}
			var msg tea.Msg
			if cmd != nil {
				msg = cmd()
			}
			for i, l := range lanes {
				got := slices.Contains(l.Calls(), tc.call)
				if want := slices.Contains(tc.lanes, i); got != want {
					t.Errorf("lane %d: %s called %v, want %v (calls %v)", i, tc.call, got, want, l.Calls())
				}
			}
			st, _ := msg.(statusMsg)
			if st.err {
				t.Errorf("status is an error: %q", st.text)
			}
			if tc.status != "" && !strings.Contains(st.text, tc.status) {
				t.Errorf("status %q, want it to say %q", st.text, tc.status)
			}
		})
	}
}

// TestDemoPageRefusals: - stops at one contender, + at the maximum.
func TestDemoPageRefusals(t *testing.T) {
	t.Parallel()
	lanes := demoFixedLanes()
	for _, l := range lanes {
		l.snap.Contenders = l.snap.Contenders[:1]
	}
	p := newDemoPageOn(demoTestShared(), demoAsLanes(lanes))
	_, cmd := p.Update(demoPress("-"))
	if st, ok := cmd().(statusMsg); !ok || !st.err {
		t.Errorf("- with one contender: %v, want a refusal", st)
	}
	for _, l := range lanes {
		if len(l.Calls()) > 1 { // Sample only
			t.Errorf("calls %v, want none", l.Calls())
		}
	}
	for _, l := range lanes {
		for len(l.snap.Contenders) < demoMaxContenders {
			l.snap.Contenders = append(l.snap.Contenders, demo.ContenderSnapshot{ID: len(l.snap.Contenders) + 1})
		}
	}
	p.refresh(demoNow)
	_, cmd = p.Update(demoPress("+"))
	if st, ok := cmd().(statusMsg); !ok || !st.err {
		t.Errorf("+ at %d contenders: %v, want a refusal", demoMaxContenders, st)
	}
}

// TestDemoPageFrames: frames while the lanes run, slower while paused,
// none without lanes; a sample of the rate once a second of frames.
func TestDemoPageFrames(t *testing.T) {
	t.Parallel()
	lanes := demoFixedLanes()
	now := demoNow
	shared := demoTestShared()
	shared.Now = func() time.Time { return now }
	p := newDemoPageOn(shared, demoAsLanes(lanes))
	if d := p.nextFrame(); d != demoFrame {
		t.Errorf("running: next frame in %v, want %v", d, demoFrame)
	}
	samples := func() int {
		n := 0
		for _, c := range lanes[0].Calls() {
			if c == "Sample" {
				n++
			}
		}
		return n
	}
	for i := 0; i < 40; i++ { // two seconds of frames
		now = now.Add(demoFrame)
		p.Update(frameMsg(now))
	}
	if got := samples(); got != 3 {
		t.Errorf("%d samples over 2s of frames (and the first), want 3", got)
	}
	p.Update(demoPress("p"))
	if d := p.nextFrame(); d != demoPausedFrame {
		t.Errorf("paused: next frame in %v, want %v", d, demoPausedFrame)
	}
	if d := newDemoPageOn(shared, nil).nextFrame(); d != 0 {
		t.Errorf("no lanes: next frame in %v, want none", d)
	}
}

// TestDemoFlashes: a watch that fired on a contender where it stands
// flashes it; the notification that handed it the lock last time does
// not, once it has queued again with a new node.
func TestDemoFlashes(t *testing.T) {
	t.Parallel()
	var f demoFlashes
	c := demo.ContenderSnapshot{ID: 1, State: demo.WaitingOn, Node: demoLockNode(5)}
	f.update(0, demo.LaneSnapshot{Contenders: []demo.ContenderSnapshot{c}})
	c.NotifiedAt = demoNow.Add(-10 * time.Millisecond)
	if !f.flashed(0, c, demoNow, 100*time.Millisecond) {
		t.Error("notified while waiting: want a flash")
	}
	if f.flashed(0, c, demoNow.Add(time.Second), 100*time.Millisecond) {
		t.Error("a second later: want none")
	}
	c.Node = demoLockNode(17) // it held, released, queued again
	f.update(0, demo.LaneSnapshot{Contenders: []demo.ContenderSnapshot{c}})
	if f.flashed(0, c, demoNow, 100*time.Millisecond) {
		t.Error("the notification of its last turn must not flash it in its new place")
	}
}

// TestDemoGhosts: a crashed holder is drawn until the lane moves on (its
// node went at expiry); one that left cleanly is not drawn at all.
func TestDemoGhosts(t *testing.T) {
	t.Parallel()
	s := demo.LaneSnapshot{Counters: demo.Counters{Acquisitions: 10}, Contenders: []demo.ContenderSnapshot{
		{ID: 1, State: demo.Crashed, Node: demoLockNode(5)},
		{ID: 2, State: demo.Closed, Node: demoLockNode(6)},
		{ID: 3, State: demo.WaitingOn, Node: demoLockNode(7)},
	}}
	var g demoGhosts
	g.update(0, s, demoNow)
	if !g.hidden(0, s, s.Contenders[1], demoNow) || g.hidden(0, s, s.Contenders[0], demoNow) || g.hidden(0, s, s.Contenders[2], demoNow) {
		t.Fatal("want the closed one hidden, the crashed one and the waiter drawn")
	}
	s.Counters.Acquisitions++
	if !g.hidden(0, s, s.Contenders[0], demoNow.Add(time.Second)) {
		t.Error("the lane moved on, so the crashed holder's node is gone: want it hidden")
	}
}

func TestStepHold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		from   time.Duration
		longer bool
		want   time.Duration
	}{
		{20 * time.Millisecond, true, 50 * time.Millisecond},
		{20 * time.Millisecond, false, 10 * time.Millisecond},
		{30 * time.Millisecond, true, 50 * time.Millisecond},
		{30 * time.Millisecond, false, 20 * time.Millisecond},
		{2 * time.Second, true, 2 * time.Second},
		{0, false, 0},
	} {
		if got := stepHold(tc.from, tc.longer); got != tc.want {
			t.Errorf("stepHold(%v, %v) = %v, want %v", tc.from, tc.longer, got, tc.want)
		}
	}
}
