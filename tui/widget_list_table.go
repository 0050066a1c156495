package tui

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"
)

// listColumn is a column of a list page before the width is known:
// fitted to its widest cell (up to most), or sharing what is left by
// weight.
type listColumn struct {
	title  string
	fit    bool
	most   int // a fitted column's widest
	weight int // a shared column's share
	min    int
	right  bool
	tail   bool // cut from the left (paths)
	// hide > 0 lets the column give way on a narrow screen, hide 1
	// first; 0 always shows.
	hide int
}

// listTable is the table of a list page whose columns give way on
// narrow screens: it keeps every row's cells and gives the table those
// of the columns that fit, sized to what the rows hold.
type listTable struct {
	*table
	specs []listColumn
	rows  []tableRow // every cell
	shown []int      // the specs shown, by index
}

func newListTable(specs ...listColumn) *listTable {
	lt := &listTable{table: newTable(), specs: specs}
	lt.relayout()
	return lt
}

// setRows replaces the rows; a row's flash follows its cells, all of
// them, whichever show.
func (lt *listTable) setRows(rows []tableRow, now time.Time) {
	lt.rows = rows
	lt.relayout()
	lt.table.setRows(lt.project(rows), now)
}

// setSize sizes the table and lays the columns out again.
func (lt *listTable) setSize(w, h int) {
	lt.table.setSize(w, h)
	lt.relayout()
	lt.table.setRows(lt.project(lt.rows), time.Time{})
}

// relayout picks the columns that fit the width and sizes them.
func (lt *listTable) relayout() {
	lt.shown = lt.shown[:0]
	for i := range lt.specs {
		lt.shown = append(lt.shown, i)
	}
	widest := make([]int, len(lt.specs))
	for i, s := range lt.specs {
		widest[i] = lipgloss.Width(s.title)
		for _, r := range lt.rows {
			if i < len(r.cells) {
				widest[i] = max(widest[i], lipgloss.Width(r.cells[i]))
			}
		}
	}
	last := -1
	for i, s := range lt.specs {
		if !s.fit {
			last = i
		}
	}
	// What a column needs not to be cut: a shared one up to twice its
	// least (a long path does not hide every other column), the last its
	// least (it takes what is left).
	need := func(i int) int {
		s := lt.specs[i]
		switch {
		case s.fit:
			return min(widest[i], s.most) + 2
		case i == last:
			return s.min + 2
		}
		return min(max(widest[i], s.min), 2*s.min) + 2
	}
	for order := 1; ; order++ {
		total, hidable := 0, false
		for _, i := range lt.shown {
			total += need(i)
			hidable = hidable || lt.specs[i].hide >= order
		}
		if total <= lt.width || !hidable {
			break
		}
		lt.shown = removeHidden(lt.shown, lt.specs, order)
	}
	specs := make([]listColumn, len(lt.shown))
	cols := make([]int, len(lt.shown))
	for j, i := range lt.shown {
		specs[j], cols[j] = lt.specs[i], widest[i]
	}
	lt.table.cols = layoutColumns(specs, cols, lt.width)
}

// removeHidden drops the shown columns that give way at order.
func removeHidden(shown []int, specs []listColumn, order int) []int {
	out := shown[:0]
	for _, i := range shown {
		if specs[i].hide != order {
			out = append(out, i)
		}
	}
	return out
}

// project gives each row the cells of the shown columns; its signature
// stays that of every cell, so a column giving way flashes nothing.
func (lt *listTable) project(rows []tableRow) []tableRow {
	out := make([]tableRow, len(rows))
	for k, r := range rows {
		p := r
		if p.sig == "" {
			p.sig = strings.Join(r.cells, "\x00")
		}
		p.cells = make([]string, len(lt.shown))
		for j, i := range lt.shown {
			if i < len(r.cells) {
				p.cells[j] = r.cells[i]
			}
		}
		out[k] = p
	}
	return out
}

// layoutColumns gives the columns their widths, given the widest cell of
// each: fitted columns as wide as it (up to most); shared ones split what
// is left by weight, none wider than its widest cell while another wants
// more; the last shared column takes what remains.
func layoutColumns(specs []listColumn, widest []int, width int) []column {
	cols := make([]column, len(specs))
	rest, last := width-2*len(specs), -1
	for i, s := range specs {
		cols[i] = column{title: s.title, min: s.min, right: s.right, tail: s.tail}
		if s.fit {
			cols[i].width = min(widest[i], s.most)
			rest -= cols[i].width
		} else {
			last = i
		}
	}
	if last >= 0 {
		rest -= specs[last].min // the last column's least, kept for it
	}
	// Shares, settled first for the columns that need less than theirs.
	var open []int
	for i, s := range specs {
		if !s.fit && i != last {
			open = append(open, i)
		}
	}
	for len(open) > 0 {
		weights := specs[last].weight
		for _, i := range open {
			weights += specs[i].weight
		}
		var still []int
		used := 0
		for _, i := range open {
			share := rest * specs[i].weight / max(weights, 1)
			if want := max(widest[i], specs[i].min); want <= share {
				cols[i].width = want
				used += want
			} else {
				still = append(still, i)
			}
		}
		if len(still) == len(open) {
			for _, i := range open {
				cols[i].width = max(rest*specs[i].weight/max(weights, 1), specs[i].min, 1)
			}
			break
		}
		rest -= used
		open = still
	}
	// The last keeps width 0: the table gives it the rest.
	return cols
}
