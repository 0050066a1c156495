package widget

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// fit cuts or pads a styled line to exactly width cells.
func Fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := lipgloss.Width(s)
	if w > width {
		return ansi.Truncate(s, width, "…")
	}
	return s + strings.Repeat(" ", width-w)
}

// block makes lines into exactly height lines of exactly width cells.
func Block(lines []string, width, height int) string {
	out := make([]string, height)
	for i := range out {
		if i < len(lines) {
			out[i] = Fit(lines[i], width)
		} else {
			out[i] = strings.Repeat(" ", max(width, 0))
		}
	}
	return strings.Join(out, "\n")
}

// splitLines splits a rendered block into its lines.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// clip returns what fits of a plain (unstyled) string in width cells.
func Clip(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// clipMiddle returns what fits of a plain string in width cells by
// cutting its middle: the end of a znode name (a sequence number) says
// more than its middle (a GUID).
func ClipMiddle(s string, width int) string {
	w := ansi.StringWidth(s)
	if w <= width {
		return s
	}
	if width < 8 {
		return Clip(s, width)
	}
	head := (width - 1) / 3
	tail := width - 1 - head
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, w-tail, "")
}

// stripStyles removes styling, for a line about to take one style whole.
func StripStyles(s string) string { return ansi.Strip(s) }
