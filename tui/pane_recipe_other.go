package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The recipe page's queue table (every item's age, a delay queue's due
// time, an id queue's id, an item in flight's consumer) and its heads for
// partitioners, leases, counters and TTL nodes.

// queueColumns are the columns of a queue's items: PRIORITY, DUE / ID
// and IN FLIGHT only for a queue whose items have them.
func queueColumns(q *recognize.Queue) []widget.Column {
	has := queueHas(q)
	cols := []widget.Column{{Title: "#", Width: 5, Right: true}, {Title: "NODE", Width: 22}}
	if has.priority {
		cols = append(cols, widget.Column{Title: "PRIORITY", Width: 8, Drop: 1})
	}
	cols = append(cols, widget.Column{Title: "AGE", Width: 6, Right: true})
	if has.dueOrID {
		cols = append(cols, widget.Column{Title: "DUE / ID", Width: 14, Drop: 3})
	}
	if has.flight {
		cols = append(cols, widget.Column{Title: "IN FLIGHT", Width: 28, Drop: 2})
	}
	return append(cols, widget.Column{Title: "DATA", Min: 10, Words: true})
}

// queueColumnsShown says which of a queue's optional columns show.
type queueColumnsShown struct{ priority, dueOrID, flight bool }

func queueHas(q *recognize.Queue) queueColumnsShown {
	has := queueColumnsShown{flight: q.LockPath != "" || q.InFlight > 0}
	for _, it := range q.Items {
		has.priority = has.priority || it.Priority != nil
		has.dueOrID = has.dueOrID || !it.Due.IsZero() || it.ID != ""
		has.flight = has.flight || it.InFlight
	}
	return has
}

// queueRows draws a queue's items in the order they are taken; keys are
// the nodes, so the cursor and flashes follow items.
func (v *recipePane) queueRows(q *recognize.Queue, now time.Time) []widget.TableRow {
	st := v.shared.Styles
	has := queueHas(q)
	rows := make([]widget.TableRow, 0, len(q.Items))
	for i, it := range q.Items {
		prio, age, dueID, flight := "", "", "", ""
		if it.Priority != nil {
			prio = fmt.Sprint(*it.Priority)
		}
		if !it.Created.IsZero() {
			age = display.Duration(now.Sub(it.Created))
		}
		switch {
		case !it.Due.IsZero():
			dueID = present.Due(it, now)
		case it.ID != "":
			dueID = "id " + display.Line(it.ID)
		}
		if it.InFlight {
			flight = "taken"
			if c := it.Consumer; c != nil {
				heard, sig := heardCell(st, *c, now)
				if sig == "heard" {
					heard += " ago"
				}
				flight = c.Session + " " + heard
			}
		}
		var style = &st.Dim
		if it.WaitingMs != nil || it.InFlight {
			style = nil // due: it waits, or is being processed
		}
		cells := []string{fmt.Sprint(i + 1), tailName(it.Node, 22)}
		if has.priority {
			cells = append(cells, prio)
		}
		cells = append(cells, age)
		if has.dueOrID {
			cells = append(cells, dueID)
		}
		if has.flight {
			cells = append(cells, flight)
		}
		rows = append(rows, widget.TableRow{Key: it.Node, Style: style, Cells: append(cells, it.Data)})
	}
	return rows
}

// inLine reports whether a recipe's contenders stand in a line (a lock's,
// an election's, a barrier's), which the page draws as a chain; a group's
// members, a partitioner's, a lease's records do not.
func inLine(r recognize.Recipe) bool {
	switch r.(type) {
	case *recognize.Group, *recognize.Partitioner, *recognize.Lease, *recognize.Counter, *recognize.TTLNode:
		return false
	}
	return true
}

// recPaneItems bounds the items of a partitioner the page lists above its
// members.
const recPaneItems = 12

// otherLines are the lines under a partitioner's head: who holds each
// item, and whether it was taken again since the party changed.
func (v *recipePane) otherLines() []string {
	p, ok := v.recipe.(*recognize.Partitioner)
	if !ok || len(p.Items) == 0 {
		return nil
	}
	st := v.shared.Styles
	parts := make([]string, 0, len(p.Items))
	for i, it := range p.Items {
		if i == recPaneItems {
			parts = append(parts, fmt.Sprintf("… %d more", len(p.Items)-i))
			break
		}
		var who string
		switch {
		case it.Holder == nil:
			who = st.Warning.Render("nobody")
		case it.Owner == "":
			who = st.Warning.Render("session " + it.Holder.Session + " (no member)")
		default:
			who = display.Line(it.Owner)
		}
		s := display.Line(it.Item) + " → " + who
		if it.Stale {
			s += st.Error.Render(" (not re-taken)")
		}
		parts = append(parts, s)
	}
	return []string{"items: " + strings.Join(parts, st.Dim.Render(" · "))}
}

// hasSessions reports whether some contender has a session: what the
// legend of HEARD and WAITS FOR is about.
func hasSessions(places []recognize.Place) bool {
	for _, p := range places {
		if p.Session != "" {
			return true
		}
	}
	return false
}

// memberColumns are the columns of recipes whose contenders stand in no
// line: a group's or a partitioner's members (with their sessions), a
// lease's records and a TTL node's touch (persistent: no session).
func (v *recipePane) memberColumns() []widget.Column {
	if !hasSessions(v.places()) {
		return []widget.Column{{Title: "ROLE", Width: 14}, {Title: "NODE", Width: 22}, {Title: "AGE", Width: 6, Right: true},
			{Title: "DATA", Min: 10, Words: true}}
	}
	return []widget.Column{{Title: "ROLE", Width: 8}, {Title: "NODE", Width: 24}, {Title: "SESSION", Width: 17, Drop: 2},
		{Title: "CLIENT", Width: 15, Drop: 3}, {Title: "HEARD", Width: 10, Right: true}, {Title: "AGE", Width: 6, Right: true},
		{Title: "DATA", Min: 10, Words: true}}
}

// memberRows are the rows of memberColumns; keys are the nodes.
func (v *recipePane) memberRows(now time.Time) []widget.TableRow {
	st := v.shared.Styles
	places := v.places()
	sessions := hasSessions(places)
	rows := make([]widget.TableRow, 0, len(places))
	for _, p := range places {
		c := p.Contender
		age := "-"
		if !c.Created.IsZero() {
			age = display.Duration(now.Sub(c.Created))
		}
		role := p.Role
		if v.shared.isOwnSession(c.SessionID) {
			role += " (you)"
		}
		cells := []string{role, tailName(relativeNode(c.Node), 24), age, display.Line(c.Data)}
		sig := c.Data
		if sessions {
			heard, heardSig := heardCell(st, c, now)
			cells = []string{role, tailName(relativeNode(c.Node), 24), c.Session, display.Line(c.ClientText()), heard, age, display.Line(c.Data)}
			sig = strings.Join([]string{c.Session, c.ClientText(), c.Data, heardSig}, "\x00")
		}
		rows = append(rows, widget.TableRow{Key: c.Node, Signature: sig, Cells: cells})
	}
	return rows
}
