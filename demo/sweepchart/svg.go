package sweepchart

import (
	"bytes"
	"encoding/xml"
	"math"
	"strconv"
	"unicode/utf8"
)

// svgDoc writes SVG elements into a buffer. Every attribute value and text
// goes through xml.EscapeText, so a title holding < & " stays well-formed.
type svgDoc struct {
	buf bytes.Buffer
}

// open writes <tag k="v" ...>; attrs are name, value pairs.
func (d *svgDoc) open(tag string, attrs ...string) {
	d.start(tag, attrs)
	d.buf.WriteString(">\n")
}

// empty writes <tag k="v" .../>.
func (d *svgDoc) empty(tag string, attrs ...string) {
	d.start(tag, attrs)
	d.buf.WriteString("/>\n")
}

func (d *svgDoc) close(tag string) {
	d.buf.WriteString("</" + tag + ">\n")
}

// text writes <tag ...>s</tag> with s escaped.
func (d *svgDoc) text(tag, s string, attrs ...string) {
	d.start(tag, attrs)
	d.buf.WriteByte('>')
	d.escape(s)
	d.buf.WriteString("</" + tag + ">\n")
}

func (d *svgDoc) start(tag string, attrs []string) {
	d.buf.WriteString("<" + tag)
	for i := 0; i+1 < len(attrs); i += 2 {
		d.buf.WriteString(" " + attrs[i] + `="`)
		d.escape(attrs[i+1])
		d.buf.WriteByte('"')
	}
}

func (d *svgDoc) escape(s string) {
	// Writing to a bytes.Buffer cannot fail.
	_ = xml.EscapeText(&d.buf, []byte(s))
}

// num is a coordinate: to a hundredth of a pixel, without trailing zeros.
func num(v float64) string {
	r := math.Round(v*100) / 100
	if r == 0 {
		r = 0 // not -0
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// textWidth estimates how wide s is at this font size. No font is embedded:
// the viewer draws with its own sans-serif, whose average glyph is about
// 0.6 em wide (DejaVu Sans, Arial, Helvetica), so the layout leaves that much.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}
