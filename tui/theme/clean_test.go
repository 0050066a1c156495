package theme

import (
	"reflect"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

// TestCleanKeepsTheStyles: whatever the styles draw — each alone, one
// inside another, a bordered box of several lines, text in any script —
// passes Clean unchanged.
func TestCleanKeepsTheStyles(t *testing.T) {
	for name, st := range map[string]Styles{"dark": New(true), "light": New(false), "plain": Plain()} {
		v := reflect.ValueOf(st)
		for i := range v.NumField() {
			style := v.Field(i).Interface().(lipgloss.Style)
			for _, text := range []string{"x", "ünïcödé 名前 ⚠ ✓ … │", "two\nlines", ""} {
				drawn := style.Render(text)
				if got := Clean(drawn); got != drawn {
					t.Errorf("%s %s: Clean(%q) = %q", name, v.Type().Field(i).Name, drawn, got)
				}
			}
		}
		frame := st.Dialog.Width(30).Render(st.Title.Render("Title") + "\n" + st.Dim.Render("a "+st.Error.Render("b")+" c") + "\n" + st.Selected.Render("row"))
		if got := Clean(frame); got != frame {
			t.Errorf("%s: a dialog changed:\n%q\n%q", name, frame, got)
		}
	}
}

// TestCleanEscapesWhatAStyleDoesNotWrite: escape sequences no style
// writes (hidden text, a hyperlink, a clipboard write, a title), control
// characters, C1 controls, bidi overrides and bytes that are not UTF-8
// come out escaped; newlines stay.
func TestCleanEscapesWhatAStyleDoesNotWrite(t *testing.T) {
	dim := New(true).Dim.Render("dim")
	for _, c := range []struct{ in, want string }{
		{"\x1b[8mhidden\x1b[0m", `\x1b[8mhidden` + "\x1b[0m"}, // a reset is harmless
		{"\x1b[1;8m", `\x1b[1;8m`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07", `\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07`},
		{"\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\x07`},
		{"\x1b]0;pwned\x1b\\", `\x1b]0;pwned\x1b\`},
		{"\u009b31m", `\u009b31m`},
		{"a\u202eb\u2066c\u2069\u200bd", `a\u202eb\u2066c\u2069\u200bd`},
		{"nul\x00 bel\x07 bs\x08 cr\r tab\t del\x7f", `nul\x00 bel\x07 bs\x08 cr\r tab\t del\x7f`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{"line\nline", "line\nline"},
		{dim + "\x1b[8m" + dim, dim + `\x1b[8m` + dim},
		{"\x1b", `\x1b`},
		{"\x1b[", `\x1b[`},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Clean(c.want); got != c.want {
			t.Errorf("Clean is not idempotent on %q: %q", c.want, got)
		}
	}
}

// BenchmarkClean cleans a 120×40 styled frame, as the explorer does for
// every frame it draws.
func BenchmarkClean(b *testing.B) {
	st := New(true)
	var lines []string
	for i := range 40 {
		lines = append(lines, st.Dim.Render("│ ")+st.Holder.Render("holder")+" /app/locks/_c_2b1f1b9e-6a42-4d3e-9a3e-2a7f36a1c001-lock-"+strings.Repeat("0", i%10)+
			st.Dim.Render(" · ")+"ünïcödé 名前 ⚠ "+strings.Repeat(" ", 40))
	}
	frame := strings.Join(lines, "\n")
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		Clean(frame)
	}
}
