package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// sessionMsg is a change of the explorer's session.
type sessionMsg zkview.SessionEvent

// treeMsg names the paths the live tree saw change since the last one.
type treeMsg []string

// treeUpdateMsg is treeMsg as it comes from a Tree, which app checks is
// still the explorer's (after :ctx the old one's last batch may come).
type treeUpdateMsg struct {
	tree  *zkview.Tree
	paths []string
}

// serverStatusMsg is srvr from every member (introspect.Statuses), addr
// the one we are connected to.
type serverStatusMsg struct {
	addr    string
	members []introspect.MemberStatus
}

// statusMsg puts a line on the status bar: an outcome or an error.
type statusMsg struct {
	text string
	err  bool
	full string // the text as sent, every line, for ! to show
}

// pushMsg opens a page on top of the current one.
type pushMsg struct{ page page }

// redrawMsg draws the screen a View held back (app.holdView), due at at.
type redrawMsg struct{ at time.Time }

// frameMsg redraws what changes with time alone (durations, flashes);
// it is scheduled only while something on screen needs it.
type frameMsg time.Time

// sessionEventMsg carries the channel so app can wait on it again.
type sessionEventMsg struct {
	ev     zkview.SessionEvent
	events <-chan zkview.SessionEvent
	client *zkview.Client // whose events they are
}

// refreshMsg asks pages to read what they show again (ctrl+r).
type refreshMsg struct{}

// introspectionMsg answers one page's question to the servers.
type introspectionMsg struct {
	owner    *introspector
	gen      int
	snapshot *introspect.Snapshot
	err      error
}

// scanMsg is a finished scan.
type scanMsg struct {
	owner *recipeListPage
	gen   int
	res   recognize.Result
	err   error
	nodes int64
	// pzxid is each listed directory's Pzxid as the scan read it.
	pzxid map[string]int64
	// snapshot is the introspection that ran beside the scan (nil for queues,
	// or when no member answered: snapshotErr).
	snapshot    *introspect.Snapshot
	snapshotErr error
}

// focusMsg tells a page it came on top of the stack; blurMsg that it is
// no longer on top (another page covers it). Only that page gets them.
type (
	focusMsg struct{}
	blurMsg  struct{}
)

// refreshDueMsg is a tick of a page's refresher: time to ask again what
// has no watch (introspector.go).
type refreshDueMsg struct {
	owner *refresher
	gen   int
}

// liveWakeMsg is app's: a live model changed.
type liveWakeMsg struct{}

// liveMsg says a live model changed (zkview/live): pages that draw one
// read it again.
type liveMsg struct{}

// aclMsg answers an ACL read.
type aclMsg struct {
	path string
	acl  []zk.ACL
	stat *zk.Stat
	err  error
}

// rowStatsMsg answers a batch of stat reads for rows.
type rowStatsMsg struct {
	paths []string
	stats []*zk.Stat
	errs  []error
	round int // treePane.readRound when they were asked for
}

// rowsDueMsg says reads of the tree's rows that were put off may be due
// (treePane.fetch).
type rowsDueMsg struct{ pane *treePane }

// labelMsg is what recognition made of a directory.
type labelMsg struct {
	path  string
	pzxid int64
	label dirLabel
}

// openDialogMsg asks app to show a dialog.
type openDialogMsg struct{ dialog *widget.Dialog }

func status(text string) tea.Cmd { return func() tea.Msg { return statusMsg{text: text} } }

func failure(err error) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: err.Error(), err: true} }
}

func push(p page) tea.Cmd { return func() tea.Msg { return pushMsg{page: p} } }

// failureLine puts the first line of err on the status bar, which has
// one line (scan errors list the nodes they could not read below).
func failureLine(err error) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: firstLine(err.Error()), err: true} }
}

// afterDelay delivers msg after d.
func afterDelay(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// goToMsg asks app to show path in the tree (find's matches, a session's
// ephemerals).
type goToMsg struct{ path string }

func goTo(path string) tea.Cmd { return func() tea.Msg { return goToMsg{path: path} } }

// openDialog opens d over the page, as a modal.
func openDialog(d *widget.Dialog) tea.Cmd { return func() tea.Msg { return openDialogMsg{dialog: d} } }
