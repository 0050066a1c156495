package tui

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
)

// listSizes are the terminal sizes of the goldens.
var listSizes = [][2]int{{120, 40}, {80, 24}}

// listPages builds each list page on the canned state, loaded.
func listPages(t *testing.T, w, h int) map[string]page {
	t.Helper()
	pages := map[string]page{}
	for _, kind := range []recipeKind{kindLocks, kindQueues, kindElections, kindRecipes} {
		r, _, _, _ := newFakeList(t, kind, w, h)
		pages[string(kind)] = r.current
	}
	clock := &listsClock{now: listsEpoch}
	f := &fakeSource{snapshot: fakeIntrospection(clock.now), res: fakeScanResult(clock.now)} // the session page tells its story from the scan
	shared := listsShared(t, clock)
	pages["sessions"] = newPageRunner(t, newSessionsPageFrom(shared, f.source()), w, h).current
	pages["session"] = newPageRunner(t, newSessionPageFrom(shared, 0x1000000000000a1, nil, f.source()), w, h).current
	pages["server"] = newPageRunner(t, newServerPageFrom(shared, f.source()), w, h).current
	return pages
}

func TestListPagesGolden(t *testing.T) {
	t.Parallel()
	for _, size := range listSizes {
		w, h := size[0], size[1]
		for name, p := range listPages(t, w, h) {
			t.Run(fmt.Sprintf("%s/%dx%d", name, w, h), func(t *testing.T) {
				out := p.View()
				checkBlock(t, out, w, h)
				golden.RequireEqual(t, out)
			})
		}
	}
}

// checkBlock requires exactly h lines of exactly w cells.
func checkBlock(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if h == 0 {
		return
	}
	if len(lines) != h {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), h, out)
	}
	for i, l := range lines {
		if got := lipgloss.Width(l); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, got, w, l)
		}
	}
}

// TestListPagesTinySizes: every page draws any size, however small,
// without panicking.
func TestListPagesTinySizes(t *testing.T) {
	t.Parallel()
	for name, p := range listPages(t, 120, 40) {
		for _, w := range []int{0, 1, 2, 5, 13, 30} {
			for _, h := range []int{0, 1, 2, 3, 5, 6, 9, 10} {
				p.SetSize(w, h)
				checkBlock(t, p.View(), w, h)
				if t.Failed() {
					t.Fatalf("%s at %dx%d", name, w, h)
				}
			}
		}
	}
}
