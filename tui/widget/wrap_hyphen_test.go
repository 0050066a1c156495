package widget

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

// TestWrapKeepsHyphenatedNames: a node's name is not broken at its
// hyphens; lines break at spaces, and a name longer than the line is
// broken where it must be; nothing is lost.
func TestWrapKeepsHyphenatedNames(t *testing.T) {
	s := "session 0xa1 holds /app/l1 (lock-0000000000) and waits in /app/l2 behind session 0xa2"
	lines := Wrap(s, 40)
	for _, l := range lines {
		if lipgloss.Width(l) > 40 {
			t.Errorf("line wider than 40: %q", l)
		}
		if strings.HasSuffix(l, "-") {
			t.Errorf("broken at a hyphen: %q in %q", l, lines)
		}
	}
	if strings.Join(lines, " ") != s {
		t.Errorf("wrapping lost or changed text: %q", lines)
	}
	long := "_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000003"
	lines = Wrap(long, 20)
	if strings.Join(lines, "") != long {
		t.Errorf("a name longer than the line: %q", lines)
	}
	for _, l := range lines {
		if lipgloss.Width(l) > 20 {
			t.Errorf("line wider than 20: %q", l)
		}
	}
}
