package display

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escapes counts what an escaping pass changed.
type Escapes struct {
	Invalid  int // bytes of invalid UTF-8
	Controls int // control characters and other non-printing runes
	CRLF     int // CR LF line ends turned into LF (multi-line mode only)
	Cut      int // bytes of input left out after the output limit
}

// AppendEscaped writes data to b as printable text, stopping once b holds
// limit bytes (limit <= 0: no limit). In multi-line mode newlines and tabs
// stay and CR LF becomes LF; otherwise they are escaped too (\n, \t, \r).
// Backslashes are left alone. Other C0 controls, DEL and invalid bytes are
// written as \xNN, other non-printing runes (C1 controls, format characters
// such as U+202E, unassigned and private-use code points) as \uNNNN.
func AppendEscaped(b *strings.Builder, data []byte, multiline bool, limit int) Escapes {
	var st Escapes
	for i := 0; i < len(data); {
		if limit > 0 && b.Len() >= limit {
			st.Cut = len(data) - i
			break
		}
		c := data[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case Visible(rune(c)):
				b.WriteByte(c)
			case c == '\n' && multiline:
				b.WriteByte('\n')
			case c == '\t' && multiline:
				b.WriteByte('\t')
			case c == '\r' && multiline && i < len(data) && data[i] == '\n':
				st.CRLF++ // the LF follows on the next round
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\r':
				b.WriteString(`\r`)
			default:
				st.Controls++
				writeByteEscape(b, c)
			}
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			st.Invalid++
			writeByteEscape(b, c)
		case Visible(r):
			b.Write(data[i : i+size])
		case r > 0xffff:
			st.Controls++
			fmt.Fprintf(b, `\U%08x`, r)
		default:
			st.Controls++
			fmt.Fprintf(b, `\u%04x`, r)
		}
		i += size
	}
	return st
}

// Visible reports whether r shows as itself on a terminal: not a control
// character, not an invisible rune that reorders or hides text (U+202E,
// U+200B), not unassigned or private. Everything else zkx escapes.
func Visible(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0x20 && r != 0x7f
	}
	return unicode.IsGraphic(r)
}

// Text shows s with nothing a terminal would act on, as Line does, but
// keeps its line breaks and tabs: for messages of several lines.
func Text(s string) string {
	var b strings.Builder
	AppendEscaped(&b, []byte(s), true, 0)
	return b.String()
}

// Line shows s on one line with nothing a terminal would act on: newlines,
// tabs, other control characters, invalid bytes and invisible runes
// (U+202E) come out escaped. Node names go through it before they are
// drawn or printed.
func Line(s string) string {
	var b strings.Builder
	AppendEscaped(&b, []byte(s), false, 0)
	return b.String()
}

// writeByteEscape writes c as \xNN.
func writeByteEscape(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&0x0f])
}
