package hostile

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Finding is one thing in a front end's output that a terminal would act
// on: what it is, the bytes around it, and the start of its line, quoted.
type Finding struct{ What, Context, Line string }

// Allow is what Controls lets pass besides text and newlines.
type Allow struct {
	// SGR: whole SGR sequences (ESC [ digits m), a front end's own
	// styling when it styles.
	SGR bool
	// Tab: tabs, which text of several lines keeps (display.Text).
	Tab bool
}

// Controls lists what in text a terminal would act on rather than show:
// an escape, any other C0 control but the newline, DEL, C1 controls,
// format characters (bidi overrides and isolates, zero-width runes),
// bytes that are not UTF-8 — but what allow lets pass.
func Controls(text string, allow Allow) []Finding {
	var out []Finding
	at := func(i int, what string) {
		from, to := max(i-12, 0), min(i+12, len(text))
		start := strings.LastIndexByte(text[:i], '\n') + 1
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text) - i
		}
		line := strings.TrimSpace(text[start : i+end])
		if len(line) > 90 {
			line = line[:90] // what starts the line says where it is
		}
		out = append(out, Finding{what, fmt.Sprintf("%q", text[from:to]), fmt.Sprintf("%q", line)})
	}
	for i := 0; i < len(text); {
		if allow.SGR && text[i] == 0x1b {
			if n := sgrLength(text[i:]); n > 0 {
				i += n
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			at(i, fmt.Sprintf("a byte that is not UTF-8 (%#x)", text[i]))
		case r == '\n', r == '\t' && allow.Tab:
		case r == 0x1b:
			at(i, "ESC")
		case unicode.Is(unicode.Cc, r):
			at(i, fmt.Sprintf("control character %U", r))
		case unicode.Is(unicode.Cf, r):
			at(i, fmt.Sprintf("format character %U", r))
		}
		i += size
	}
	return out
}

// sgrLength is the length of the SGR sequence s starts with, 0 for none.
func sgrLength(s string) int {
	if !strings.HasPrefix(s, "\x1b[") {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}
