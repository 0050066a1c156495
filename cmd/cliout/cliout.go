// Package cliout writes the output of zkx's scriptable commands: aligned
// tables for people, JSON for scripts, colour only on a terminal and never
// with NO_COLOR.
package cliout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/zkx-dev/zkx/internal/display"
)

// Format is an output format chosen with -o.
type Format string

const (
	Table Format = "table"
	JSON  Format = "json"
)

// ParseFormat checks the value of -o.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case Table, JSON:
		return Format(s), nil
	}
	return "", fmt.Errorf("-o %q: want table or json", s)
}

// IsTerminal reports whether f is a terminal (a character device).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ColourFor says whether to colour output written to w: only on a
// terminal, and never when NO_COLOR is set (https://no-color.org).
func ColourFor(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	f, ok := w.(*os.File)
	return ok && IsTerminal(f)
}

// Styles colours table cells when colour is on.
type Styles struct{ on bool }

// NewStyles returns styles for w.
func NewStyles(w io.Writer) Styles { return Styles{on: ColourFor(w)} }

func (s Styles) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// Header colours a header (bold).
func (s Styles) Header(t string) string { return s.wrap("1", t) }

// Dim colours secondary text.
func (s Styles) Dim(t string) string { return s.wrap("2", t) }

// Warn colours a warning (yellow).
func (s Styles) Warn(t string) string { return s.wrap("33", t) }

// Good colours a healthy state (green).
func (s Styles) Good(t string) string { return s.wrap("32", t) }

// Bad colours a broken state (red, bold).
func (s Styles) Bad(t string) string { return s.wrap("1;31", t) }

// TableWriter aligns rows into columns. Widths are measured as a terminal
// shows them: colour escape sequences (Styles) take no room, so a coloured
// cell lines up with plain ones (text/tabwriter would count their bytes).
type TableWriter struct {
	out  io.Writer
	rows [][]string
}

// NewTable starts a table on w.
func NewTable(w io.Writer) *TableWriter { return &TableWriter{out: w} }

// Row writes one row; cells must not hold tabs or newlines (Clean them).
func (t *TableWriter) Row(cells ...string) { t.rows = append(t.rows, cells) }

// tablePadding separates columns.
const tablePadding = 2

// Flush writes out the aligned table: every cell but a row's last is
// padded to its column's width, and trailing blanks are dropped.
func (t *TableWriter) Flush() error {
	var widths []int
	for _, row := range t.rows {
		for i, c := range row[:max(len(row)-1, 0)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], visibleWidth(c))
		}
	}
	var b strings.Builder
	for _, row := range t.rows {
		var line strings.Builder
		for i, c := range row {
			line.WriteString(c)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-visibleWidth(c)+tablePadding))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	t.rows = nil
	_, err := io.WriteString(t.out, b.String())
	return err
}

// visibleWidth counts the runes of s outside escape sequences (ESC [ … a
// final letter), as a terminal shows them.
func visibleWidth(s string) int {
	n, esc := 0, false
	for i, r := range s {
		switch {
		case esc:
			if r != '[' && r >= 0x40 && r <= 0x7e {
				esc = false
			}
		case r == 0x1b && strings.HasPrefix(s[i:], "\x1b["):
			esc = true
		default:
			n++
		}
	}
	return n
}

// Clean makes a value safe for one table cell: control characters (tabs,
// newlines, escape sequences from node names or data), invalid bytes and
// invisible runes are shown escaped, as everywhere in zkx.
func Clean(s string) string { return display.Line(s) }

// WriteJSON writes v as indented JSON with a trailing newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(display.JSONWriter{Out: w}) // bidi and zero-width characters as \u escapes
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "<9 bytes binary>" stays readable
	return enc.Encode(v)
}

// JSONArray streams a JSON array one element at a time, so long outputs
// (zkx tree) need not be held in memory.
type JSONArray struct {
	out   io.Writer
	count int
}

// NewJSONArray starts an array on w.
func NewJSONArray(w io.Writer) *JSONArray { return &JSONArray{out: w} }

// Add writes one element.
func (a *JSONArray) Add(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b := display.JSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	sep := ",\n  "
	if a.count == 0 {
		sep = "[\n  "
	}
	a.count++
	_, err := fmt.Fprintf(a.out, "%s%s", sep, b)
	return err
}

// Close ends the array.
func (a *JSONArray) Close() error {
	if a.count == 0 {
		_, err := io.WriteString(a.out, "[]\n")
		return err
	}
	_, err := io.WriteString(a.out, "\n]\n")
	return err
}
