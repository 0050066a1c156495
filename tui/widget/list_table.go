package widget

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"
)

// ListColumn is a column of a list page before the width is known:
// fitted to its widest cell (up to most), or sharing what is left by
// weight.
type ListColumn struct {
	Title  string
	Fit    bool
	Most   int // a fitted column's widest
	Weight int // a shared column's share
	Min    int
	Right  bool
	Tail   bool // cut from the left (paths)
	// hide > 0 lets the column give way on a narrow screen, hide 1
	// first; 0 always shows.
	Hide int
	// Words cuts cells between words (see Column.Words).
	Words bool
}

// ListTable is the table of a list page whose columns give way on
// narrow screens: it keeps every row's cells and gives the table those
// of the columns that fit, sized to what the rows hold.
type ListTable struct {
	*Table
	specs []ListColumn
	Rows  []TableRow // every cell
	shown []int      // the specs shown, by index
}

func NewListTable(specs ...ListColumn) *ListTable {
	lt := &ListTable{Table: NewTable(), specs: specs}
	lt.relayout()
	return lt
}

// SetRows replaces the rows; a row's flash follows its cells, all of
// them, whichever show.
func (lt *ListTable) SetRows(rows []TableRow, now time.Time) {
	lt.Rows = rows
	lt.relayout()
	lt.Table.SetRows(lt.project(rows), now)
}

// SetSize sizes the table and lays the columns out again.
func (lt *ListTable) SetSize(w, h int) {
	lt.Table.SetSize(w, h)
	lt.relayout()
	lt.Table.SetRows(lt.project(lt.Rows), time.Time{})
}

// relayout picks the columns that fit the width and sizes them.
func (lt *ListTable) relayout() {
	lt.shown = lt.shown[:0]
	for i := range lt.specs {
		lt.shown = append(lt.shown, i)
	}
	widest := make([]int, len(lt.specs))
	for i, s := range lt.specs {
		widest[i] = lipgloss.Width(s.Title)
		for _, r := range lt.Rows {
			if i < len(r.Cells) {
				widest[i] = max(widest[i], lipgloss.Width(r.Cells[i]))
			}
		}
	}
	last := -1
	for i, s := range lt.specs {
		if !s.Fit {
			last = i
		}
	}
	// What a column needs not to be cut: a shared one up to twice its
	// least (a long path does not hide every other column), the last its
	// least (it takes what is left).
	need := func(i int) int {
		s := lt.specs[i]
		switch {
		case s.Fit:
			return min(widest[i], s.Most) + 2
		case i == last:
			return s.Min + 2
		}
		return min(max(widest[i], s.Min), 2*s.Min) + 2
	}
	for order := 1; ; order++ {
		total, hidable := 0, false
		for _, i := range lt.shown {
			total += need(i)
			hidable = hidable || lt.specs[i].Hide >= order
		}
		if total <= lt.width || !hidable {
			break
		}
		lt.shown = removeHidden(lt.shown, lt.specs, order)
	}
	specs := make([]ListColumn, len(lt.shown))
	cols := make([]int, len(lt.shown))
	for j, i := range lt.shown {
		specs[j], cols[j] = lt.specs[i], widest[i]
	}
	lt.Table.Cols = layoutColumns(specs, cols, lt.width)
}

// removeHidden drops the shown columns that give way at order.
func removeHidden(shown []int, specs []ListColumn, order int) []int {
	out := shown[:0]
	for _, i := range shown {
		if specs[i].Hide != order {
			out = append(out, i)
		}
	}
	return out
}

// project gives each row the cells of the shown columns; its signature
// stays that of every cell, so a column giving way flashes nothing.
func (lt *ListTable) project(rows []TableRow) []TableRow {
	out := make([]TableRow, len(rows))
	for k, r := range rows {
		p := r
		if p.Signature == "" {
			p.Signature = strings.Join(r.Cells, "\x00")
		}
		p.Cells = make([]string, len(lt.shown))
		for j, i := range lt.shown {
			if i < len(r.Cells) {
				p.Cells[j] = r.Cells[i]
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
func layoutColumns(specs []ListColumn, widest []int, width int) []Column {
	cols := make([]Column, len(specs))
	rest, last := width-2*len(specs), -1
	for i, s := range specs {
		cols[i] = Column{Title: s.Title, Min: s.Min, Right: s.Right, tail: s.Tail, Words: s.Words}
		if s.Fit {
			cols[i].Width = min(widest[i], s.Most)
			rest -= cols[i].Width
		} else {
			last = i
		}
	}
	if last >= 0 {
		rest -= specs[last].Min // the last column's least, kept for it
	}
	// Shares, settled first for the columns that need less than theirs,
	// the last among them: a last column whose cells are short leaves its
	// share to the others rather than to blank space.
	var open []int
	for i, s := range specs {
		if !s.Fit && i != last {
			open = append(open, i)
		}
	}
	lastOpen := last >= 0
	for len(open) > 0 {
		weights := 0
		if lastOpen {
			weights += specs[last].Weight
		}
		for _, i := range open {
			weights += specs[i].Weight
		}
		if lastOpen {
			share := specs[last].Min + rest*specs[last].Weight/max(weights, 1)
			if want := max(widest[last], specs[last].Min); want <= share {
				rest -= want - specs[last].Min
				lastOpen = false
				continue // the others' shares again, without the last's
			}
		}
		var still []int
		used := 0
		for _, i := range open {
			share := rest * specs[i].Weight / max(weights, 1)
			if want := max(widest[i], specs[i].Min); want <= share {
				cols[i].Width = want
				used += want
			} else {
				still = append(still, i)
			}
		}
		if len(still) == len(open) {
			for _, i := range open {
				cols[i].Width = max(rest*specs[i].Weight/max(weights, 1), specs[i].Min, 1)
			}
			break
		}
		rest -= used
		open = still
	}
	// The last keeps width 0: the table gives it the rest.
	return cols
}
