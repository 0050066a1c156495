package edit

import (
	"fmt"
	"strings"
)

// DiffLine is one line of a line diff: Op is ' ' (in both), '-' (only
// before) or '+' (only after).
type DiffLine struct {
	Op   byte
	Text string
}

// maxDiffCells bounds the table of the longest common subsequence; past
// it, the changed middle is shown as removed then added, whole.
const maxDiffCells = 4 << 20

// Lines diffs before and after line by line: the common head and tail,
// and between them a longest common subsequence.
func Lines(before, after string) []DiffLine {
	a, b := splitLines(before), splitLines(after)
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var out []DiffLine
	for _, l := range a[:head] {
		out = append(out, DiffLine{' ', l})
	}
	out = append(out, middle(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		out = append(out, DiffLine{' ', l})
	}
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func middle(a, b []string) []DiffLine {
	var out []DiffLine
	if len(a)*len(b) > maxDiffCells || len(a) == 0 || len(b) == 0 {
		for _, l := range a {
			out = append(out, DiffLine{'-', l})
		}
		for _, l := range b {
			out = append(out, DiffLine{'+', l})
		}
		return out
	}
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{' ', a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, DiffLine{'-', a[i]})
			i++
		default:
			out = append(out, DiffLine{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, DiffLine{'-', a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, DiffLine{'+', b[j]})
	}
	return out
}

// Hunks keeps the changed lines of a diff with context lines around each
// run of changes, "…" between runs; nothing when nothing changed.
func Hunks(diff []DiffLine, context int) []string {
	keep := make([]bool, len(diff))
	for i, d := range diff {
		if d.Op == ' ' {
			continue
		}
		for k := max(i-context, 0); k <= min(i+context, len(diff)-1); k++ {
			keep[k] = true
		}
	}
	var out []string
	skipped := false
	for i, d := range diff {
		if !keep[i] {
			skipped = true
			continue
		}
		if skipped && len(out) > 0 {
			out = append(out, "…")
		}
		skipped = false
		out = append(out, fmt.Sprintf("%c %s", d.Op, d.Text))
	}
	return out
}
