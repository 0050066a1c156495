package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
)

// Small writers of values for display that several pages use; the ones
// every part of zkx shares are in internal/display.

// byteSize writes a size as people read it.
func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// ago writes how long before now t was, to the unit that matters.
func ago(now, t time.Time) string {
	if t.IsZero() || t.Unix() <= 0 {
		return "never"
	}
	return humanDuration(now.Sub(t)) + " ago"
}

// humanDuration is display.Duration with milliseconds below a second, for
// how long an operation took.
func humanDuration(d time.Duration) string {
	if d >= 0 && d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return display.Duration(d)
}

// firstLine is the first line of a message, for one-line places, with
// nothing a terminal would act on: errors and the servers' answers quote
// names and text from the server (display.Line).
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return display.Line(strings.TrimRight(s[:i], ":")) + " …"
	}
	return display.Line(s)
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shortSession is the last four hex digits of a session id: enough to
// tell the sessions on screen apart.
func shortSession(id int64) string {
	s := fmt.Sprintf("%x", uint64(id))
	if len(s) > 4 {
		s = s[len(s)-4:]
	}
	return s
}

func shortErr(err error) string {
	switch {
	case zkview.IsNoAuth(err):
		return "no access"
	case zkview.IsNoNode(err):
		return "gone"
	case zkview.IsConnectionLoss(err):
		return "reconnecting"
	}
	return "error"
}
