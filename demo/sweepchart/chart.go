// Package sweepchart draws a demo sweep (zkx demo --headless --sweep
// --chart) as an SVG: acquisitions per second and notifications per
// acquisition against the number of contenders, in two panels side by
// side, one line per lane. The text is SVG text drawn in the viewer's own
// sans-serif, so no font travels in the file or in zkx.
package sweepchart

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zkx-dev/zkx/demo"
)

// CheckPath refuses a chart file the package cannot draw, before a sweep
// spends minutes measuring.
func CheckPath(path string) error {
	if strings.ToLower(filepath.Ext(path)) != ".svg" {
		return fmt.Errorf("--chart %s: only .svg charts are drawn; name the file FILE.svg "+
			"(a browser or rsvg-convert turns it into a PNG)", path)
	}
	return nil
}

// Write draws res to path, an .svg file. Nothing is written when the chart
// cannot be drawn.
func Write(path, title string, res demo.SweepResult) error {
	if err := CheckPath(path); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Draw(&buf, title, res); err != nil {
		return fmt.Errorf("--chart %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	return nil
}

// panel is one figure drawn against contenders.
type panel struct {
	label string
	value func(demo.SweepPoint) float64
}

var panels = []panel{
	{"acquisitions per second", func(p demo.SweepPoint) float64 { return p.AcquisitionsPerSecond }},
	{"notifications per acquisition", func(p demo.SweepPoint) float64 { return p.NotificationsPerAcquisition }},
}

// lane is one lane's points in contender order, and how it is drawn.
type lane struct {
	name   string
	points []demo.SweepPoint
	style  laneStyle
}

// The canvas, in SVG user units (pixels at 100 %).
const (
	width      = 960.0
	height     = 440.0
	edge       = 16.0 // margin around everything
	titleSize  = 17.0
	noteSize   = 12.0
	legendSize = 13.0
	labelSize  = 13.0 // axis labels
	tickSize   = 12.0 // tick labels
	tickLength = 5.0
	inset      = 10.0 // between the axes and the outermost ticks, so markers clear the axes
	maxTicks   = 7    // per axis
	textColour = "#1a1a1a"
	axisColour = "#4d4d4d"
	gridColour = "#e3e3e3"
)

// Draw writes the chart of res to w as an SVG document.
func Draw(w io.Writer, title string, res demo.SweepResult) error {
	lanes, err := lanesOf(res)
	if err != nil {
		return err
	}
	var d svgDoc
	d.buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	d.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", num(width), "height", num(height),
		"viewBox", "0 0 "+num(width)+" "+num(height), "font-family", "DejaVu Sans, Helvetica, Arial, sans-serif")
	d.text("title", title)
	d.empty("rect", "width", num(width), "height", num(height), "fill", "#ffffff")
	y := drawTitle(&d, title, res.Stopped)
	y = drawLegend(&d, lanes, y)
	for i, p := range panels {
		x0 := float64(i) * width / float64(len(panels))
		drawPanel(&d, p, lanes, x0, y, x0+width/float64(len(panels)))
	}
	d.close("svg")
	_, err = w.Write(d.buf.Bytes())
	return err
}

// lanesOf groups the points by lane, lanes in the order they ran, and
// refuses what cannot be drawn.
func lanesOf(res demo.SweepResult) ([]lane, error) {
	if len(res.Points) == 0 {
		return nil, fmt.Errorf("nothing to draw: the sweep measured no point")
	}
	var lanes []lane
	index := map[string]int{}
	for _, pt := range res.Points {
		for _, p := range panels {
			if v := p.value(pt); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("lane %s at %d contenders: %s is %v, which cannot be drawn", pt.Lane, pt.Contenders, p.label, v)
			}
		}
		i, ok := index[pt.Lane]
		if !ok {
			i = len(lanes)
			index[pt.Lane] = i
			lanes = append(lanes, lane{name: pt.Lane, style: styleFor(i)})
		}
		lanes[i].points = append(lanes[i].points, pt)
	}
	for _, l := range lanes {
		// A sweep given as 50,10,100 still draws a line from left to right.
		slices.SortStableFunc(l.points, func(a, b demo.SweepPoint) int { return a.Contenders - b.Contenders })
	}
	return lanes, nil
}

// drawTitle writes the title, and why the sweep stopped if it stopped
// early, and returns where the next row starts.
func drawTitle(d *svgDoc, title, stopped string) float64 {
	y := edge + titleSize
	d.text("text", title, append([]string{"x", num(edge), "y", num(y), "fill", textColour}, fitted(title, titleSize)...)...)
	if stopped != "" {
		y += noteSize + 8
		d.text("text", stopped, append([]string{"x", num(edge), "y", num(y), "fill", axisColour}, fitted(stopped, noteSize)...)...)
	}
	return y + 12
}

// fitted is the font size of a line of text across the canvas: smaller for
// a line too long at size (a title naming a long --server list), down to
// 9; past that, textLength asks the viewers that support it to squeeze it.
func fitted(s string, size float64) []string {
	avail := width - 2*edge
	if textWidth(s, size) <= avail {
		return []string{"font-size", num(size)}
	}
	size = math.Max(9, math.Floor(size*avail/textWidth(s, size)*10)/10)
	if textWidth(s, size) <= avail {
		return []string{"font-size", num(size)}
	}
	return []string{"font-size", num(size), "textLength", num(avail), "lengthAdjust", "spacingAndGlyphs"}
}

// drawLegend writes one entry per lane, centred in rows across the canvas,
// and returns where the panels start.
func drawLegend(d *svgDoc, lanes []lane, y float64) float64 {
	const sample, gap, spacing, rowHeight = 34.0, 6.0, 26.0, 22.0
	entryWidth := func(l lane) float64 { return sample + gap + textWidth(l.name, legendSize) }
	var rows [][]lane
	rowWidth := 0.0
	for _, l := range lanes {
		w := entryWidth(l)
		if len(rows) == 0 || rowWidth+spacing+w > width-2*edge {
			rows = append(rows, nil)
			rowWidth = -spacing
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], l)
		rowWidth += spacing + w
	}
	d.open("g", "class", "legend", "font-size", num(legendSize), "fill", textColour)
	for _, row := range rows {
		y += rowHeight / 2
		total := -spacing
		for _, l := range row {
			total += spacing + entryWidth(l)
		}
		x := (width - total) / 2
		for _, l := range row {
			d.open("g", "data-lane", l.name)
			d.empty("line", append([]string{"x1", num(x), "y1", num(y), "x2", num(x + sample), "y2", num(y)}, l.style.stroke()...)...)
			d.empty("path", append([]string{"d", l.style.marker(x+sample/2, y)}, l.style.fill()...)...)
			d.text("text", l.name, "x", num(x+sample+gap), "y", num(y+legendSize*0.35))
			d.close("g")
			x += entryWidth(l) + spacing
		}
		y += rowHeight / 2
	}
	d.close("g")
	return y + 10
}

// drawPanel writes one panel in the band x0..x1 from y0 down to the bottom.
func drawPanel(d *svgDoc, p panel, lanes []lane, x0, y0, x1 float64) {
	xLo, xHi := math.Inf(1), math.Inf(-1)
	yLo, yHi := 0.0, 0.0 // the value axis starts at zero, as the lanes are compared by height
	for _, l := range lanes {
		for _, pt := range l.points {
			xLo, xHi = math.Min(xLo, float64(pt.Contenders)), math.Max(xHi, float64(pt.Contenders))
			yLo, yHi = math.Min(yLo, p.value(pt)), math.Max(yHi, p.value(pt))
		}
	}
	xa := niceAxis(xLo, xHi, maxTicks, 1)
	ya := niceAxis(yLo, yHi, maxTicks, 0)

	yLabels := 0.0
	for _, t := range ya.ticks {
		yLabels = math.Max(yLabels, textWidth(ya.label(t), tickSize))
	}
	left := x0 + edge + labelSize + 10 + yLabels + 5 + tickLength
	right := x1 - edge - 8
	top := y0
	bottom := height - edge - labelSize - 10 - tickSize - 5 - tickLength
	px := func(v float64) float64 {
		return left + inset + (v-xa.lo())/(xa.hi()-xa.lo())*(right-left-2*inset)
	}
	py := func(v float64) float64 {
		return bottom - inset - (v-ya.lo())/(ya.hi()-ya.lo())*(bottom-top-2*inset)
	}

	d.open("g", "class", "panel", "data-panel", p.label)
	d.open("g", "class", "grid", "stroke", gridColour, "stroke-width", "1")
	for _, t := range xa.ticks {
		d.empty("line", "x1", num(px(t)), "y1", num(top), "x2", num(px(t)), "y2", num(bottom))
	}
	for _, t := range ya.ticks {
		d.empty("line", "x1", num(left), "y1", num(py(t)), "x2", num(right), "y2", num(py(t)))
	}
	d.close("g")

	d.open("g", "class", "axes", "stroke", axisColour, "stroke-width", "1", "stroke-linecap", "square")
	d.empty("line", "x1", num(left), "y1", num(bottom), "x2", num(right), "y2", num(bottom))
	d.empty("line", "x1", num(left), "y1", num(top), "x2", num(left), "y2", num(bottom))
	for _, t := range xa.ticks {
		d.empty("line", "x1", num(px(t)), "y1", num(bottom), "x2", num(px(t)), "y2", num(bottom+tickLength))
	}
	for _, t := range ya.ticks {
		d.empty("line", "x1", num(left-tickLength), "y1", num(py(t)), "x2", num(left), "y2", num(py(t)))
	}
	d.close("g")

	d.open("g", "class", "x-ticks", "font-size", num(tickSize), "fill", axisColour, "text-anchor", "middle")
	for _, t := range xa.ticks {
		d.text("text", xa.label(t), "x", num(px(t)), "y", num(bottom+tickLength+4+tickSize*0.8))
	}
	d.close("g")
	d.open("g", "class", "y-ticks", "font-size", num(tickSize), "fill", axisColour, "text-anchor", "end")
	for _, t := range ya.ticks {
		d.text("text", ya.label(t), "x", num(left-tickLength-4), "y", num(py(t)+tickSize*0.35))
	}
	d.close("g")

	d.text("text", "contenders", "class", "x-label", "x", num((left+right)/2), "y", num(height-edge),
		"font-size", num(labelSize), "fill", textColour, "text-anchor", "middle")
	// Rotated a quarter turn back, the label reads upwards with its glyphs
	// standing left of x.
	lx, ly := x0+edge+labelSize*0.8, (top+bottom)/2
	d.text("text", p.label, "class", "y-label", "x", num(lx), "y", num(ly), "transform", "rotate(-90 "+num(lx)+" "+num(ly)+")",
		"font-size", num(labelSize), "fill", textColour, "text-anchor", "middle")

	// Every line before any marker, so no lane's line crosses another's markers.
	for _, l := range lanes {
		points := make([]string, len(l.points))
		for i, pt := range l.points {
			points[i] = num(px(float64(pt.Contenders))) + "," + num(py(p.value(pt)))
		}
		d.empty("polyline", append([]string{"class", "lane", "data-lane", l.name, "points", strings.Join(points, " "), "fill", "none"},
			l.style.stroke()...)...)
	}
	for _, l := range lanes {
		d.open("g", append([]string{"class", "markers", "data-lane", l.name}, l.style.fill()...)...)
		for _, pt := range l.points {
			d.empty("path", "d", l.style.marker(px(float64(pt.Contenders)), py(p.value(pt))))
		}
		d.close("g")
	}
	d.close("g")
}
