package sweepchart

import (
	"math"
	"slices"
	"testing"
)

func TestNiceAxis(t *testing.T) {
	t.Parallel()
	cases := []struct {
		lo, hi  float64
		minStep float64
		want    []float64
		labels  []string
	}{
		{10, 400, 1, []float64{0, 100, 200, 300, 400}, []string{"0", "100", "200", "300", "400"}},
		{5, 20, 1, []float64{5, 10, 15, 20}, nil},
		{7, 7, 1, []float64{0, 2, 4, 6, 8}, nil},
		{1, 2, 1, []float64{1, 2}, nil},
		{0, 186.61, 0, []float64{0, 50, 100, 150, 200}, nil},
		{0, 0, 0, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{0, 0.37, 0, []float64{0, 0.1, 0.2, 0.3, 0.4}, []string{"0.0", "0.1", "0.2", "0.3", "0.4"}},
		{-3, 0, 0, []float64{-3, -2.5, -2, -1.5, -1, -0.5, 0}, []string{"-3.0", "-2.5", "-2.0", "-1.5", "-1.0", "-0.5", "0.0"}},
		{0, 203.2, 0, []float64{0, 50, 100, 150, 200, 250}, nil},
		{0, 9378.4, 0, []float64{0, 2000, 4000, 6000, 8000, 10000}, nil},
	}
	for _, c := range cases {
		a := niceAxis(c.lo, c.hi, maxTicks, c.minStep)
		if !slices.Equal(a.ticks, c.want) {
			t.Errorf("niceAxis(%v, %v): %v, want %v", c.lo, c.hi, a.ticks, c.want)
		}
		if c.labels != nil {
			var got []string
			for _, v := range a.ticks {
				got = append(got, a.label(v))
			}
			if !slices.Equal(got, c.labels) {
				t.Errorf("niceAxis(%v, %v) labels %q, want %q", c.lo, c.hi, got, c.labels)
			}
		}
	}
}

// TestNiceAxisCovers: over many ranges the ticks cover the range, are few,
// evenly spaced by 1, 2 or 5 times a power of ten, and never print the same
// label twice.
func TestNiceAxisCovers(t *testing.T) {
	t.Parallel()
	for _, hi := range []float64{0.003, 0.9, 1, 3.55, 9.99, 10, 47.84, 99, 101, 186.61, 999, 3392.2, 9378.4, 12345, 1e6} {
		for _, lo := range []float64{0, hi / 3, hi * 0.9} {
			a := niceAxis(lo, hi, maxTicks, 0)
			if a.lo() > lo || a.hi() < hi {
				t.Errorf("niceAxis(%v, %v) = %v does not cover the range", lo, hi, a.ticks)
			}
			if n := len(a.ticks); n < 3 || n > maxTicks {
				t.Errorf("niceAxis(%v, %v) = %v: %d ticks", lo, hi, a.ticks, n)
			}
			mantissa := a.step / math.Pow(10, math.Floor(math.Log10(a.step)))
			if r := math.Round(mantissa*1e6) / 1e6; r != 1 && r != 2 && r != 5 {
				t.Errorf("niceAxis(%v, %v): step %v", lo, hi, a.step)
			}
			seen := map[string]bool{}
			for _, v := range a.ticks {
				if l := a.label(v); seen[l] {
					t.Errorf("niceAxis(%v, %v) = %v: label %q twice", lo, hi, a.ticks, l)
				} else {
					seen[l] = true
				}
			}
		}
	}
}
