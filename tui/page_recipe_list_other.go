package tui

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The :recipes list (groups, partitioners, leases, counters, TTL nodes,
// barriers: recipes of kinds too different for columns of their own, each
// said in a line by present.Summary) and the queue list's health cells.

// otherRecipeColumns are the columns of :recipes.
func otherRecipeColumns() []widget.ListColumn {
	return []widget.ListColumn{
		{Title: "PATH", Weight: 4, Min: 16, Tail: true},
		{Title: "KIND", Fit: true, Most: 13},
		{Title: "FORMAT", Fit: true, Most: 8, Hide: 1},
		{Title: "WARNINGS", Fit: true, Most: 22, Words: true, Hide: 2},
		{Title: "STATE", Weight: 1, Min: 24, Words: true},
	}
}

// otherRecipeCells draws one recipe of :recipes: its kind and format, its
// state in a line, and its alarms or warnings.
func (p *recipeListPage) otherRecipeCells(v recognize.Recipe, now time.Time) []string {
	st := p.shared.Styles
	info := v.Info()
	state := present.Summary(v, now)
	if len(recognize.AlarmsOf(v)) > 0 {
		state = st.Error.Render(state)
	}
	return []string{p.pathCell(info.Path), info.Kind, info.Format, p.alarmsCell(v), state}
}

// queueCells draws one queue: its length, how old its oldest item is, how
// many items are in flight, its head, and its alarms or warnings.
func (p *recipeListPage) queueCells(q *recognize.Queue, now time.Time) []string {
	st := p.shared.Styles
	head := st.Dim.Render("(empty)")
	if len(q.Items) > 0 {
		head = queueHead(q.Items[0], now)
	}
	format, oldest, flight := q.Format, "", strconv.Itoa(q.InFlight)
	if q.Kind != "" {
		format += " " + q.Kind
	}
	if q.OldestAgeMs != nil {
		oldest = display.Duration(time.Duration(*q.OldestAgeMs) * time.Millisecond)
		if q.Stale {
			oldest = st.Error.Render(oldest)
		}
	}
	if q.InFlight == 0 {
		flight = st.Dim.Render("0")
	}
	return []string{p.pathCell(q.Path), format, strconv.Itoa(q.Length), oldest, flight, p.alarmsCell(q), head}
}

// queueHead says what the item at the head of a queue is: its node and
// data, or for a delay or an id queue (whose names say little) its id,
// data and due time; and whether it is in flight.
func queueHead(it recognize.QueueItem, now time.Time) string {
	var parts []string
	name := display.Line(recognize.BareName(path.Base(it.Node)))
	switch {
	case it.ID != "":
		parts = append(parts, "id "+display.Line(it.ID))
	case it.Due.IsZero() && it.Data != "":
		parts = append(parts, name+":")
	case it.Due.IsZero():
		parts = append(parts, name)
	}
	if it.Data != "" {
		parts = append(parts, display.Line(it.Data))
	}
	var notes []string
	if due := present.Due(it, now); due != "" {
		notes = append(notes, due)
	}
	if it.InFlight {
		notes = append(notes, "in flight")
		if it.Taken {
			notes[len(notes)-1] = "taken"
		}
	}
	if len(notes) > 0 {
		parts = append(parts, "("+strings.Join(notes, ", ")+")")
	}
	return strings.Join(parts, " ")
}

// alarmsCell names a recipe's alarms when it has any (STALE, STUCK…),
// with how many warnings it has in all, in the presenter's words; else as
// warnCell.
func (p *recipeListPage) alarmsCell(r recognize.Recipe) string {
	words, sev := present.RecipeAlarms(r)
	switch {
	case words == "":
		return p.warnCell(r.Info().Warnings)
	case sev == present.Bad:
		return p.shared.Styles.Error.Render(words)
	}
	return p.shared.Styles.Warning.Render(words)
}

// classCounts says how many recipes of each class :recipes lists.
func (p *recipeListPage) classCounts() []string {
	counts := map[string]int{}
	for _, v := range p.recipes {
		counts[v.Info().Class]++
	}
	var out []string
	for _, c := range recipesClasses {
		if n := counts[c]; n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, plural(n, classNoun[c], classNoun[c]+"s")))
		}
	}
	return out
}

// classNoun names one recipe of a class in a count.
var classNoun = map[string]string{
	recognize.ClassGroup: "group", recognize.ClassPartition: "partitioner", recognize.ClassLease: "lease",
	recognize.ClassCounter: "counter", recognize.ClassTTLNode: "TTL node", recognize.ClassBarrier: "barrier",
}

// HelpNotes says in `?` what the list's columns mean.
func (p *recipeListPage) HelpNotes() []string {
	switch p.kind {
	case kindQueues:
		return []string{
			"OLDEST: the age of the queue's oldest item (red when an item has waited past --older, 10m by default: stale).",
			"IN FLIGHT: items a consumer is processing (Curator's lockPath, Kazoo's taken/); a consumer gone or silent leaves its item stuck.",
		}
	case kindRecipes:
		return []string{
			"group: Kazoo Party / ShallowParty, Curator GroupMember (ephemeral members named by themselves), systems' members.",
			"partitioner: Kazoo SetPartitioner; STUCK when an item lock taken before its party changed is still held past --settle (2m).",
			"lease: Kazoo NonBlockingLease; EXPIRED when its record's end is past: nobody holds it.",
			"counter: SharedCount, DistributedAtomic*, Kazoo Counter; ttl-node: Curator PersistentTtlNode, judged by its touch's age.",
			"Counters and TTL nodes are as last read: ctrl+r reads them again.",
		}
	}
	return nil
}
