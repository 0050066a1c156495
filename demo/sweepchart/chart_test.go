package sweepchart

import (
	"bytes"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/demo"
)

func TestDrawsEveryLane(t *testing.T) {
	res := demo.SweepResult{}
	for _, n := range []int{10, 50} {
		for _, lane := range []string{"chain", "herd", "redis"} {
			res.Points = append(res.Points, demo.SweepPoint{Lane: lane, Contenders: n, AcquisitionsPerSecond: float64(n), NotificationsPerAcquisition: 1})
		}
	}
	var svg bytes.Buffer
	if err := Draw(&svg, "svg", "sweep", res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "chain", "herd", "redis", "contenders", "acquisitions per second", "notifications per acquisition"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("the SVG does not contain %q", want)
		}
	}
	var png bytes.Buffer
	if err := Draw(&png, "png", "sweep", res); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Error("the PNG is not a PNG")
	}
	if err := Draw(&svg, "svg", "empty", demo.SweepResult{}); err == nil {
		t.Error("an empty sweep was drawn")
	}
	if err := Write(t.TempDir()+"/chart.gif", "x", res); err == nil || !strings.Contains(err.Error(), ".svg or .png") {
		t.Errorf("a .gif chart: %v, want an error naming .svg and .png", err)
	}
}
