package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/alarms"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// :alarms is a recipe list of every class that shows one row per alarm
// holding now (zkview/alarms: the same list zkx check prints and the
// exporter serves), and one per member down; enter opens the recipe's
// page, or :server for a member. Every recipe found is followed, so an
// alarm that arises on one shows without a rescan, and one that clears
// goes.

// kindAlarms lists the alarms of every recipe, and the members down.
const kindAlarms recipeKind = "alarms"

// alarmKeySep separates a row key's parts: the recipe's path, the kind
// and the node (no path holds it); a member's row starts with it.
const alarmKeySep = "\x00"

func alarmColumns() []widget.ListColumn {
	return []widget.ListColumn{
		{Title: "ALARM", Fit: true, Most: 17},
		{Title: "PATH / MEMBER", Weight: 3, Min: 16, Tail: true},
		{Title: "RECIPE", Fit: true, Most: 12, Hide: 1},
		{Title: "WHAT", Weight: 6, Min: 20, Words: true},
	}
}

// alarmRows are the rows of :alarms: the recipes' alarms in path order,
// then the members'.
func (p *recipeListPage) alarmRows(shown map[string]recognize.Recipe) []widget.TableRow {
	st := p.shared.Styles
	recipes := make([]recognize.Recipe, 0, len(p.order))
	for _, path := range p.order {
		recipes = append(recipes, shown[path])
	}
	var notes []introspect.MemberNote
	if p.tables != nil {
		notes = p.tables.MemberNotes(p.shared.readThrough())
	}
	var rows []widget.TableRow
	for _, a := range alarms.Of(recipes, notes) {
		kind := st.Warning.Render(a.Kind)
		if present.AlarmSeverity(a.Kind) == present.Bad {
			kind = st.Error.Render(a.Kind)
		}
		key := alarmKeySep + "member" + alarmKeySep + a.Member
		subject := display.Line(a.Member)
		if a.Path != "" {
			key = strings.Join([]string{a.Path, a.Kind, a.Node}, alarmKeySep)
			subject = p.pathCell(a.Path)
		}
		cells := []string{kind, subject, a.Recipe, display.Line(a.Text)}
		rows = append(rows, widget.TableRow{Key: key, Cells: cells, Signature: strings.Join(append(cells, key), alarmKeySep)})
	}
	return rows
}

// openAlarm opens what an :alarms row is about.
func (p *recipeListPage) openAlarm(key string) tea.Cmd {
	path, _, _ := strings.Cut(key, alarmKeySep)
	if path == "" {
		return push(newServerPage(p.shared))
	}
	return push(newRecipePage(p.shared, path))
}

// alarmCount says how many alarms the rows show, red when any.
func (p *recipeListPage) alarmCount() string {
	n := len(p.tbl.Rows)
	text := fmt.Sprintf("%d %s", n, plural(n, "alarm", "alarms"))
	if n == 0 {
		return p.shared.Styles.Dim.Render(text)
	}
	return p.shared.Styles.Error.Render(text)
}
