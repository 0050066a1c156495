package tui

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// fakeTicker records what the pacer does to the renderer's ticker.
type fakeTicker struct {
	resets, stops int
	period        time.Duration // the last Reset's
}

func (f *fakeTicker) Reset(d time.Duration) { f.resets, f.period = f.resets+1, d }
func (f *fakeTicker) Stop()                 { f.stops++ }

// pacerUnderTest is a pacer on a fake ticker and clock whose scheduled
// checks the test runs itself.
type pacerUnderTest struct {
	*framePacer
	ticker  *fakeTicker
	clock   time.Time
	pending []func()
	waits   []time.Duration
}

func newPacerUnderTest() *pacerUnderTest {
	pt := &pacerUnderTest{ticker: &fakeTicker{}, clock: time.Unix(0, 0)}
	pt.framePacer = &framePacer{
		frame:   10 * time.Millisecond,
		find:    func() pacedTicker { return pt.ticker },
		now:     func() time.Time { return pt.clock },
		after:   func(d time.Duration, f func()) { pt.pending = append(pt.pending, f); pt.waits = append(pt.waits, d) },
		running: true,
	}
	return pt
}

// runCheck runs the oldest scheduled check after moving the clock by d.
func (pt *pacerUnderTest) runCheck(t *testing.T, d time.Duration) {
	t.Helper()
	if len(pt.pending) == 0 {
		t.Fatal("no check scheduled")
	}
	f := pt.pending[0]
	pt.pending, pt.waits = pt.pending[1:], pt.waits[1:]
	pt.clock = pt.clock.Add(d)
	f()
}

// TestFramePacer: frames keep the ticker running without pushing its next
// tick back; idleFrames frames without one stop it; the next frame starts
// it again.
func TestFramePacer(t *testing.T) {
	t.Parallel()
	pt := newPacerUnderTest()
	pt.framed(false)
	if pt.ticker.resets != 0 || len(pt.pending) != 1 || pt.waits[0] != idleFrames*pt.frame {
		t.Fatalf("first frame: %d resets, %d checks %v", pt.ticker.resets, len(pt.pending), pt.waits)
	}
	// Frames while it runs: no reset (a reset at each frame would push the
	// tick back for ever while frames come faster than ticks).
	pt.clock = pt.clock.Add(15 * time.Millisecond)
	pt.framed(false)
	pt.framed(false)
	if pt.ticker.resets != 0 || len(pt.pending) != 1 {
		t.Fatalf("frames while running: %d resets, %d checks", pt.ticker.resets, len(pt.pending))
	}
	// The check comes 40ms after the first frame: the last one was 25ms
	// ago, so it looks again 15ms later instead of stopping.
	pt.runCheck(t, 25*time.Millisecond)
	if pt.ticker.stops != 0 || len(pt.pending) != 1 || pt.waits[0] != 15*time.Millisecond {
		t.Fatalf("check after a recent frame: %d stops, checks %v", pt.ticker.stops, pt.waits)
	}
	pt.runCheck(t, 15*time.Millisecond)
	if pt.ticker.stops != 1 || pt.running || len(pt.pending) != 0 {
		t.Fatalf("idle: %d stops, running %v, %d checks", pt.ticker.stops, pt.running, len(pt.pending))
	}
	// A frame after the idle time starts the ticker again, its first tick
	// at once, then back to the frame.
	pt.framed(false)
	if pt.ticker.resets != 1 || pt.ticker.period != promptTick || !pt.running || len(pt.pending) != 2 {
		t.Fatalf("frame after idle: %d resets (last %v), running %v, %d checks", pt.ticker.resets, pt.ticker.period, pt.running, len(pt.pending))
	}
	if pt.waits[0] != pt.frame {
		t.Fatalf("settle scheduled after %v, want a frame (%v): a sooner Reset drops a tick the renderer took late", pt.waits[0], pt.frame)
	}
	pt.runCheck(t, pt.frame) // settle
	if pt.ticker.resets != 2 || pt.ticker.period != pt.frame {
		t.Fatalf("after the prompt tick: %d resets, period %v, want %v", pt.ticker.resets, pt.ticker.period, pt.frame)
	}
	// A frame someone waits for (a key) while the ticker runs: shown at
	// once too, then the frame again.
	pt.framed(true)
	if pt.ticker.resets != 3 || pt.ticker.period != promptTick || len(pt.pending) != 2 {
		t.Fatalf("prompt frame: %d resets (last %v), %d checks", pt.ticker.resets, pt.ticker.period, len(pt.pending))
	}
	pt.runCheck(t, 0) // the idle check, scheduled first: frames came, it looks again
	// A second key before the first one's settle: the first settle leaves
	// the prompt tick alone, the second puts the frame back.
	pt.framed(true)
	resets := pt.ticker.resets
	pt.runCheck(t, pt.frame/2) // the first key's settle
	if pt.ticker.resets != resets || pt.ticker.period != promptTick {
		t.Fatalf("an earlier key's settle reset the ticker to %v over a later key's prompt tick", pt.ticker.period)
	}
	pt.runCheck(t, 0)          // the idle check scheduled again: it looks again
	pt.runCheck(t, pt.frame/2) // the second key's settle
	if pt.ticker.period != pt.frame || pt.ticker.stops != 1 {
		t.Fatalf("after the prompt frame: period %v, %d stops", pt.ticker.period, pt.ticker.stops)
	}
	// A settle that comes after the ticker stopped leaves it stopped.
	pt.framed(true)
	pt.running = false
	resets = pt.ticker.resets
	pt.pending[len(pt.pending)-1]()
	if pt.ticker.resets != resets {
		t.Fatal("a settle restarted a stopped ticker")
	}
}

// TestFramePacerWithoutTicker: when the program's ticker cannot be found
// the pacer does nothing (the renderer ticks as Bubble Tea made it).
func TestFramePacerWithoutTicker(t *testing.T) {
	t.Parallel()
	scheduled := 0
	f := &framePacer{frame: time.Millisecond, find: func() pacedTicker { return nil }, now: time.Now,
		after: func(time.Duration, func()) { scheduled++ }, running: true}
	f.framed(false)
	var none *framePacer
	none.framed(false) // outside Run: no pacer
	if scheduled != 0 {
		t.Fatal("a pacer without a ticker scheduled checks")
	}
}

// tickerProbe is a model that looks for the renderer's ticker when drawn.
type tickerProbe struct {
	program **tea.Program
	found   chan bool
}

func (m tickerProbe) Init() tea.Cmd                       { return tea.Quit }
func (m tickerProbe) Update(tea.Msg) (tea.Model, tea.Cmd) { return m, nil }
func (m tickerProbe) View() tea.View {
	select {
	case m.found <- programTicker(*m.program) != nil:
	default:
	}
	return tea.NewView("probe")
}

// TestProgramTickerFound pins the field the pacer reaches into: in the
// Bubble Tea this module requires, a running Program's view finds the
// renderer's ticker. An upgrade that moves it fails here, not silently.
func TestProgramTickerFound(t *testing.T) {
	t.Parallel()
	var p *tea.Program
	m := tickerProbe{program: &p, found: make(chan bool, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p = tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(nil), tea.WithOutput(&bytes.Buffer{}),
		tea.WithoutSignalHandler(), tea.WithWindowSize(80, 24))
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	select {
	case ok := <-m.found:
		if !ok {
			t.Fatal("the renderer's ticker (tea.Program.ticker) was not found: the frame pacer does nothing; see frame_pacer.go")
		}
	default:
		t.Fatal("the program drew nothing")
	}
	if programTicker(nil) != nil {
		t.Fatal("no program, no ticker")
	}
}
