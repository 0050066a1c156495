package cliout

import "testing"

func TestCleanEscapesWhatATerminalWouldActOn(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		"esc\x1b[2Jclear":   `esc\x1b[2Jclear`,
		"two\nlines\ttab":   `two\nlines\ttab`,
		"rtl\u202eoverride": `rtl\u202eoverride`,
		"bad\xffbyte":       `bad\xffbyte`,
		"c1\u0085next":      `c1\u0085next`,
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}
