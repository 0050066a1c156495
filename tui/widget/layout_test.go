package widget

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
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

// TestListLayoutLastColumnLeavesItsShare: a last column whose cells are
// short (":locks" WARNINGS saying "(1) DEADLOCK") leaves its share to a
// shared column that would be cut (the lock's path), not to blank space.
func TestListLayoutLastColumnLeavesItsShare(t *testing.T) {
	specs := []ListColumn{
		{Title: "PATH", Weight: 4, Min: 20, Tail: true},
		{Title: "RECIPE", Fit: true, Most: 13},
		{Title: "FORMAT", Fit: true, Most: 17},
		{Title: "HOLDER", Weight: 5, Min: 20},
		{Title: "CLIENT", Fit: true, Most: 21},
		{Title: "HEARD", Fit: true, Most: 12},
		{Title: "HELD", Fit: true, Most: 7},
		{Title: "WAITERS", Fit: true, Most: 7},
		{Title: "WARNINGS", Weight: 1, Min: 12},
	}
	widest := []int{len("/orders/locks/inventory"), 6, 7, len("#0 0x200007af97f0000"), 15, 5, 4, 7, len("(1) DEADLOCK")}
	cols := layoutColumns(specs, widest, 120)
	if cols[0].Width != widest[0] || cols[3].Width != widest[3] {
		t.Errorf("PATH %d (wants %d), HOLDER %d (wants %d)", cols[0].Width, widest[0], cols[3].Width, widest[3])
	}
	// A last column with long cells still takes what is left.
	widest[8] = 80
	cols = layoutColumns(specs, widest, 120)
	if cols[0].Width != 20 || cols[8].Width != 0 {
		t.Errorf("PATH %d, WARNINGS %d (0: the rest)", cols[0].Width, cols[8].Width)
	}
}
