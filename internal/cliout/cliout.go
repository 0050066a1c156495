// Package cliout writes the output of zkx's scriptable commands: aligned
// tables for people, JSON for scripts, colour only on a terminal and never
// with NO_COLOR.
package cliout

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
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

// Header, Dim, Warn and Good colour a header, secondary text, a warning
// and a healthy state.
func (s Styles) Header(t string) string { return s.wrap("1", t) }
func (s Styles) Dim(t string) string    { return s.wrap("2", t) }
func (s Styles) Warn(t string) string   { return s.wrap("33", t) }
func (s Styles) Good(t string) string   { return s.wrap("32", t) }

// TableWriter aligns rows into columns.
type TableWriter struct {
	tw *tabwriter.Writer
}

// NewTable starts a table on w.
func NewTable(w io.Writer) *TableWriter {
	return &TableWriter{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
}

// Row writes one row; cells must not hold tabs or newlines (Clean them).
func (t *TableWriter) Row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")) }

// Flush writes out the aligned table.
func (t *TableWriter) Flush() error { return t.tw.Flush() }

// Clean makes a value safe for one table cell: control characters (tabs,
// newlines, escape sequences from node names or data) are shown escaped.
func Clean(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// WriteJSON writes v as indented JSON with a trailing newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// JSONArray streams a JSON array one element at a time, so long outputs
// (zkx tree) need not be held in memory.
type JSONArray struct {
	w     io.Writer
	count int
}

// NewJSONArray starts an array on w.
func NewJSONArray(w io.Writer) *JSONArray { return &JSONArray{w: w} }

// Add writes one element.
func (a *JSONArray) Add(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	sep := ",\n  "
	if a.count == 0 {
		sep = "[\n  "
	}
	a.count++
	_, err = fmt.Fprintf(a.w, "%s%s", sep, b)
	return err
}

// Close ends the array.
func (a *JSONArray) Close() error {
	if a.count == 0 {
		_, err := io.WriteString(a.w, "[]\n")
		return err
	}
	_, err := io.WriteString(a.w, "\n]\n")
	return err
}
