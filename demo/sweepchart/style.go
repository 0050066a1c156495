package sweepchart

import (
	"fmt"
	"strings"
)

// laneStyle is how one lane is drawn in both panels and the legend.
type laneStyle struct {
	colour string
	dashes string // stroke-dasharray; "" is a solid line
	marker func(x, y float64) string
}

// laneColours are colours that stay apart for the common kinds of colour
// blindness and read on white (after Okabe and Ito's palette, with a darker
// purple and no yellow). A lane that repeats a colour after the seventh
// gets a dashed line.
var laneColours = []string{"#0072B2", "#D55E00", "#009E73", "#AA3377", "#E69F00", "#56B4E9", "#333333"}

var laneDashes = []string{"", "7 4", "2 3", "9 3 2 3"}

// laneMarkers are marker shapes, so overlapping lines (every ZooKeeper lane
// but the herd sits near 0 notifications) stay told apart in grey print
// too.
var laneMarkers = []func(x, y float64) string{circle, square, triangle, diamond, triangleDown}

const markerRadius = 4.5

// stroke is the attributes of the lane's line.
func (s laneStyle) stroke() []string {
	attrs := []string{"stroke", s.colour, "stroke-width", "2", "stroke-linejoin", "round", "stroke-linecap", "round"}
	if s.dashes != "" {
		attrs = append(attrs, "stroke-dasharray", s.dashes)
	}
	return attrs
}

// fill is the attributes of the lane's markers: a white rim keeps markers
// that land on each other apart.
func (s laneStyle) fill() []string {
	return []string{"fill", s.colour, "stroke", "#ffffff", "stroke-width", "1"}
}

func styleFor(i int) laneStyle {
	return laneStyle{
		colour: laneColours[i%len(laneColours)],
		dashes: laneDashes[(i/len(laneColours))%len(laneDashes)],
		marker: laneMarkers[i%len(laneMarkers)],
	}
}

// The markers are path data centred on x, y, of about the same area.

func circle(x, y float64) string {
	r := markerRadius * 0.9
	return fmt.Sprintf("M%s %sa%s %s 0 1 0 %s 0a%s %s 0 1 0 %s 0z",
		num(x-r), num(y), num(r), num(r), num(2*r), num(r), num(r), num(-2*r))
}

func square(x, y float64) string {
	r := markerRadius * 0.8
	return polygon([][2]float64{{x - r, y - r}, {x + r, y - r}, {x + r, y + r}, {x - r, y + r}})
}

func triangle(x, y float64) string {
	r := markerRadius * 1.15
	return polygon([][2]float64{{x, y - r}, {x + r, y + r*0.75}, {x - r, y + r*0.75}})
}

func triangleDown(x, y float64) string {
	r := markerRadius * 1.15
	return polygon([][2]float64{{x, y + r}, {x + r, y - r*0.75}, {x - r, y - r*0.75}})
}

func diamond(x, y float64) string {
	r := markerRadius * 1.1
	return polygon([][2]float64{{x, y - r}, {x + r, y}, {x, y + r}, {x - r, y}})
}

func polygon(corners [][2]float64) string {
	var b strings.Builder
	for i, c := range corners {
		if i == 0 {
			b.WriteString("M")
		} else {
			b.WriteString("L")
		}
		b.WriteString(num(c[0]) + " " + num(c[1]))
	}
	b.WriteString("z")
	return b.String()
}
