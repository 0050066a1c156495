package theme

import (
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/internal/display"
)

// Clean returns a frame as the terminal may be given it: the SGR
// sequences the styles write stay; anything else a terminal would act on
// — any other escape sequence, a control character but the newline, a
// bidi override, a byte that is not UTF-8 — is escaped as display.Line
// escapes it.
//
// The views escape what came from a server, a file or a node's name before
// they style it (display.Line); Clean is the last guard, where every frame
// passes on its way to the terminal, for a view that forgot: what it
// forgot shows escaped instead of acting on the terminal. It cannot tell a
// forgotten SGR sequence that equals one of the styles' own from theirs;
// only the views' escaping keeps those out, and the hostile-text test of
// the explorer checks it does.
func Clean(frame string) string {
	styled := styleSequences()
	var b strings.Builder
	b.Grow(len(frame))
	for len(frame) > 0 {
		i := strings.IndexAny(frame, "\x1b\n")
		switch {
		case i < 0:
			appendText(&b, frame)
			return b.String()
		case i > 0:
			appendText(&b, frame[:i])
			frame = frame[i:]
		case frame[0] == '\n':
			b.WriteByte('\n')
			frame = frame[1:]
		default:
			n := sgrLength(frame)
			if n > 0 && styled.allows(frame[:n]) {
				b.WriteString(frame[:n])
				frame = frame[n:]
				continue
			}
			b.WriteString(`\x1b`) // the rest of the sequence is text
			frame = frame[1:]
		}
	}
	return b.String()
}

// appendText writes text that holds no ESC or newline, what is not
// visible escaped by display.
func appendText(b *strings.Builder, text string) {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 || !display.Visible(r) {
			display.AppendEscaped(b, []byte(text[i:i+size]), false, 0)
		} else {
			b.WriteString(text[i : i+size])
		}
		i += size
	}
}

// sgrLength is the length of the SGR sequence (ESC [ parameters m) s
// starts with, 0 for none.
func sgrLength(s string) int {
	if !strings.HasPrefix(s, "\x1b[") {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// sgrAttributes are the SGR sequences the styles write (seen) and their
// attributes, each as its parameters: "1" (bold), "38;2;135;175;255" (a
// foreground colour), "" (reset).
type sgrAttributes struct {
	seen  map[string]bool
	attrs map[string]bool
}

// attributes splits an SGR sequence into its attributes; ok is false for
// one it cannot read.
func attributes(seq string) (attrs []string, ok bool) {
	params := strings.Split(seq[2:len(seq)-1], ";")
	for i := 0; i < len(params); i++ {
		n := 1
		if p := params[i]; p == "38" || p == "48" || p == "58" { // a colour: 5;N or 2;R;G;B follow
			switch {
			case i+2 < len(params) && params[i+1] == "5":
				n = 3
			case i+4 < len(params) && params[i+1] == "2":
				n = 5
			default:
				return nil, false
			}
		}
		attrs = append(attrs, strings.Join(params[i:i+n], ";"))
		i += n - 1
	}
	return attrs, true
}

// allows reports whether every attribute of the SGR sequence seq is one
// the styles set: the same attributes in another combination (lipgloss
// pads a line with its style's background alone) pass, conceal (8), blink
// or another colour do not.
func (a sgrAttributes) allows(seq string) bool {
	if a.seen[seq] {
		return true
	}
	attrs, ok := attributes(seq)
	if !ok {
		return false
	}
	for _, at := range attrs {
		if !a.attrs[at] {
			return false
		}
	}
	return true
}

// styleSequences are the attributes the styles of every palette set,
// found by drawing with each: a new style is allowed without a word here,
// and nothing a style does not set is.
var styleSequences = sync.OnceValue(func() sgrAttributes {
	out := sgrAttributes{seen: map[string]bool{}, attrs: map[string]bool{"": true, "0": true}} // resets
	for _, st := range []Styles{New(true), New(false), Plain()} {
		v := reflect.ValueOf(st)
		for i := range v.NumField() {
			style, ok := v.Field(i).Interface().(lipgloss.Style)
			if !ok {
				continue
			}
			drawn := style.Render("x\ny")
			for j := strings.IndexByte(drawn, 0x1b); j >= 0; j = strings.IndexByte(drawn, 0x1b) {
				drawn = drawn[j:]
				n := max(sgrLength(drawn), 1)
				if attrs, ok := attributes(drawn[:n]); n > 1 && ok {
					out.seen[drawn[:n]] = true
					for _, at := range attrs {
						out.attrs[at] = true
					}
				}
				drawn = drawn[n:]
			}
		}
	}
	return out
})
