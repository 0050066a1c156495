package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zkx-dev/zkx/internal/display"
)

// isPrintableText reports whether data is valid UTF-8 with no control characters
// (C0, DEL, C1) other than tab, newline and carriage return: Auto's
// test for text.
func isPrintableText(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		if r >= 0x80 && r <= 0x9f {
			return false
		}
		i += size
	}
	return true
}

// looksLikeJSONDoc is Auto's test for JSON: valid UTF-8, an object or an
// array, and it parses.
func looksLikeJSONDoc(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return false
	}
	return utf8.Valid(data) && json.Valid(data)
}

// escapeNote describes the escapes for Result.Note.
func escapeNote(s display.Escapes) string {
	var parts []string
	if s.Invalid > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of invalid UTF-8 shown as \\xNN", s.Invalid))
	}
	if s.Controls > 0 {
		parts = append(parts, fmt.Sprintf("%d control or non-printing characters shown escaped", s.Controls))
	}
	if s.CRLF > 0 {
		parts = append(parts, "CRLF line ends shown as LF")
	}
	if s.Cut > 0 {
		parts = append(parts, fmt.Sprintf("cut at %d KiB, %d more bytes not shown", maxText>>10, s.Cut))
	}
	return joinNotes(parts...)
}

// escapeTextBounded is appendEscapedText into a fresh string, with the line
// "… N more bytes" when the limit cut it short.
func escapeTextBounded(data []byte, multiline bool, limit int) (string, display.Escapes) {
	var b strings.Builder
	b.Grow(min(len(data), limit) + 16)
	st := display.AppendEscaped(&b, data, multiline, limit)
	if st.Cut > 0 {
		fmt.Fprintf(&b, "\n… %d more bytes", st.Cut)
	}
	return b.String(), st
}

// decodeText shows data as text; it always fits, with escapes noted.
func decodeText(data []byte) Result {
	text, st := escapeTextBounded(data, true, maxText)
	return Result{Decoder: Text, Text: text, Note: escapeNote(st)}
}

// decodeJSON pretty-prints JSON with two-space indents, keeping the input's
// key order and number spelling, or falls back to hex.
func decodeJSON(data []byte) Result {
	var out bytes.Buffer
	out.Grow(len(data) + len(data)/4)
	if err := json.Indent(&out, data, "", "  "); err != nil {
		return hexFallback(data, "not JSON: "+strings.TrimPrefix(err.Error(), "json: "))
	}
	pretty := bytes.TrimRight(out.Bytes(), " \t\r\n")
	// JSON strings cannot hold raw control characters, but may hold invalid
	// UTF-8 and non-printing runes: escape those like text.
	text, st := escapeTextBounded(pretty, true, maxText)
	if st.Cut > 0 {
		st.Cut = 0 // the cut is counted in bytes of pretty output; say so instead
		return Result{Decoder: JSON, Text: text,
			Note: joinNotes(escapeNote(st), fmt.Sprintf("pretty-printed JSON cut at %d KiB", maxText>>10))}
	}
	return Result{Decoder: JSON, Text: text, Note: escapeNote(st)}
}
