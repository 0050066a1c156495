package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/zkview"
)

// sessionMsg is a change of the explorer's session.
type sessionMsg zkview.SessionEvent

// treeMsg names the paths the live tree saw change since the last one.
type treeMsg []string

// serverStatusMsg is srvr from the server we are connected to.
type serverStatusMsg struct {
	addr  string
	stats zkview.ServerStats
	err   error
}

// statusMsg puts a line on the status bar: an outcome or an error.
type statusMsg struct {
	text string
	err  bool
}

// pushMsg opens a page on top of the current one.
type pushMsg struct{ page page }

// frameMsg redraws what changes with time alone (durations, flashes);
// it is scheduled only while something on screen needs it.
type frameMsg time.Time

func status(text string) tea.Cmd { return func() tea.Msg { return statusMsg{text: text} } }

func failure(err error) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: err.Error(), err: true} }
}

func push(p page) tea.Cmd { return func() tea.Msg { return pushMsg{page: p} } }
