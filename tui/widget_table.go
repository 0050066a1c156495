package tui

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// column is one column of a table: a title, and a width that is either
// fixed or a share of what is left.
type column struct {
	title string
	width int // cells; 0 takes a share of the rest
	min   int // the least a shared column gets
	right bool
	// tail cuts a cell that does not fit from the left, keeping its end
	// (a path's last names tell rows apart).
	tail bool
	// drop orders the columns given up when the table is too narrow:
	// the highest first; 0 is never dropped.
	drop int
}

// tableRow is one row: its cells (plain or styled text), the key that
// identifies it across reloads (to keep the cursor on it and to flash it
// when it changes), and an optional style for the whole row.
type tableRow struct {
	key   string
	cells []string
	style *lipgloss.Style
	// sig, when set, is what tells a change (a flash) instead of the
	// cells: cells with durations change every second on their own.
	sig string
}

// table is a scrolling list with a cursor, a filter and flashes: the
// body of every list page. It keeps only what is shown in View's cost:
// rows outside the window are never drawn.
type table struct {
	cols    []column
	all     []tableRow
	shown   []int // indexes into all that pass the filter
	filter  filter
	cursor  int // index into shown
	offset  int
	width   int
	height  int
	flashes map[string]time.Time
	// previous cell contents by key, to see which rows changed
	previous map[string]string
}

const flashFor = 800 * time.Millisecond

func newTable(cols ...column) *table {
	return &table{cols: cols, flashes: map[string]time.Time{}, previous: map[string]string{}}
}

// setRows replaces the rows, keeps the cursor on the row it was on, and
// flashes rows whose cells changed (not on the first load).
func (t *table) setRows(rows []tableRow, now time.Time) {
	selected := t.selectedKey()
	first := len(t.previous) == 0 && len(t.all) == 0
	seen := make(map[string]string, len(rows))
	for _, r := range rows {
		sig := r.sig
		if sig == "" {
			sig = strings.Join(r.cells, "\x00")
		}
		if old, ok := t.previous[r.key]; !first && (!ok || old != sig) {
			t.flashes[r.key] = now
		}
		seen[r.key] = sig
	}
	t.previous = seen
	t.all = rows
	t.refilter()
	if selected != "" {
		t.selectKey(selected)
	}
}

func (t *table) refilter() {
	t.shown = t.shown[:0]
	for i, r := range t.all {
		if !t.filter.active() || t.filter.match(ansi.Strip(strings.Join(r.cells, " "))) {
			t.shown = append(t.shown, i)
		}
	}
	t.clamp()
}

func (t *table) setFilter(f filter) {
	key := t.selectedKey()
	t.filter = f
	t.refilter()
	t.selectKey(key)
}

func (t *table) setSize(w, h int) {
	t.width, t.height = w, h
	t.clamp()
}

// selected returns the row under the cursor.
func (t *table) selected() (tableRow, bool) {
	if t.cursor < 0 || t.cursor >= len(t.shown) {
		return tableRow{}, false
	}
	return t.all[t.shown[t.cursor]], true
}

func (t *table) selectedKey() string {
	r, ok := t.selected()
	if !ok {
		return ""
	}
	return r.key
}

func (t *table) selectKey(key string) {
	for i, idx := range t.shown {
		if t.all[idx].key == key {
			t.cursor = i
			t.clamp()
			return
		}
	}
}

func (t *table) bodyHeight() int { return max(t.height-1, 1) }

func (t *table) move(delta int) {
	t.cursor += delta
	t.clamp()
}

func (t *table) home() { t.cursor = 0; t.clamp() }
func (t *table) end()  { t.cursor = len(t.shown) - 1; t.clamp() }

func (t *table) clamp() {
	if t.cursor >= len(t.shown) {
		t.cursor = len(t.shown) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	h := t.bodyHeight()
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+h {
		t.offset = t.cursor - h + 1
	}
	if t.offset > max(len(t.shown)-h, 0) {
		t.offset = max(len(t.shown)-h, 0)
	}
	if t.offset < 0 {
		t.offset = 0
	}
}

// click moves the cursor to the row at y (0 is the title row).
func (t *table) click(y int) bool {
	i := t.offset + y - 1
	if y < 1 || i >= len(t.shown) {
		return false
	}
	t.cursor = i
	return true
}

// flashing reports whether any row still flashes at now.
func (t *table) flashing(now time.Time) bool {
	for k, at := range t.flashes {
		if now.Sub(at) < flashFor {
			return true
		}
		delete(t.flashes, k)
	}
	return false
}

// layout picks the columns that fit and their widths: columns are
// dropped, highest drop first, until the fixed widths and the minimum of
// the shared ones fit; what is left over is split among the shared ones.
// Columns not shown get width 0.
func (t *table) layout() []int {
	ws := make([]int, len(t.cols))
	shown := make([]bool, len(t.cols))
	for i := range shown {
		shown[i] = true
	}
	need := func() int {
		n := 0
		for i, c := range t.cols {
			if shown[i] {
				n += 2 + max(c.width, c.min, 1)
			}
		}
		return n
	}
	for need() > t.width {
		worst := -1
		for i, c := range t.cols {
			if shown[i] && c.drop > 0 && (worst < 0 || c.drop > t.cols[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		shown[worst] = false
	}
	rest, shared := t.width, 0
	for i, c := range t.cols {
		if !shown[i] {
			continue
		}
		rest -= 2 // the gap before each column (the first holds the cursor mark)
		if c.width > 0 {
			ws[i] = c.width
			rest -= c.width
		} else {
			shared++
		}
	}
	for i, c := range t.cols {
		if shown[i] && c.width == 0 {
			ws[i] = max(rest/max(shared, 1), c.min, 1)
		}
	}
	return ws
}

func (t *table) view(st Styles, focused bool, now time.Time) string {
	ws := t.layout()
	lines := make([]string, 0, t.height)
	var title strings.Builder
	for i, c := range t.cols {
		if ws[i] == 0 {
			continue
		}
		title.WriteString("  ")
		title.WriteString(pad(c.title, ws[i], c.right))
	}
	lines = append(lines, st.Dim.Render(fit(title.String(), t.width)))
	if len(t.shown) == 0 {
		msg := "  nothing here"
		if t.filter.active() {
			msg = "  nothing matches the filter " + t.filter.text
		}
		lines = append(lines, st.Dim.Render(msg))
	}
	end := min(t.offset+t.bodyHeight(), len(t.shown))
	for i := t.offset; i < end; i++ {
		r := t.all[t.shown[i]]
		var b strings.Builder
		first := true
		for j, c := range t.cols {
			if ws[j] == 0 {
				continue
			}
			mark := "  "
			if first && i == t.cursor {
				mark = "› "
			}
			cell := ""
			if j < len(r.cells) {
				cell = r.cells[j]
			}
			first = false
			b.WriteString(mark)
			if c.tail {
				cell = keepTail(cell, ws[j])
			}
			b.WriteString(pad(cell, ws[j], c.right))
		}
		line := fit(b.String(), t.width)
		switch {
		case i == t.cursor && focused:
			line = st.Selected.Render(ansi.Strip(line))
		case i == t.cursor:
			line = st.SelectedDim.Render(ansi.Strip(line))
		case now.Sub(t.flashes[r.key]) < flashFor:
			line = st.Flash.Render(ansi.Strip(line))
		case r.style != nil:
			line = r.style.Render(line)
		}
		lines = append(lines, line)
	}
	return block(lines, t.width, t.height)
}

// pad cuts a cell to width cells and aligns it.
func pad(s string, width int, right bool) string {
	w := lipgloss.Width(s)
	if w > width {
		return ansi.Truncate(s, width, "…")
	}
	if w == width {
		return s
	}
	if right {
		return strings.Repeat(" ", width-w) + strings.TrimRight(s, " ")
	}
	return s + strings.Repeat(" ", width-w)
}

// nextFlash is how long until the last running flash ends; 0 when none
// runs. Pages that animate only for flashes ask for one frame then.
func (t *table) nextFlash(now time.Time) time.Duration {
	var next time.Duration
	for _, at := range t.flashes {
		if left := flashFor - now.Sub(at); left > 0 {
			next = max(next, left)
		}
	}
	return next
}

// visible returns the rows in the window, for pages that redraw only
// what shows (live durations).
func (t *table) visible() []tableRow {
	end := min(t.offset+t.bodyHeight(), len(t.shown))
	out := make([]tableRow, 0, max(end-t.offset, 0))
	for i := t.offset; i < end; i++ {
		out = append(out, t.all[t.shown[i]])
	}
	return out
}

// keepTail cuts s from the left to width cells, marking the cut with "…".
func keepTail(s string, width int) string {
	w := lipgloss.Width(s)
	if w <= width || width < 1 {
		return s
	}
	return "…" + ansi.TruncateLeft(s, w-width+1, "")
}
