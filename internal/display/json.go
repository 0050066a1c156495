package display

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// JSON returns encoded JSON with every rune that does not show as itself
// (see Visible) written as a \u escape: encoding/json escapes control
// characters below U+0020 but leaves DEL, bidi overrides (U+202E) and
// zero-width characters raw, which a terminal showing the output obeys or
// hides. Such runes occur only inside strings, where the escape means the
// same rune; the value decodes unchanged. Runes beyond U+FFFF are written
// as UTF-16 surrogate pairs, as JSON wants.
func JSON(b []byte) []byte {
	clean := true
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if !Visible(r) && r >= 0x7f {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case Visible(r) || r < 0x7f:
			out = append(out, b[i:i+size]...)
		case r > 0xffff:
			r -= 0x10000
			out = fmt.Appendf(out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	return out
}

// JSONWriter writes through JSON each write: a json.Encoder's output (it
// writes each value whole) comes out escaped as JSON escapes it.
type JSONWriter struct{ Out io.Writer }

func (j JSONWriter) Write(b []byte) (int, error) {
	if _, err := j.Out.Write(JSON(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
