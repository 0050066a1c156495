package tui

import (
	"context"
	"os/exec"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// requestTimeout bounds one read or write a page makes for the user (a
// create, a delete, an ACL or a recognition); past it the page says so
// instead of waiting on a lost server.
const requestTimeout = 10 * time.Second

// sharedState is what every page shares (gh-dash's ProgramContext): the
// connection, the live tree, look and keys, and the clock. Pages read it;
// only app changes it.
type sharedState struct {
	// Ctx ends when the explorer quits; every command's I/O derives from it.
	Ctx    context.Context
	Client *zkview.Client
	Tree   *zkview.Tree
	// Writer is nil when read-only: no page can write without it.
	Writer *zkview.Writer
	// Actor performs recipe actions as "you"; nil when read-only.
	Actor *actor

	Styles   theme.Styles
	Keys     keyMap
	ReadOnly bool
	// Past is set on a data directory's past (Config.Past): the servers'
	// tables are not on disk, so no page tells how to let zkx read them.
	Past bool
	// Now is the clock of durations on screen; tests fix it.
	Now func() time.Time

	// Scan tunes recognition (held-too-long threshold); Introspect tunes
	// the server questions that name clients and confirm watches, as the
	// explorer started (:admin changes the AdminServers: see
	// introspectOptions).
	Scan       recognize.Options
	Introspect introspect.Options
	// Holds remembers across every page's recognitions when holders began
	// to hold (nil in tests that do not care).
	Holds *recognize.HoldClock

	// admin is the AdminServers :admin set, read by commands in flight.
	admin atomic.Pointer[adminSetting]

	// DemoLimit caps + on the demo page (Config.DemoLimit).
	DemoLimit demo.ContenderLimit

	// Exec runs a program on the terminal with the explorer suspended
	// (tea.ExecProcess; tests run it without a terminal).
	Exec func(c *exec.Cmd, done tea.ExecCallback) tea.Cmd

	// live is told when a live model changed (zkview/live): app waits on
	// it and hands the pages a liveMsg.
	live chan struct{}
	// Go and After run the live models' work and timers: nil for
	// goroutines and time.AfterFunc (tests run the work at once and the
	// timers on their word). Pace is the clock reads are paced by: nil for
	// time.Now — never Now, which stands still in golden tests and on the
	// past.
	Go    func(func())
	After func(time.Duration, func())
	Pace  func() time.Time

	// Width and Height are those of the page area below the header.
	Width, Height int
}

// liveChanged tells app that a live model changed; it never blocks.
func (s *sharedState) liveChanged() {
	if s.live == nil {
		return
	}
	select {
	case s.live <- struct{}{}:
	default:
	}
}

// pace is the clock reads are paced by (Pace, else time.Now).
func (s *sharedState) pace() time.Time {
	if s.Pace != nil {
		return s.Pace()
	}
	return time.Now()
}

// goLive runs a live model's work (shared.Go, else a goroutine).
func (s *sharedState) goLive(f func()) {
	if s.Go != nil {
		s.Go(f)
		return
	}
	go f()
}

// afterLive runs a live model's timer (shared.After, else time.AfterFunc).
func (s *sharedState) afterLive(d time.Duration, f func()) {
	if s.After != nil {
		s.After(d, f)
		return
	}
	time.AfterFunc(d, f)
}

// adminSetting is what :admin set: AdminServer URLs, and the port to look
// for one on a member that refuses the four-letter words.
type adminSetting struct {
	urls []string
	port int
}

// introspectOptions are the options to ask the servers with now: as the
// explorer started, with :admin's AdminServers, and the explorer's own
// session touched first (introspect.Options.Touch). Safe from any goroutine.
func (s *sharedState) introspectOptions() introspect.Options {
	o := s.Introspect
	if a := s.admin.Load(); a != nil {
		o.AdminURLs, o.AdminPort = a.urls, a.port
	}
	if s.Client != nil && o.Touch == nil {
		o.Touch = s.Client.Touch
	}
	return o
}

// forgetAdmin drops what :admin set: the AdminServers of another ensemble
// (after :ctx) must not be asked for this one's tables.
func (s *sharedState) forgetAdmin() { s.admin.Store(nil) }

// setAdmin makes the servers be asked through these AdminServers (and
// looked for on port) from now on.
func (s *sharedState) setAdmin(urls []string, port int) {
	s.admin.Store(&adminSetting{urls: urls, port: port})
}

// readThrough is the member the explorer reads the tree through, for the
// note that says how far behind the freshest member it was.
func (s *sharedState) readThrough() introspect.ReadThrough {
	if s.Client == nil {
		return introspect.ReadThrough{}
	}
	return introspect.ReadThrough{Member: s.Client.Server()}
}

// isOwnSession reports whether a session id is the explorer's own.
func (s *sharedState) isOwnSession(session int64) bool {
	return s.Client != nil && session != 0 && session == s.Client.SessionID()
}

// scanOptions returns the recognition options with the clock and the
// server's tables filled in.
func (s *sharedState) scanOptions(tables recognize.ServerTables) recognize.Options {
	o := s.Scan
	o.Now = s.Now()
	o.Tables = tables
	o.Holds = s.Holds
	if s.Client != nil {
		o.Viewer = s.Client.SessionID()
	}
	return o
}

// newRecipeSession opens a recipes session on the explorer's own
// connection, so what the explorer holds shows as "you".
func newRecipeSession(c *zkview.Client) (*recipes.Session, error) {
	return recipes.NewSession(c.Conn(), c.RawEvents())
}

// expand keeps dir's children current in the live tree until a matching
// collapse; the Tree counts its viewers, so pages that follow the same
// directory do not end each other's watches. Unit tests run pages
// without a Tree.
func (s *sharedState) expand(dir string) {
	if s.Tree != nil {
		s.Tree.Expand(dir)
	}
}

// collapse undoes one expand of dir.
func (s *sharedState) collapse(dir string) {
	if s.Tree != nil {
		s.Tree.Collapse(dir)
	}
}

// expandedBy reports how many viewers keep dir's children current.
func (s *sharedState) expandedBy(dir string) int {
	if s.Tree == nil {
		return 0
	}
	return s.Tree.Expanded(dir)
}
