package tui

import (
	"context"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/zkview"
)

// driver runs an app as Bubble Tea would, without a terminal: commands
// run in goroutines and their messages go back through Update, one at a
// time, on the test's goroutine. Tests wait for what the screen shows,
// with a deadline.
type driver struct {
	tb   testing.TB
	app  *app
	msgs chan tea.Msg
	quit bool
	// onFrame, when set, is called after every message the app took, as
	// Bubble Tea would draw a frame then.
	onFrame func()
	// presses counts the keys the app took.
	presses int

	// answering counts the commands running, by the function that made
	// them, that answer rather than wait (waitingCmds); returned is told
	// when one has.
	mu        sync.Mutex
	answering map[string]int
	returned  chan struct{}
}

// waitingCmds name the commands that wait for a time, for the servers to
// change or for other clients rather than answer, by the function that
// makes them as the runtime names it: a tick; the app's waits for the
// tree's, the live models' and the session's changes; a lock acquired and
// an election stood in, which wait for those ahead.
var waitingCmds = []string{"charm.land/bubbletea/v2.Tick.", ".waitTree.", ".waitLive.", ".waitSession.",
	"(*recipePage).acquire.", "(*recipePage).volunteer."}

func newDriver(t testing.TB, app *app, width, height int) *driver {
	t.Helper()
	d := &driver{tb: t, app: app, msgs: make(chan tea.Msg, 1024), answering: map[string]int{}, returned: make(chan struct{}, 1)}
	t.Cleanup(app.Close)
	d.run(app.Init())
	d.send(tea.WindowSizeMsg{Width: width, Height: height})
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	name := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
	answers := !slices.ContainsFunc(waitingCmds, func(w string) bool { return strings.Contains(name, w) })
	if answers {
		d.mu.Lock()
		d.answering[name]++
		d.mu.Unlock()
	}
	go func() {
		if msg := cmd(); msg != nil {
			d.msgs <- msg
		}
		if answers {
			d.mu.Lock()
			if d.answering[name]--; d.answering[name] == 0 {
				delete(d.answering, name)
			}
			d.mu.Unlock()
			select {
			case d.returned <- struct{}{}:
			default:
			}
		}
	}()
}

// answered says whether every command that answers has, its message
// queued; else which run still.
func (d *driver) answered() (bool, []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.answering) == 0, sortedKeys(d.answering)
}

// send delivers one message, unpacking batches.
func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case tea.QuitMsg:
		d.quit = true
	default:
		if _, ok := msg.(tea.KeyPressMsg); ok {
			d.presses++
		}
		_, cmd := d.app.Update(msg)
		d.run(cmd)
		if d.onFrame != nil {
			d.onFrame()
		}
	}
}

// key presses one key, as tmux send-keys would name it.
func (d *driver) key(name string) {
	d.send(keyPress(name))
}

func keyPress(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+r":
		return tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// typeText types each character.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.key(string(r))
	}
}

// screen is what a person would see, as text.
func (d *driver) screen() string { return d.app.render() }

// waitFor delivers messages until cond holds for the screen.
func (d *driver) waitFor(what string, cond func(screen string) bool) string {
	d.tb.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s := d.screen()
		if cond(s) {
			return s
		}
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.tb.Fatalf("waiting for %s; the screen shows:\n%s", what, s)
		}
	}
}

func (d *driver) waitText(text string) string {
	d.tb.Helper()
	return d.waitFor(strings.TrimSpace(text), func(s string) bool { return strings.Contains(s, text) })
}

// settle delivers what arrives until nothing has for a moment: for
// golden screens, after the condition that matters was waited for.
func (d *driver) settle() {
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-time.After(200 * time.Millisecond):
			return
		}
	}
}

// fixedTime is the clock of golden screens: the embedded server stamps
// nodes with it and the explorer measures durations to 90 s after it.
var fixedTime = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// goldenServer starts an embedded server whose clock stands still, so
// node times and session ids are the same on every run.
func goldenServer(t testing.TB) *zkserver.Server {
	return zktest.EmbeddedServer(t, zkserver.Config{Clock: func() time.Time { return fixedTime }})
}

// newTestApp connects an explorer to connect with plain styles and the
// clock 90 s after fixedTime.
func newTestApp(t testing.TB, connect string, readOnly bool, extra ...func(*Config)) *app {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var opts []zkview.Option
	if readOnly {
		opts = append(opts, zkview.WithReadOnly())
	}
	c, err := zkview.Dial(ctx, connect, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	plain := theme.Plain()
	cfg := Config{Client: c, Connect: "test-server", ReadOnly: readOnly, Styles: &plain,
		Now: func() time.Time { return fixedTime.Add(90 * time.Second) }}
	for _, f := range extra {
		f(&cfg)
	}
	app := newApp(cfg)
	// The Tree opens its persistent watch session in the background, and
	// a session takes a zxid: wait, so that golden screens' zxids do not
	// depend on when it came.
	select {
	case <-app.shared.Tree.WatchModeKnown():
	case <-ctx.Done():
		t.Fatal("the live tree never learnt how to watch")
	}
	return app
}

func mustCreate(t testing.TB, conn *zk.Conn, p string, data string, flags int32) string {
	t.Helper()
	got, err := conn.Create(p, []byte(data), flags, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatalf("create %s: %v", p, err)
	}
	return got
}

func resize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func zkserverConfig() zkserver.Config { return zkserver.Config{} }
