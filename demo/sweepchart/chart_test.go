package sweepchart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/demo"
)

// embeddedSweep is the sweep docs/demo.md shows for the embedded servers.
func embeddedSweep() demo.SweepResult {
	rows := []struct {
		lane       string
		contenders int
		rate, nots float64
	}{
		{"chain", 10, 2722.4, 1}, {"herd", 10, 2230.2, 3.55}, {"spin", 10, 1810.2, 0}, {"redis", 10, 2299.6, 0},
		{"chain", 50, 2562.8, 1}, {"herd", 50, 424.4, 23.33}, {"spin", 50, 1644.2, 0}, {"redis", 50, 3392.2, 0},
		{"chain", 100, 1896.2, 1}, {"herd", 100, 264.6, 47.84}, {"spin", 100, 1229.4, 0}, {"redis", 100, 2864.4, 0},
		{"chain", 200, 1756.2, 1}, {"herd", 200, 74.2, 101.04}, {"spin", 200, 1142.4, 0}, {"redis", 200, 2281.2, 0},
		{"chain", 400, 941.2, 1}, {"herd", 400, 51.8, 186.61}, {"spin", 400, 736.8, 0}, {"redis", 400, 2842.8, 0},
	}
	var res demo.SweepResult
	for _, r := range rows {
		res.Points = append(res.Points, demo.SweepPoint{Lane: r.lane, Contenders: r.contenders,
			AcquisitionsPerSecond: r.rate, NotificationsPerAcquisition: r.nots})
	}
	return res
}

// node is any XML element, kept whole for the tests to walk.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []node     `xml:",any"`
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// find is every element below n (n included) named tag with class, if given.
func (n node) find(tag, class string) []node {
	var out []node
	if n.XMLName.Local == tag && (class == "" || n.attr("class") == class) {
		out = append(out, n)
	}
	for _, c := range n.Children {
		out = append(out, c.find(tag, class)...)
	}
	return out
}

// parse draws res and decodes the SVG strictly, failing on any XML error.
func parse(t *testing.T, title string, res demo.SweepResult) node {
	t.Helper()
	var buf bytes.Buffer
	if err := Draw(&buf, title, res); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		if _, err := dec.Token(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, buf.String())
		}
	}
	var root node
	if err := xml.Unmarshal(buf.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element %v, want svg in the SVG namespace", root.XMLName)
	}
	if strings.Contains(buf.String(), "NaN") || strings.Contains(buf.String(), "Inf") {
		t.Errorf("the SVG holds a coordinate that is not a number:\n%s", buf.String())
	}
	return root
}

func panelsOf(t *testing.T, root node) []node {
	t.Helper()
	ps := root.find("g", "panel")
	if len(ps) != 2 || ps[0].attr("data-panel") != "acquisitions per second" || ps[1].attr("data-panel") != "notifications per acquisition" {
		t.Fatalf("panels %v, want acquisitions per second and notifications per acquisition", ps)
	}
	return ps
}

// coordinates reads a polyline's points attribute.
func coordinates(t *testing.T, points string) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, pair := range strings.Fields(points) {
		xs, ys, ok := strings.Cut(pair, ",")
		x, errX := strconv.ParseFloat(xs, 64)
		y, errY := strconv.ParseFloat(ys, 64)
		if !ok || errX != nil || errY != nil {
			t.Fatalf("point %q in %q is not x,y", pair, points)
		}
		out = append(out, [2]float64{x, y})
	}
	return out
}

func TestOneLinePerLanePerPanel(t *testing.T) {
	t.Parallel()
	res := embeddedSweep()
	root := parse(t, "sweep", res)
	for i, p := range panelsOf(t, root) {
		lines := p.find("polyline", "lane")
		var names []string
		for _, l := range lines {
			names = append(names, l.attr("data-lane"))
		}
		if got := strings.Join(names, " "); got != "chain herd spin redis" {
			t.Fatalf("panel %d draws lines %q, want chain herd spin redis", i, got)
		}
		markers := p.find("g", "markers")
		if len(markers) != 4 {
			t.Fatalf("panel %d has %d marker groups, want 4", i, len(markers))
		}
		for j, l := range lines {
			pts := coordinates(t, l.attr("points"))
			if len(pts) != 5 {
				t.Errorf("panel %d lane %s: %d points, want one per contender count (5)", i, names[j], len(pts))
			}
			if n := len(markers[j].find("path", "")); markers[j].attr("data-lane") != names[j] || n != 5 {
				t.Errorf("panel %d lane %s: %d markers in the group of %s, want 5", i, names[j], n, markers[j].attr("data-lane"))
			}
			// Contenders grow to the right, and a higher figure is drawn
			// higher (a smaller y), point for point against the data.
			var values []float64
			for _, pt := range res.Points {
				if pt.Lane == names[j] {
					values = append(values, panels[i].value(pt))
				}
			}
			for k := 1; k < len(pts) && k < len(values); k++ {
				if pts[k][0] <= pts[k-1][0] {
					t.Errorf("panel %d lane %s: x goes %v then %v", i, names[j], pts[k-1][0], pts[k][0])
				}
				if up, higher := pts[k][1] < pts[k-1][1], values[k] > values[k-1]; values[k] != values[k-1] && up != higher {
					t.Errorf("panel %d lane %s: %v then %v drawn at y %v then %v", i, names[j], values[k-1], values[k], pts[k-1][1], pts[k][1])
				}
			}
		}
	}
	legend := root.find("g", "legend")
	if len(legend) != 1 {
		t.Fatalf("%d legends, want 1", len(legend))
	}
	var entries []string
	for _, e := range legend[0].find("text", "") {
		entries = append(entries, e.Text)
	}
	if got := strings.Join(entries, " "); got != "chain herd spin redis" {
		t.Errorf("legend %q, want chain herd spin redis", got)
	}
}

// tickValues reads a panel's tick labels of one axis.
func tickValues(t *testing.T, panel node, class string) []float64 {
	t.Helper()
	groups := panel.find("g", class)
	if len(groups) != 1 {
		t.Fatalf("%d %s groups", len(groups), class)
	}
	var out []float64
	for _, l := range groups[0].find("text", "") {
		v, err := strconv.ParseFloat(l.Text, 64)
		if err != nil {
			t.Fatalf("%s label %q is not a number", class, l.Text)
		}
		out = append(out, v)
	}
	if len(out) < 2 {
		t.Fatalf("%s: %v, want at least two ticks", class, out)
	}
	return out
}

func TestTicksCoverTheData(t *testing.T) {
	t.Parallel()
	single := demo.SweepResult{Points: []demo.SweepPoint{{Lane: "chain", Contenders: 7, AcquisitionsPerSecond: 0.37, NotificationsPerAcquisition: 0}}}
	for name, res := range map[string]demo.SweepResult{"embedded": embeddedSweep(), "one point, all zero": single} {
		t.Run(name, func(t *testing.T) {
			root := parse(t, "sweep", res)
			for i, p := range panelsOf(t, root) {
				xs, ys := tickValues(t, p, "x-ticks"), tickValues(t, p, "y-ticks")
				for _, pt := range res.Points {
					if c := float64(pt.Contenders); c < xs[0] || c > xs[len(xs)-1] {
						t.Errorf("panel %d: %d contenders outside the x ticks %v", i, pt.Contenders, xs)
					}
					if v := panels[i].value(pt); v < ys[0] || v > ys[len(ys)-1] {
						t.Errorf("panel %d: %v outside the y ticks %v", i, v, ys)
					}
				}
				if ys[0] != 0 {
					t.Errorf("panel %d: the value axis starts at %v, want 0", i, ys[0])
				}
				for _, ticks := range [][]float64{xs, ys} {
					for k := 2; k < len(ticks); k++ {
						if step, prev := ticks[k]-ticks[k-1], ticks[1]-ticks[0]; step <= 0 || math.Abs(step-prev) > prev*1e-9 {
							t.Errorf("panel %d: ticks %v are not evenly spaced upwards", i, ticks)
							break
						}
					}
				}
			}
		})
	}
}

func TestTitleAndLabelsAreEscaped(t *testing.T) {
	t.Parallel()
	title := `sweep on <zk1:2181> & "zk2" 'x' ` + "\x1b[2J"
	res := embeddedSweep()
	res.Points[0].Lane = `chain<&">`
	root := parse(t, title, res)
	want := strings.ReplaceAll(title, "\x1b", "\uFFFD") // not an XML character
	if got := root.find("title", ""); len(got) != 1 || got[0].Text != want {
		t.Errorf("<title> %v, want %q", got, want)
	}
	if texts := root.find("text", ""); len(texts) == 0 || texts[0].Text != want {
		t.Errorf("the first text is not the title %q", want)
	}
	found := false
	for _, l := range root.find("polyline", "lane") {
		found = found || l.attr("data-lane") == `chain<&">`
	}
	if !found {
		t.Error(`no line for the lane chain<&">`)
	}
}

func TestStoppedSweepSaysSo(t *testing.T) {
	t.Parallel()
	res := embeddedSweep()
	res.Stopped = "stopped before 800 contenders: maxClientCnxns is 1000"
	root := parse(t, "sweep", res)
	texts := root.find("text", "")
	if len(texts) < 2 || texts[1].Text != res.Stopped {
		t.Errorf("the chart does not say %q under its title", res.Stopped)
	}
}

func TestRefusesWhatItCannotDraw(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nan := embeddedSweep()
	nan.Points[3].AcquisitionsPerSecond = math.NaN()
	cases := []struct {
		name, file string
		res        demo.SweepResult
		want       string
	}{
		{"empty sweep", "empty.svg", demo.SweepResult{}, "nothing to draw"},
		{"not a number", "nan.svg", nan, "lane redis at 10 contenders: acquisitions per second is NaN"},
		{"png", "chart.png", embeddedSweep(), "only .svg charts are drawn"},
		{"no extension", "chart", embeddedSweep(), "only .svg charts are drawn"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			err := Write(path, "sweep", c.res)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Write %s: %v, want an error saying %q", c.file, err, c.want)
			}
			if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
				t.Errorf("a refused chart left %s behind (%v)", path, statErr)
			}
		})
	}
	if err := CheckPath("Sweep.SVG"); err != nil {
		t.Errorf("CheckPath(Sweep.SVG): %v", err)
	}
}

func TestWritesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sweep.svg")
	if err := Write(path, "sweep", embeddedSweep()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("<?xml")) || !bytes.Contains(b, []byte("<svg ")) {
		t.Errorf("%s is not an SVG document: %.80q", path, b)
	}
}
