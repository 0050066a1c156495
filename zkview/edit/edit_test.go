package edit

import (
	"errors"
	"strings"
	"testing"
)

func TestFormatOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		data   string
		want   Format
		binary bool
	}{
		{`{"a":1}`, JSON, false},
		{" [1,2]\n", JSON, false},
		{"42", Text, false}, // a bare JSON value stays text: counters are edited freely
		{"{not json", Text, false},
		{"", Text, false},
		{"line one\nline\ttwo\r\n", Text, false},
		{"\x00\x01", Text, true},
		{"\xff\xfe", Text, true},
	}
	for _, c := range cases {
		got, err := FormatOf([]byte(c.data))
		if c.binary != errors.Is(err, ErrBinary) || !c.binary && got != c.want {
			t.Errorf("%q: %v, %v", c.data, got, err)
		}
	}
}

func TestCheckNamesLineAndColumn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		data      string
		line, col int
	}{
		{"{\n  \"a\": 1,\n}", 3, 1},
		{"{\"a\": tru}", 1, 10},
		{"{\n  \"ü\": ü\n}", 2, 8},
		{"{\"a\":1}\nextra", 2, 1},
		{"{\"a\":", 1, 5},
	}
	for _, c := range cases {
		err := Check(JSON, []byte(c.data))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != c.line || se.Column != c.col {
			t.Errorf("%q: %v, want line %d column %d", c.data, err, c.line, c.col)
		}
	}
	if err := Check(JSON, []byte(`{"ok":true}`)); err != nil {
		t.Error(err)
	}
	if err := Check(Text, []byte(`{"not": json`)); err != nil {
		t.Errorf("text is not checked: %v", err)
	}
}

func TestLinesAndHunks(t *testing.T) {
	t.Parallel()
	before := "a\nb\nc\nd\ne\nf\ng\nh\n"
	after := "a\nb\nC\nd\ne\nf\ng\nh\ni\n"
	got := strings.Join(Hunks(Lines(before, after), 1), "|")
	want := "  b|- c|+ C|  d|…|  h|+ i"
	if got != want {
		t.Errorf("hunks %q, want %q", got, want)
	}
	if h := Hunks(Lines(before, before), 2); len(h) != 0 {
		t.Errorf("no change: %v", h)
	}
}

func TestEditorFromEnvironment(t *testing.T) {
	t.Setenv("ZKX_EDITOR", "")
	t.Setenv("EDITOR", "")
	if Editor() != "vi" {
		t.Errorf("default %q", Editor())
	}
	t.Setenv("EDITOR", "nano -w")
	if Editor() != "nano -w" {
		t.Errorf("$EDITOR: %q", Editor())
	}
	t.Setenv("ZKX_EDITOR", "code --wait")
	cmd := Command("/tmp/f b.json")
	if Editor() != "code --wait" || strings.Join(cmd.Args, " ") != `sh -c code --wait "$1" zkx-editor /tmp/f b.json` {
		t.Errorf("$ZKX_EDITOR first, file as an argument: %q", cmd.Args)
	}
}
