package cliout

import (
	"bytes"
	"testing"
)

// TestTableAlignsColouredCells: coloured cells line up with plain ones:
// escape sequences take no room.
func TestTableAlignsColouredCells(t *testing.T) {
	var b bytes.Buffer
	tw := NewTable(&b)
	on := Styles{on: true}
	tw.Row(on.Header("NAME"), on.Header("OWNER"), on.Header("AGE"))
	tw.Row("lock-0000000001", on.Warn("NO"), "3m")
	tw.Row("x", "0x1000a", "")
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "\x1b[1mNAME\x1b[0m             \x1b[1mOWNER\x1b[0m    \x1b[1mAGE\x1b[0m\n" +
		"lock-0000000001  \x1b[33mNO\x1b[0m       3m\n" +
		"x                0x1000a\n"
	if b.String() != want {
		t.Errorf("table:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestVisibleWidth(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "\x1b[1mabc\x1b[0m": 3, "naïve": 5, "\x1b[33m→\x1b[0m x": 3} {
		if got := visibleWidth(s); got != want {
			t.Errorf("visibleWidth(%q) = %d, want %d", s, got, want)
		}
	}
}
