package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Format is how the data is edited and checked.
type Format int

const (
	// Text is edited as it is; anything goes back.
	Text Format = iota
	// JSON was a JSON object or array when read, and must stay JSON.
	JSON
)

func (f Format) String() string { return [...]string{"text", "JSON"}[f] }

// ErrBinary is data that is not text: zkx does not edit it (a text editor
// would mangle it; hex editing is zkx get --decode hex and a set).
var ErrBinary = errors.New("binary data")

// FormatOf says how data is edited: JSON when it is a JSON object or
// array, else text when it is UTF-8 without control characters (but tab
// and line ends); other data is ErrBinary, naming its size.
func FormatOf(data []byte) (Format, error) {
	if !isText(data) {
		return Text, fmt.Errorf("%w (%d bytes, not UTF-8 text): zkx edits text only — zkx get --decode hex shows it", ErrBinary, len(data))
	}
	t := bytes.TrimSpace(data)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		return JSON, nil
	}
	return Text, nil
}

func isText(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for _, r := range string(data) {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
	}
	return true
}

// SyntaxError is edited data that was JSON and is no longer, at a line and
// column (1-based; the column counts characters) as the JSON parser found.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("not JSON any more: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Check reports whether edited data may be written in format f: JSON must
// parse (a *SyntaxError otherwise); text always may.
func Check(f Format, edited []byte) error {
	if f != JSON {
		return nil
	}
	var v any
	err := json.Unmarshal(edited, &v)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		line, col := lineColumn(edited, se.Offset)
		return &SyntaxError{Line: line, Column: col, Msg: se.Error()}
	}
	return &SyntaxError{Line: 1, Column: 1, Msg: err.Error()}
}

// lineColumn turns the parser's offset (bytes read when it failed: the
// offending byte is the last of them) into a line and column.
func lineColumn(data []byte, offset int64) (line, col int) {
	offset = min(max(offset-1, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[start:]) + 1
}
