package tui

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// TimeTravel moves a read-only explorer through a data directory's past
// (zkview/forensics.Past). The explorer reads the past through its
// client as it reads a live server; a step changes what the server
// serves, and the watches tell the pages.
type TimeTravel interface {
	// Position is where the past is.
	Position() forensics.Position
	// Step moves one transaction back or forward; with touching, to right
	// after the previous or next transaction that changed that node or
	// its children.
	Step(back bool, touching string) (forensics.Position, error)
	// Where names the data directory, for the header.
	Where() string
	// Clock is the moment's time, without waiting for a step under way.
	Clock() time.Time
}

// pastKeys step through the past.
var pastKeys = struct{ Prev, Next, PrevNode, NextNode key.Binding }{
	Prev:     bind([]string{"<"}, "<", "previous transaction"),
	Next:     bind([]string{">"}, ">", "next transaction"),
	PrevNode: bind([]string{"{"}, "{", "previous transaction touching the selected node"),
	NextNode: bind([]string{"}"}, "}", "next transaction touching the selected node"),
}

// pastMovedMsg is a step's outcome.
type pastMovedMsg struct {
	pos      forensics.Position
	err      error
	touching string
}

// timeTravel is the explorer on a data directory's past: its keys, the
// step under way and those pressed meanwhile, the header and the help's
// notes. The app holds one only on a past (Config.Past).
type timeTravel struct {
	past  TimeTravel
	pos   forensics.Position
	busy  bool
	queue []pastStep
}

func newTimeTravel(past TimeTravel) *timeTravel {
	return &timeTravel{past: past, pos: past.Position()}
}

// key handles the keys of the past; false when msg is not one of them.
// selected names the node the page on top is about, for { and }.
func (t *timeTravel) key(msg tea.KeyPressMsg, selected func() string) (tea.Cmd, bool) {
	var back bool
	touching := ""
	switch {
	case key.Matches(msg, pastKeys.Prev):
		back = true
	case key.Matches(msg, pastKeys.Next):
	case key.Matches(msg, pastKeys.PrevNode), key.Matches(msg, pastKeys.NextNode):
		back = key.Matches(msg, pastKeys.PrevNode)
		if touching = selected(); touching == "" {
			return failure(errors.New("select a node (the tree, or a recipe's page) to step to the transactions touching it")), true
		}
	default:
		return nil, false
	}
	req := pastStep{back: back, touching: touching}
	if t.busy {
		// One step at a time; keys pressed meanwhile follow in order.
		if len(t.queue) < maxPastQueue {
			t.queue = append(t.queue, req)
		}
		return nil, true
	}
	return t.step(req), true
}

// pastStep is a step asked for.
type pastStep struct {
	back     bool
	touching string
}

// maxPastQueue bounds the steps waiting behind one under way.
const maxPastQueue = 64

// step steps in a command: a step back past a snapshot rebuilds the tree,
// which is no work for Update.
func (t *timeTravel) step(req pastStep) tea.Cmd {
	t.busy = true
	tt := t.past
	return func() tea.Msg {
		pos, err := tt.Step(req.back, req.touching)
		return pastMovedMsg{pos: pos, err: err, touching: req.touching}
	}
}

// moved takes a step's outcome: what the status line says of it, the next
// step queued, and whether the explorer moved (then the pages read what
// they show again).
func (t *timeTravel) moved(msg pastMovedMsg) (status statusMsg, next tea.Cmd, moved bool) {
	t.busy = false
	t.pos = msg.pos
	if len(t.queue) > 0 && msg.err == nil {
		next = t.step(t.queue[0])
		t.queue = t.queue[1:]
	} else {
		t.queue = nil // at an end, what was pressed meanwhile is moot
	}
	switch {
	case errors.Is(msg.err, forensics.ErrNoMore) && msg.touching != "":
		return statusMsg{text: "no transaction that way touches " + display.Line(msg.touching), err: true}, next, false
	case errors.Is(msg.err, forensics.ErrNoMore):
		return statusMsg{text: msg.err.Error(), err: true}, next, false
	case msg.err != nil:
		return statusMsg{text: "step: " + msg.err.Error(), err: true}, next, false
	}
	return statusMsg{text: "at zxid " + display.Hex(msg.pos.Zxid) + ": " + pastWhat(msg.pos)}, next, true
}

// selectedPath is the node the page on top is about.
func (a *app) selectedPath() string {
	switch p := a.top().(type) {
	case *treePage:
		return p.tree.selectedPath()
	case *recipePage:
		return p.view.path
	}
	return ""
}

// pastMoved takes a step's outcome into the header and the status line;
// the pages read what they show again, as on ctrl+r: a step back brings
// stats older than those on screen, which a page that trusts zxids only to
// grow would take for stale.
func (a *app) pastMoved(msg pastMovedMsg) tea.Cmd {
	status, next, moved := a.travel.moved(msg)
	a.message = status
	if moved {
		return tea.Batch(next, a.broadcast(refreshMsg{}))
	}
	return next
}

// pastWhat tells the transaction at a position, and who made it.
func pastWhat(pos forensics.Position) string {
	what, who, _ := pastWhatWho(pos)
	if who == "" {
		return what
	}
	return what + " " + who
}

// pastWhatWho tells the transaction at a position apart from who made
// it — "by ops from 10.0.3.7 (session 0x…)" when the audit log says, else
// "by 0x…" (the session) for a client's request — and who made it in
// fewer words, for a header short of room.
func pastWhatWho(pos forensics.Position) (what, who, short string) {
	if pos.Txn == nil {
		return "the snapshot " + pos.Snapshot + ", before any transaction after it", "", ""
	}
	t := pos.Txn
	what = t.Summary()
	w := pos.Who
	sessionTxn := t.Type == "createSession" || t.Type == "closeSession" // the summary names the session
	switch {
	case w != nil && w.ByServer:
		who = "— removed by " + w.Text()
		if w.Session != nil {
			return what, who, "— " + w.Session.Text()
		}
		return what, who, who
	case w != nil && w.Match == forensics.MatchSession && sessionTxn:
		who = "— " + w.Text()
		return what, who, who
	case w != nil && w.Match == forensics.MatchSession:
		return what, "by " + display.Hex(t.Session) + " (" + w.Text() + ")", "by " + w.Text()
	case w != nil:
		return what, "by " + w.Text() + " (session " + display.Hex(t.Session) + ")", "by " + w.Text()
	case t.Session != 0 && !sessionTxn:
		who = "by " + display.Hex(t.Session)
		return what, who, who
	}
	return what, "", ""
}

// header is the header line on the past: where, the moment, what
// happened then and who did it. Who did it, when the audit log says,
// shows whole: for room, the transaction's path is cut in its middle, then
// the session (the status line names it) and the moment's date go.
func (t *timeTravel) header(st theme.Styles, width int) string {
	label, value := st.HeaderLabel.Render, st.HeaderValue.Render
	pos := t.pos
	// The data directory's name says which it is; the whole path is in
	// the help, and the moment needs the room.
	dir := t.past.Where()
	if filepath.Base(dir) == "version-2" {
		dir = filepath.Dir(dir)
	}
	where := []rune(display.Line(filepath.Base(dir)))
	if len(where) > 20 {
		where = append(where[:19], '…')
	}
	badge := st.Badge.Render("READ-ONLY")
	width -= lipgloss.Width(badge) + 1
	what, who, short := pastWhatWho(pos)
	what, who, short = display.Line(what), display.Line(who), display.Line(short)
	if pos.Who == nil {
		// Only a session's id to name: the moment's date says more.
		what, who, short = strings.TrimSpace(what+" "+who), "", ""
	}
	var line string
	for _, c := range []struct {
		layout  string
		who     string
		minRoom int // the room the path needs for this layout to do
	}{{"2006-01-02 15:04:05.000", who, 24}, {"2006-01-02 15:04:05.000", short, 24}, {"15:04:05.000", short, 16}} {
		when := pos.Time.Local().Format(c.layout)
		if pos.Approximate {
			when = "≈" + when
		}
		parts := []string{
			st.Title.Render("zkx"),
			label("past of ") + value(string(where)),
			label("zxid ") + value(display.Hex(pos.Zxid)) + label("  ") + value(when),
		}
		prefix := strings.Join(parts, label("  │  ")) + label("  │  ")
		if c.who == "" {
			line = prefix + what
			break
		}
		room := width - lipgloss.Width(prefix) - lipgloss.Width(c.who) - 1
		line = prefix + widget.ClipMiddle(what, max(room, 16)) + " " + c.who
		if room >= c.minRoom {
			break
		}
	}
	return widget.Fit(line, width) + " " + badge
}

// notes are the help's lines about the past.
func (t *timeTravel) notes() []string {
	return []string{
		"The past of " + display.Line(t.past.Where()) + ", rebuilt from its snapshot and logs, read-only.",
		"< > step one transaction back or forward; { } step to the previous or next transaction touching the selected node (the tree's, or a recipe page's directory).",
		"Ages are measured to the moment shown. Client addresses and watches are not on disk: the sessions of the past have none.",
	}
}

// opened says how to move, once the first frame is up.
func (t *timeTravel) opened() statusMsg {
	return statusMsg{text: fmt.Sprintf("the past at zxid %s, read-only: < > step a transaction, { } the previous/next touching the selected node, ? help",
		display.Hex(t.pos.Zxid))}
}

// pastClock is the clock of a past explorer: the moment shown.
func pastClock(tt TimeTravel) func() time.Time { return tt.Clock }
