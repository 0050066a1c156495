package tui

import (
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/zkview/alarms"
)

// TestAlarmsListsEveryAlarmAndOpensIt: :alarms shows one row per alarm of
// the recipes found (as zkview/alarms gathers them for zkx check), and
// enter opens the recipe's page.
func TestAlarmsListsEveryAlarmAndOpensIt(t *testing.T) {
	t.Parallel()
	r, p, f, _ := newFakeList(t, kindAlarms, 120, 40)
	want := alarms.Of(f.res.All(), nil)
	if len(want) == 0 {
		t.Fatal("the fake scene has no alarm: the test would show nothing")
	}
	if len(p.tbl.Rows) < len(want) {
		t.Fatalf("%d rows, want at least the %d alarms of the recipes:\n%s", len(p.tbl.Rows), len(want), p.View())
	}
	for i, a := range want {
		cells := strings.Join(p.tbl.Rows[i].Cells, "|")
		if !strings.Contains(cells, a.Kind) || !strings.HasPrefix(p.tbl.Rows[i].Key, a.Path+alarmKeySep) {
			t.Errorf("row %d: %q (key %q), want %s on %s", i, cells, p.tbl.Rows[i].Key, a.Kind, a.Path)
		}
	}
	if view := p.View(); !strings.Contains(view, "alarms") {
		t.Errorf("the summary does not count the alarms:\n%s", view)
	}
	r.send(listKey("enter"))
	if len(r.pushed) != 1 || !strings.Contains(r.pushed[0].Title(), want[0].Path) {
		t.Fatalf("enter pushed %d pages, want the page of %s", len(r.pushed), want[0].Path)
	}
}
