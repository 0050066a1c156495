package sweepchart

import (
	"math"
	"strconv"
)

// axis is a linear scale: the ticks run from its low end to its high end,
// each a 1, 2 or 5 times a power of ten apart, so the labels read plainly.
type axis struct {
	ticks []float64
	step  float64
}

func (a axis) lo() float64 { return a.ticks[0] }
func (a axis) hi() float64 { return a.ticks[len(a.ticks)-1] }

// niceAxis returns at most maxTicks ticks covering lo..hi, as close
// together as that allows and at least minStep apart (1 for contender
// counts: no tick between two integers). A range of one value is widened to
// zero, or to 1 when the value is zero.
func niceAxis(lo, hi float64, maxTicks int, minStep float64) axis {
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		switch {
		case lo > 0:
			lo = 0
		case lo < 0:
			hi = 0
		default:
			hi = 1
		}
	}
	step := niceAtLeast(math.Max((hi-lo)/float64(maxTicks-1), minStep))
	for {
		// The small slack keeps a bound that already sits on a tick (400 /
		// 100 computed as 3.9999999) from gaining one more tick beyond it.
		first := math.Floor(lo/step+1e-9) * step
		last := math.Ceil(hi/step-1e-9) * step
		n := int(math.Round((last-first)/step)) + 1
		if n > maxTicks {
			// Rounding the ends outwards cost a tick too many.
			step = niceAtLeast(step * 1.5)
			continue
		}
		ticks := make([]float64, n)
		for i := range ticks {
			// Multiplying, not adding, keeps 0.1+0.1+0.1 off the labels.
			ticks[i] = roundTo(first+float64(i)*step, step)
		}
		return axis{ticks: ticks, step: step}
	}
}

// niceAtLeast is the smallest 1, 2 or 5 times a power of ten that is at
// least x.
func niceAtLeast(x float64) float64 {
	pow := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5} {
		if x <= m*pow*(1+1e-9) {
			return m * pow
		}
	}
	return 10 * pow
}

// decimals is how many decimals a label needs at this step: 0 for 100 or
// 5, 1 for 0.5, 2 for 0.05.
func decimals(step float64) int {
	return max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
}

func roundTo(v, step float64) float64 {
	p := math.Pow(10, float64(decimals(step)))
	r := math.Round(v*p) / p
	if r == 0 {
		return 0 // not -0, which would be labelled "-0"
	}
	return r
}

// label is a tick's text.
func (a axis) label(v float64) string {
	return strconv.FormatFloat(v, 'f', decimals(a.step), 64)
}
