package display

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines\tand tab\r", `two\nlines\tand tab\r`},
		{"\x1b[2J", `\x1b[2J`},
		{"a\u202eb", `a\u202eb`},
		{"bad \xff byte", `bad \xff byte`},
		{`back\slash`, `back\slash`},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAppendEscapedCountsAndCuts(t *testing.T) {
	var b strings.Builder
	st := AppendEscaped(&b, []byte("a\r\nb\x01\xffcdefgh"), true, 8)
	if got, want := b.String(), "a\nb\\x01\\xff"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if st.CRLF != 1 || st.Controls != 1 || st.Invalid != 1 || st.Cut != 6 {
		t.Errorf("escapes %+v, want 1 CRLF, 1 control, 1 invalid, 6 cut", st)
	}
}

func TestHex(t *testing.T) {
	if got := Hex(-1); got != "0xffffffffffffffff" {
		t.Errorf("Hex(-1) = %s", got)
	}
	if got := Hex(0); got != "0x0" {
		t.Errorf("Hex(0) = %s", got)
	}
	if got := Hex(0x10000a2b3c4d); got != "0x10000a2b3c4d" {
		t.Errorf("Hex = %s", got)
	}
}
