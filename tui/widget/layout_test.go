package widget

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestClipMiddle(t *testing.T) {
	curator := "_c_5d0f6c1e-8f4b-4a57-9d0e-1b2c3d4e5f60-lock-0000000042"
	cases := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{curator, len(curator), curator},
		{curator, 30, "_c_5d0f6c…5f60-lock-0000000042"},
		{"日本語の長いノード名です", 11, "日…ド名です"}, // wide characters are not split
		{"abcdefghijkl", 5, "abcd…"},   // too narrow to keep both ends
	}
	for _, c := range cases {
		got := ClipMiddle(c.in, c.width)
		if ansi.StringWidth(got) > c.width {
			t.Errorf("ClipMiddle(%q, %d) = %q: %d cells", c.in, c.width, got, ansi.StringWidth(got))
		}
		if got != c.want {
			t.Errorf("ClipMiddle(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}
