package widget

import (
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestCutWords(t *testing.T) {
	red := lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	for _, tt := range []struct {
		in    string
		width int
		want  string
	}{
		{"held by web-1 until 12:00", 40, "held by web-1 until 12:00"},
		{"held by web-1 until 12:00", 18, "held by web-1…"},
		{"held by web-1 until 12:00", 14, "held by web-1…"},
		{"held by web-1 until 12:00", 13, "held by…"},
		{"EXPIRED 3m ago: the record", 11, "EXPIRED 3m…"},
		{"unbroken-long-word here", 8, "unbroke…"},
		{"a  b c", 4, "a…"},
		{"x", 1, "x"},
	} {
		if got := CutWords(tt.in, tt.width); got != tt.want || lipgloss.Width(got) > tt.width {
			t.Errorf("CutWords(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
	styled := CutWords(red.Render("held by web-1 until 12:00"), 14)
	if plain := ansi.Strip(styled); plain != "held by web-1…" {
		t.Errorf("styled: %q", plain)
	}
}
