package tui

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
)

// framePacer lets Bubble Tea's renderer sleep while nothing changes.
//
// Bubble Tea v2.0.10 draws on a ticker, not on change: the program stores
// each view and a goroutine flushes it on every tick of a ticker that runs
// at WithFPS from Run to the end. No option stops or slows it, so an idle
// explorer would wake 30 times a second. Upstream tracks rendering only on
// change in charmbracelet/bubbletea#1776 and #1796.
//
// Every frame the app draws (View) makes sure the ticker runs, and once no
// frame has come for idleFrames frames it stops the ticker, whose last
// ticks have flushed the last frame. It reaches the ticker through the
// unexported field (programTicker), for the pinned v2.0.10; when the field
// is not there it does nothing and the renderer ticks as before
// (TestProgramTickerFound fails first).
//
// v2.1.1, the newest release the module proxy serves, renders the same
// way (startRenderer: a time.Ticker at WithFPS flushing on every tick, no
// option to pause it, the same unexported field): upgrading would not let
// the pacer go. Delete this file, and its call in Run and View, once the
// pinned Bubble Tea renders on change or can pause its ticker (either
// issue above closed and released): idle CPU is then zero without it.
type framePacer struct {
	frame time.Duration
	find  func() pacedTicker // the program's ticker; nil while not running
	now   func() time.Time
	after func(time.Duration, func())

	mu        sync.Mutex
	ticker    pacedTicker
	running   bool // Run started the ticker
	lastFrame time.Time
	checking  bool // an idle check is scheduled
	prompts   int  // prompt ticks asked for; only the last one's settle acts
}

// pacedTicker is what the pacer does to a ticker.
type pacedTicker interface {
	Reset(time.Duration)
	Stop()
}

// idleFrames is how many frames without a new view stop the ticker: the
// renderer needs one tick after the last view; a few more cost nothing.
const idleFrames = 4

func newFramePacer(p *tea.Program, fps int) *framePacer {
	return &framePacer{
		frame: time.Second / time.Duration(fps),
		find: func() pacedTicker {
			if t := programTicker(p); t != nil {
				return t
			}
			return nil
		},
		now:     time.Now,
		after:   func(d time.Duration, f func()) { time.AfterFunc(d, f) },
		running: true,
	}
}

// promptTick is the renderer's next tick after a view someone waits for:
// a key's or a click's, or the first after the ticker slept. The ticker
// would otherwise show it up to a whole frame later (33 ms at 30 frames a
// second, most of a key's time to the screen). It ticks at that pace for
// a frame, then goes back to its frame (settle): a Reset drops a tick the
// renderer has not taken yet, and on a busy machine the renderer may take
// the prompt tick several milliseconds late; a sooner settle would drop
// it, and the key would wait a whole frame more.
const promptTick = time.Millisecond

// framed is told of each view the app draws, once it is drawn (Bubble Tea
// calls View on its event goroutine, after Run started the ticker, and
// hands the renderer its view as View returns); prompt asks for it to be
// shown at once rather than at the ticker's next frame.
func (f *framePacer) framed(prompt bool) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ticker == nil {
		if f.ticker = f.find(); f.ticker == nil {
			return
		}
	}
	f.lastFrame = f.now()
	if !f.running || prompt {
		f.ticker.Reset(promptTick)
		f.running = true
		f.prompts++
		asked := f.prompts
		f.after(f.frame, func() { f.settle(asked) })
	}
	if !f.checking {
		f.checking = true
		f.after(idleFrames*f.frame, f.check)
	}
}

// settle puts a running ticker back to its frame a frame after the
// prompt tick asked for as the asked'th, unless another was asked for
// since (its own settle comes later).
func (f *framePacer) settle(asked int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running && asked == f.prompts {
		f.ticker.Reset(f.frame)
	}
}

// check stops the ticker when no view came for idleFrames frames, else
// looks again when that many will have passed.
func (f *framePacer) check() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if idle := f.now().Sub(f.lastFrame); idle < idleFrames*f.frame {
		f.after(idleFrames*f.frame-idle, f.check)
		return
	}
	f.checking = false
	f.ticker.Stop()
	f.running = false
}

// programTicker is the renderer's ticker inside a running Bubble Tea
// v2.0.10 Program (its unexported field `ticker *time.Ticker`);
// nil before Run starts it, or when the field is not there.
// Read it on the goroutine that runs the program (View's), which is the
// one that sets it.
func programTicker(p *tea.Program) *time.Ticker {
	if p == nil {
		return nil
	}
	v := reflect.ValueOf(p).Elem().FieldByName("ticker")
	if !v.IsValid() || v.Type() != reflect.TypeFor[*time.Ticker]() {
		return nil
	}
	return *(**time.Ticker)(unsafe.Pointer(v.UnsafeAddr()))
}
