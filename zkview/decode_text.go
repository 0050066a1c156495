package zkview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// isPrintableText reports whether data is valid UTF-8 with no control characters
// (C0, DEL, C1) other than tab, newline and carriage return: DecodeAuto's
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

// looksLikeJSONDoc is DecodeAuto's test for JSON: valid UTF-8, an object or an
// array, and it parses.
func looksLikeJSONDoc(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return false
	}
	return utf8.Valid(data) && json.Valid(data)
}

// textEscapes counts what an escaping pass changed.
type textEscapes struct {
	invalid  int // bytes of invalid UTF-8
	controls int // control characters and other non-printing runes
	crlf     int // CR LF line ends turned into LF (multi-line mode only)
	cut      int // bytes of input left out after the output limit
}

// note describes the escapes for Decoded.Note.
func (s textEscapes) note() string {
	var parts []string
	if s.invalid > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of invalid UTF-8 shown as \\xNN", s.invalid))
	}
	if s.controls > 0 {
		parts = append(parts, fmt.Sprintf("%d control or non-printing characters shown escaped", s.controls))
	}
	if s.crlf > 0 {
		parts = append(parts, "CRLF line ends shown as LF")
	}
	if s.cut > 0 {
		parts = append(parts, fmt.Sprintf("cut at %d KiB, %d more bytes not shown", decodeMaxText>>10, s.cut))
	}
	return joinDecodeNotes(parts...)
}

// appendEscapedText writes data to b as printable text, stopping once b holds
// limit bytes (limit <= 0: no limit). In multi-line mode newlines and tabs
// stay and CR LF becomes LF; otherwise they are escaped too (\n, \t, \r).
// Backslashes are left alone. Other C0 controls, DEL and invalid bytes are
// written as \xNN, other non-printing runes (C1 controls, format characters
// such as U+202E, unassigned and private-use code points) as \uNNNN.
func appendEscapedText(b *strings.Builder, data []byte, multiline bool, limit int) textEscapes {
	var st textEscapes
	for i := 0; i < len(data); {
		if limit > 0 && b.Len() >= limit {
			st.cut = len(data) - i
			break
		}
		c := data[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 0x20 && c != 0x7f:
				b.WriteByte(c)
			case c == '\n' && multiline:
				b.WriteByte('\n')
			case c == '\t' && multiline:
				b.WriteByte('\t')
			case c == '\r' && multiline && i < len(data) && data[i] == '\n':
				st.crlf++ // the LF follows on the next round
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\r':
				b.WriteString(`\r`)
			default:
				st.controls++
				writeByteEscape(b, c)
			}
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			st.invalid++
			writeByteEscape(b, c)
		case unicode.IsGraphic(r):
			b.Write(data[i : i+size])
		case r > 0xffff:
			st.controls++
			fmt.Fprintf(b, `\U%08x`, r)
		default:
			st.controls++
			fmt.Fprintf(b, `\u%04x`, r)
		}
		i += size
	}
	return st
}

// EscapeLine shows s on one line with nothing a terminal would act on:
// newlines, tabs, other control characters, invalid bytes and invisible
// runes (U+202E) come out escaped. Node names go through it before they
// are drawn or printed.
func EscapeLine(s string) string {
	var b strings.Builder
	appendEscapedText(&b, []byte(s), false, 0)
	return b.String()
}

// escapeTextBounded is appendEscapedText into a fresh string, with the line
// "… N more bytes" when the limit cut it short.
func escapeTextBounded(data []byte, multiline bool, limit int) (string, textEscapes) {
	var b strings.Builder
	b.Grow(min(len(data), limit) + 16)
	st := appendEscapedText(&b, data, multiline, limit)
	if st.cut > 0 {
		fmt.Fprintf(&b, "\n… %d more bytes", st.cut)
	}
	return b.String(), st
}

// decodeText shows data as text; it always fits, with escapes noted.
func decodeText(data []byte) Decoded {
	text, st := escapeTextBounded(data, true, decodeMaxText)
	return Decoded{Decoder: DecodeText, Text: text, Note: st.note()}
}

// decodeJSON pretty-prints JSON with two-space indents, keeping the input's
// key order and number spelling, or falls back to hex.
func decodeJSON(data []byte) Decoded {
	var out bytes.Buffer
	out.Grow(len(data) + len(data)/4)
	if err := json.Indent(&out, data, "", "  "); err != nil {
		return decodeHexFallback(data, "not JSON: "+strings.TrimPrefix(err.Error(), "json: "))
	}
	pretty := bytes.TrimRight(out.Bytes(), " \t\r\n")
	// JSON strings cannot hold raw control characters, but may hold invalid
	// UTF-8 and non-printing runes: escape those like text.
	text, st := escapeTextBounded(pretty, true, decodeMaxText)
	if st.cut > 0 {
		st.cut = 0 // the cut is counted in bytes of pretty output; say so instead
		return Decoded{Decoder: DecodeJSON, Text: text,
			Note: joinDecodeNotes(st.note(), fmt.Sprintf("pretty-printed JSON cut at %d KiB", decodeMaxText>>10))}
	}
	return Decoded{Decoder: DecodeJSON, Text: text, Note: st.note()}
}

// writeByteEscape writes c as \xNN.
func writeByteEscape(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&0x0f])
}
