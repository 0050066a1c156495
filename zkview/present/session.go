package present

import (
	"fmt"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// SessionLine is one thing a session does, in words: what kind of part
// it is, the node it is about, and the sentence.
type SessionLine struct {
	// Kind is DEADLOCK, holds, leads, lease, waits, stands (a candidate),
	// member, item (a queue item taken) or ephemeral.
	Kind string
	// Path is the node the line is about; "" for a deadlock.
	Path string
	Text string
	// Alarm marks a deadlock.
	Alarm bool
}

// SessionKindWidth is the width every front end pads a SessionLine's kind
// to: the longest kind, "ephemeral".
const SessionKindWidth = 9

// The kinds of SessionLine.
const (
	SessionDeadlock  = "DEADLOCK"
	SessionHolds     = "holds"
	SessionLeads     = "leads"
	SessionLease     = "lease"
	SessionWaits     = "waits"
	SessionStands    = "stands"
	SessionMember    = "member"
	SessionItem      = "item"
	SessionEphemeral = "ephemeral"
)

// SessionLines tell a session's story (recognize.StoryOf): the deadlocks
// it is in first, then what it holds, leads, waits for and behind whom,
// the groups it is in, the queue items it took, and its other ephemeral
// nodes.
func SessionLines(st recognize.SessionStory, now time.Time) []SessionLine {
	var out []SessionLine
	for _, d := range st.Deadlocks {
		out = append(out, SessionLine{Kind: SessionDeadlock, Text: display.Line(d), Alarm: true})
	}
	for _, p := range st.Holds {
		kind := SessionHolds
		switch p.Role {
		case recognize.RoleLeader:
			kind = SessionLeads
		case recognize.RoleLease:
			kind = SessionLease
		}
		out = append(out, SessionLine{Kind: kind, Path: partPath(p), Text: partHead(p) + ": " + nodeName(p) + ", " + HeldOf(p.Contender, now).Phrase})
	}
	for _, p := range st.Waits {
		kind := SessionWaits
		if p.Role == recognize.RoleCandidate {
			kind = SessionStands
		}
		text := partHead(p) + ": " + Role(recognize.Place{Role: p.Role, Position: p.Position, Contender: p.Contender}) + " " + nodeName(p)
		if on := WaitsOn(p.Lineup, p.Contender); on != "" {
			text += " — " + on
		}
		out = append(out, SessionLine{Kind: kind, Path: partPath(p), Text: display.Line(text)})
	}
	for _, p := range st.Members {
		out = append(out, SessionLine{Kind: SessionMember, Path: partPath(p), Text: partHead(p) + ": " + nodeName(p)})
	}
	for _, it := range st.Items {
		out = append(out, SessionLine{Kind: SessionItem, Path: it.Mark,
			Text: display.Line(fmt.Sprintf("%s (queue): took %s, not yet consumed", it.Queue, it.Item.Node))})
	}
	for _, e := range st.Others {
		out = append(out, SessionLine{Kind: SessionEphemeral, Path: e, Text: display.Line(e)})
	}
	return out
}

func partPath(p recognize.SessionPart) string {
	if p.Contender.Node == "" {
		return p.Path // a herd's waiter has no node: the lock it watches
	}
	return display.Line(recognize.ContenderPath(p.Path, p.Contender.Node))
}

// partHead names the recipe of a part: "/app/lock (mutex, curator)".
func partHead(p recognize.SessionPart) string {
	return display.Line(fmt.Sprintf("%s (%s, %s)", p.Path, p.Recipe, p.Format))
}

func nodeName(p recognize.SessionPart) string {
	if p.Contender.Node == "" {
		return "no node of its own (it watches " + display.Line(recognize.BareName(p.Contender.WaitsFor)) + ")"
	}
	return display.Line(recognize.BareName(p.Contender.Node))
}
