package widget

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Fit cuts or pads a styled line to exactly width cells.
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

// Block makes lines into exactly height lines of exactly width cells.
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

// Wrap breaks a styled line into lines of at most width cells, at spaces
// where it can (a word longer than the line, a node's path, is broken
// where it must, after a hyphen if it has one): nothing is cut off. A word
// that fits on a line is not broken at its hyphens: in "lock-0000000003"
// or a session's uuid a hyphen is inside a name.
func Wrap(s string, width int) []string {
	if width <= 0 {
		return nil
	}
	if lipgloss.Width(s) <= width {
		return []string{s}
	}
	if strings.ContainsRune(s, keptHyphen) {
		return strings.Split(ansi.Wrap(s, width, ""), "\n") // the stand-in would not come back whole
	}
	// ansi.Wrap always breaks after a hyphen: in the words that fit a
	// line a non-breaking one stands in for it while the line is wrapped,
	// one cell wide as it is.
	words := strings.Split(s, " ")
	for i, w := range words {
		if strings.Contains(w, "-") && ansi.StringWidth(w) <= width {
			words[i] = strings.ReplaceAll(w, "-", string(keptHyphen))
		}
	}
	wrapped := ansi.Wrap(strings.Join(words, " "), width, "")
	return strings.Split(strings.ReplaceAll(wrapped, string(keptHyphen), "-"), "\n")
}

// keptHyphen is U+2011 NON-BREAKING HYPHEN.
const keptHyphen = '\u2011'

// WrapAll wraps every line of lines (see Wrap).
func WrapAll(lines []string, width int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, Wrap(l, width)...)
	}
	return out
}

// FitWords fits a styled line in width cells as Fit does, but when it is
// too long it ends at a space (not inside a word) and with more, which
// says where the rest is ("… ! shows all").
func FitWords(s string, width int, more string) string {
	if lipgloss.Width(s) <= width {
		return Fit(s, width)
	}
	room := width - lipgloss.Width(more)
	if room < 8 {
		return Fit(s, width)
	}
	cut := ansi.Truncate(s, room, "")
	plain := ansi.Strip(cut)
	if i := strings.LastIndexByte(plain, ' '); i > room/2 {
		cut = ansi.Truncate(s, ansi.StringWidth(plain[:i]), "")
	}
	return Fit(cut+more, width)
}

// SplitLines splits a rendered block into its lines.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Clip returns what fits of a plain (unstyled) string in width cells.
func Clip(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// ClipMiddle returns what fits of a plain string in width cells by
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

// StripStyles removes styling, for a line about to take one style whole.
func StripStyles(s string) string { return ansi.Strip(s) }
