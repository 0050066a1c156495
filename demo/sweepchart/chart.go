// Package sweepchart draws a demo sweep (zkx demo --headless --sweep
// --chart): acquisitions per second and notifications per acquisition
// against the number of contenders, one line per lane, with gonum/plot.
package sweepchart

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/zkx-dev/zkx/demo"
)

// Write draws res to path, as SVG or PNG by its extension.
func Write(path, title string, res demo.SweepResult) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("--chart %s: the chart is drawn as .svg or .png", path)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	if err := Draw(f, ext[1:], title, res); err != nil {
		f.Close()
		return fmt.Errorf("--chart %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--chart %s: %w", path, err)
	}
	return nil
}

// Draw writes the chart to w in format "svg" or "png": two panels side by
// side, sharing the contender axis.
func Draw(w io.Writer, format, title string, res demo.SweepResult) error {
	if len(res.Points) == 0 {
		return fmt.Errorf("nothing to draw: the sweep measured no point")
	}
	rate, err := panel(res, "acquisitions per second", func(p demo.SweepPoint) float64 { return p.AcquisitionsPerSecond })
	if err != nil {
		return err
	}
	notif, err := panel(res, "notifications per acquisition", func(p demo.SweepPoint) float64 { return p.NotificationsPerAcquisition })
	if err != nil {
		return err
	}
	rate.Title.Text = title
	width, height := 26*vg.Centimeter, 10*vg.Centimeter
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(width, height)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(120))}
	default:
		return fmt.Errorf("unknown chart format %q", format)
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Centimeter, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2,
		PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	plots := [][]*plot.Plot{{rate, notif}}
	canvases := plot.Align(plots, tiles, dc)
	rate.Draw(canvases[0][0])
	notif.Draw(canvases[0][1])
	_, err = c.WriteTo(w)
	return err
}

// panel is one figure against contenders, a line per lane in run order.
func panel(res demo.SweepResult, label string, value func(demo.SweepPoint) float64) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "contenders"
	p.Y.Label.Text = label
	p.Y.Min = 0
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	var lanes []string
	byLane := map[string]plotter.XYs{}
	for _, pt := range res.Points {
		if _, ok := byLane[pt.Lane]; !ok {
			lanes = append(lanes, pt.Lane)
		}
		byLane[pt.Lane] = append(byLane[pt.Lane], plotter.XY{X: float64(pt.Contenders), Y: value(pt)})
	}
	var args []any
	for _, l := range lanes {
		args = append(args, l, byLane[l])
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	return p, nil
}
