package widget

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkx-dev/zkx/tui/theme"
)

// Column is one column of a table: a title, and a width that is either
// fixed or a share of what is left.
type Column struct {
	Title string
	Width int // cells; 0 takes a share of the rest
	Min   int // the least a shared column gets
	Right bool
	// tail cuts a cell that does not fit from the left, keeping its end
	// (a path's last names tell rows apart).
	tail bool
	// drop orders the columns given up when the table is too narrow:
	// the highest first; 0 is never dropped.
	Drop int
	// Words cuts a cell that does not fit between words, never inside
	// one (sentences: a state, a warning).
	Words bool
}

// TableRow is one row: its cells (plain or styled text), the key that
// identifies it across reloads (to keep the cursor on it and to flash it
// when it changes), and an optional style for the whole row.
type TableRow struct {
	Key   string
	Cells []string
	Style *lipgloss.Style
	// Signature, when set, is what tells a change (a flash) instead of the
	// cells: cells with durations change every second on their own.
	Signature string
}

// Table is a scrolling list with a cursor, a filter and flashes: the
// body of every list page. It keeps only what is shown in View's cost:
// rows outside the window are never drawn.
type Table struct {
	Cols    []Column
	All     []TableRow
	Shown   []int // indexes into all that pass the filter
	Filter  Filter
	cursor  int // index into shown
	offset  int
	width   int
	Height  int
	Flashes map[string]time.Time
	// previous cell contents by key, to see which rows changed
	previous map[string]string
}

const FlashFor = 800 * time.Millisecond

func NewTable(cols ...Column) *Table {
	return &Table{Cols: cols, Flashes: map[string]time.Time{}, previous: map[string]string{}}
}

// SetRows replaces the rows, keeps the cursor on the row it was on, and
// flashes rows whose cells changed (not on the first load).
func (t *Table) SetRows(rows []TableRow, now time.Time) {
	selected := t.selectedKey()
	first := len(t.previous) == 0 && len(t.All) == 0
	seen := make(map[string]string, len(rows))
	for _, r := range rows {
		sig := r.Signature
		if sig == "" {
			sig = strings.Join(r.Cells, "\x00")
		}
		if old, ok := t.previous[r.Key]; !first && (!ok || old != sig) {
			t.Flashes[r.Key] = now
		}
		seen[r.Key] = sig
	}
	t.previous = seen
	t.All = rows
	t.refilter()
	if selected != "" {
		t.SelectKey(selected)
	}
}

func (t *Table) refilter() {
	t.Shown = t.Shown[:0]
	for i, r := range t.All {
		if !t.Filter.Active() || t.Filter.Match(ansi.Strip(strings.Join(r.Cells, " "))) {
			t.Shown = append(t.Shown, i)
		}
	}
	t.clamp()
}

func (t *Table) SetFilter(f Filter) {
	key := t.selectedKey()
	t.Filter = f
	t.refilter()
	t.SelectKey(key)
}

func (t *Table) SetSize(w, h int) {
	t.width, t.Height = w, h
	t.clamp()
}

// Selected returns the row under the cursor.
func (t *Table) Selected() (TableRow, bool) {
	if t.cursor < 0 || t.cursor >= len(t.Shown) {
		return TableRow{}, false
	}
	return t.All[t.Shown[t.cursor]], true
}

func (t *Table) selectedKey() string {
	r, ok := t.Selected()
	if !ok {
		return ""
	}
	return r.Key
}

func (t *Table) SelectKey(key string) {
	for i, idx := range t.Shown {
		if t.All[idx].Key == key {
			t.cursor = i
			t.clamp()
			return
		}
	}
}

func (t *Table) bodyHeight() int { return max(t.Height-1, 1) }

func (t *Table) Move(delta int) {
	t.cursor += delta
	t.clamp()
}

func (t *Table) home() { t.cursor = 0; t.clamp() }
func (t *Table) end()  { t.cursor = len(t.Shown) - 1; t.clamp() }

func (t *Table) clamp() {
	if t.cursor >= len(t.Shown) {
		t.cursor = len(t.Shown) - 1
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
	if t.offset > max(len(t.Shown)-h, 0) {
		t.offset = max(len(t.Shown)-h, 0)
	}
	if t.offset < 0 {
		t.offset = 0
	}
}

// click moves the cursor to the row at y (0 is the title row).
func (t *Table) click(y int) bool {
	i := t.offset + y - 1
	if y < 1 || i >= len(t.Shown) {
		return false
	}
	t.cursor = i
	return true
}

// Flashing reports whether any row still flashes at now.
func (t *Table) Flashing(now time.Time) bool {
	for k, at := range t.Flashes {
		if now.Sub(at) < FlashFor {
			return true
		}
		delete(t.Flashes, k)
	}
	return false
}

// layout picks the columns that fit and their widths: columns are
// dropped, highest drop first, until the fixed widths and the minimum of
// the shared ones fit; what is left over is split among the shared ones.
// Columns not shown get width 0.
func (t *Table) layout() []int {
	ws := make([]int, len(t.Cols))
	shown := make([]bool, len(t.Cols))
	for i := range shown {
		shown[i] = true
	}
	need := func() int {
		n := 0
		for i, c := range t.Cols {
			if shown[i] {
				n += 2 + max(c.Width, c.Min, 1)
			}
		}
		return n
	}
	for need() > t.width {
		worst := -1
		for i, c := range t.Cols {
			if shown[i] && c.Drop > 0 && (worst < 0 || c.Drop > t.Cols[worst].Drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		shown[worst] = false
	}
	rest, shared := t.width, 0
	for i, c := range t.Cols {
		if !shown[i] {
			continue
		}
		rest -= 2 // the gap before each column (the first holds the cursor mark)
		if c.Width > 0 {
			ws[i] = c.Width
			rest -= c.Width
		} else {
			shared++
		}
	}
	for i, c := range t.Cols {
		if shown[i] && c.Width == 0 {
			ws[i] = max(rest/max(shared, 1), c.Min, 1)
		}
	}
	return ws
}

func (t *Table) View(st theme.Styles, focused bool, now time.Time) string {
	ws := t.layout()
	lines := make([]string, 0, t.Height)
	var title strings.Builder
	for i, c := range t.Cols {
		if ws[i] == 0 {
			continue
		}
		title.WriteString("  ")
		title.WriteString(Pad(c.Title, ws[i], c.Right))
	}
	lines = append(lines, st.Dim.Render(Fit(title.String(), t.width)))
	if len(t.Shown) == 0 {
		msg := "  nothing here"
		if t.Filter.Active() {
			msg = "  nothing matches the filter " + t.Filter.Text
		}
		lines = append(lines, st.Dim.Render(msg))
	}
	end := min(t.offset+t.bodyHeight(), len(t.Shown))
	for i := t.offset; i < end; i++ {
		r := t.All[t.Shown[i]]
		var b strings.Builder
		first := true
		for j, c := range t.Cols {
			if ws[j] == 0 {
				continue
			}
			mark := "  "
			if first && i == t.cursor {
				mark = "› "
			}
			cell := ""
			if j < len(r.Cells) {
				cell = r.Cells[j]
			}
			first = false
			b.WriteString(mark)
			switch {
			case c.tail:
				cell = keepTail(cell, ws[j])
			case c.Words:
				cell = CutWords(cell, ws[j])
			}
			b.WriteString(Pad(cell, ws[j], c.Right))
		}
		line := Fit(b.String(), t.width)
		switch {
		case i == t.cursor && focused:
			line = st.Selected.Render(ansi.Strip(line))
		case i == t.cursor:
			line = st.SelectedDim.Render(ansi.Strip(line))
		case now.Sub(t.Flashes[r.Key]) < FlashFor:
			line = st.Flash.Render(ansi.Strip(line))
		case r.Style != nil:
			line = r.Style.Render(line)
		}
		lines = append(lines, line)
	}
	return Block(lines, t.width, t.Height)
}

// Pad cuts a cell to width cells and aligns it.
func Pad(s string, width int, right bool) string {
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

// NextFlash is how long until the last running flash ends; 0 when none
// runs. Pages that animate only for flashes ask for one frame then.
func (t *Table) NextFlash(now time.Time) time.Duration {
	var next time.Duration
	for _, at := range t.Flashes {
		if left := FlashFor - now.Sub(at); left > 0 {
			next = max(next, left)
		}
	}
	return next
}

// Visible returns the rows in the window, for pages that redraw only
// what shows (live durations).
func (t *Table) Visible() []TableRow {
	end := min(t.offset+t.bodyHeight(), len(t.Shown))
	out := make([]TableRow, 0, max(end-t.offset, 0))
	for i := t.offset; i < end; i++ {
		out = append(out, t.All[t.Shown[i]])
	}
	return out
}

// CutWords cuts s to width cells at the end of a word, marking the cut
// with "…"; a first word longer than width is cut where it must be.
func CutWords(s string, width int) string {
	if lipgloss.Width(s) <= width || width < 2 {
		return s
	}
	end, cells, prev := 0, 0, ' ' // end: the cells before the last space that leaves room for "…"
	for _, r := range ansi.Strip(s) {
		if cells >= width {
			break
		}
		if r == ' ' && prev != ' ' {
			end = cells
		}
		cells += lipgloss.Width(string(r))
		prev = r
	}
	if end == 0 {
		return ansi.Truncate(s, width, "…")
	}
	return ansi.Truncate(s, end+1, "…")
}

// keepTail cuts s from the left to width cells, marking the cut with "…".
func keepTail(s string, width int) string {
	w := lipgloss.Width(s)
	if w <= width || width < 1 {
		return s
	}
	return "…" + ansi.TruncateLeft(s, w-width+1, "")
}
