package display

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

func TestText(t *testing.T) {
	t.Parallel()
	in := "no member answered:\n  127.0.0.1:1\x1b]0;owned\x07: refused\r\n\ttab"
	want := "no member answered:\n  127.0.0.1:1\\x1b]0;owned\\x07: refused\n\ttab"
	if got := Text(in); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	value := "rtl\u202eevil zero\u200bwidth del\x7f bom\ufeff tag\U000e0041 ok: ü 名前 \U0001F600"
	enc, err := json.Marshal(map[string]string{"name": value})
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(enc)
	for _, raw := range []string{"\u202e", "\u200b", "\x7f", "\ufeff", "\U000e0041"} {
		if strings.Contains(string(got), raw) {
			t.Errorf("%q left raw in %s", raw, got)
		}
	}
	for _, kept := range []string{"ü 名前 \U0001F600", `\u202e`, `\u200b`, `\u007f`, `\ufeff`, `\udb40\udc41`} {
		if !strings.Contains(string(got), kept) {
			t.Errorf("%q missing from %s", kept, got)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["name"] != value {
		t.Errorf("escaped JSON decodes to %q (%v), want %q", back["name"], err, value)
	}
	if plain := []byte(`{"a":"b"}`); &JSON(plain)[0] != &plain[0] {
		t.Error("clean JSON was copied")
	}
}
