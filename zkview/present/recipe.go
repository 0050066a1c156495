package present

import (
	"fmt"
	"strings"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// Severity is how loud a front end makes words: calm, a warning, or an
// alarm (red).
type Severity int

// The severities.
const (
	Calm Severity = iota
	Warn
	Bad
)

// Head says what a recipe is in one line: "mutex · curator · 1 holding ·
// 2 waiting", "election · curator · 2 in line behind the leader · leader
// 0x…", "queue · kazoo · 5 items · taken from the top, in this order".
func Head(r recognize.Recipe) string {
	switch r := r.(type) {
	case *recognize.Lock:
		head := fmt.Sprintf("%s · %s · %d holding · %d waiting", r.Recipe, formats(r.Format, r.Formats), len(r.Holders), len(r.Waiters))
		if n := mayHolders(r); n > 0 {
			head += fmt.Sprintf(" (%d may hold)", n)
		}
		if r.MaxLeases > 0 {
			head += fmt.Sprintf(" · at most %d leases", r.MaxLeases)
		}
		return head
	case *recognize.Election:
		head := fmt.Sprintf("election · %s · %d in line behind the leader", r.Format, len(r.Candidates))
		if r.Leader != nil {
			head += " · leader " + r.Leader.Session
		}
		return head
	case *recognize.Queue:
		head := fmt.Sprintf("queue · %s · %d items", r.Format, r.Length)
		if len(r.Items) < r.Length {
			head += fmt.Sprintf(" (first %d shown)", len(r.Items))
		}
		return head + " · taken from the top, in this order"
	case *recognize.Barrier:
		head := fmt.Sprintf("%s · %s · %d participants", r.Kind, r.Format, len(r.Participants))
		if r.Ready {
			head += " · ready"
		}
		return head
	case *recognize.Group:
		return fmt.Sprintf("members · %s · %d live · one ephemeral node per live member: it goes when the member's session does", r.Format, len(r.Members))
	}
	return ""
}

func formats(format string, all []string) string {
	if len(all) == 0 {
		return format
	}
	return format + " (" + strings.Join(all, ", ") + ")"
}

func mayHolders(l *recognize.Lock) int {
	n := 0
	for _, w := range l.Waiters {
		if w.MayHold {
			n++
		}
	}
	return n
}

// LockState is the word a lock's first warning is labelled with, and how
// loud: DEADLOCK and BROKEN (red), MAYBE BROKEN (a warning), "" for a lock
// whose first warning is no such thing.
func LockState(l *recognize.Lock) (string, Severity) {
	switch {
	case l.Deadlocked:
		return "DEADLOCK", Bad
	case l.Broken:
		return "BROKEN", Bad
	case l.MaybeBroken:
		return "MAYBE BROKEN", Warn
	}
	return "", Calm
}

// FirstWarning is a lock's first warning when LockState labels it (""
// otherwise), escaped.
func FirstWarning(l *recognize.Lock) string {
	if word, _ := LockState(l); word == "" || len(l.Warnings) == 0 {
		return ""
	}
	return display.Line(l.Warnings[0])
}

// alarmWords name the kinds of alarm in a few cells, for narrow columns.
var alarmWords = map[string]string{
	recognize.AlarmDeadlock:        "DEADLOCK",
	recognize.AlarmTwoHolders:      "2 HOLDERS",
	recognize.AlarmMaybeTwoHolders: "2 HOLDERS?",
	recognize.AlarmGoneHolder:      "GONE",
	recognize.AlarmSilent:          "SILENT",
	recognize.AlarmHeldTooLong:     "LONG",
}

// AlarmWord names an alarm's kind in a few cells: "DEADLOCK", "2
// HOLDERS", "SILENT"…
func AlarmWord(kind string) string {
	if w, ok := alarmWords[kind]; ok {
		return w
	}
	return strings.ToUpper(kind)
}

// AlarmSeverity is how loud an alarm of the kind is: a deadlock, two
// holders, a holder gone or silent are red; the others warnings.
func AlarmSeverity(kind string) Severity {
	switch kind {
	case recognize.AlarmDeadlock, recognize.AlarmTwoHolders, recognize.AlarmSilent, recognize.AlarmGoneHolder:
		return Bad
	}
	return Warn
}

// Alarms names a lock's alarms in one cell, loudest severity first: "(5)
// DEADLOCK, SILENT" (how many warnings in all, then the alarms' words);
// "" when it has none.
func Alarms(l *recognize.Lock) (string, Severity) {
	if len(l.Alarms) == 0 {
		return "", Calm
	}
	var words []string
	sev := Warn
	for _, a := range l.Alarms {
		w := AlarmWord(a.Kind)
		seen := false
		for _, have := range words {
			seen = seen || have == w
		}
		if !seen {
			words = append(words, w)
		}
		sev = max(sev, AlarmSeverity(a.Kind))
	}
	return fmt.Sprintf("(%d) %s", len(l.Warnings), strings.Join(words, ", ")), sev
}
