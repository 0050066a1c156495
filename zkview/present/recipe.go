package present

import (
	"fmt"
	"strings"
	"time"

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

// Head says what a recipe is in one line, as of now: "mutex · curator · 1
// holding · 2 waiting", "election · curator · 2 in line behind the leader
// · leader 0x…", "delay queue · curator · 3 items · oldest 32s · 2 due ·
// taken from the top, in this order", "STUCK partitioner · kazoo · …".
func Head(r recognize.Recipe, now time.Time) string {
	switch r := r.(type) {
	case *recognize.Lock:
		head := fmt.Sprintf("%s · %s · %d holding · %d waiting", r.Recipe, formats(r.Format, r.Formats), len(r.Holders), len(r.Waiters))
		if n := mayHolders(r); n > 0 {
			head += fmt.Sprintf(" (%d may hold)", n)
		}
		if m := Max(r); m != "" {
			head += " · " + m
		}
		return head
	case *recognize.Election:
		head := fmt.Sprintf("election · %s · %d in line behind the leader", r.Format, len(r.Candidates))
		if r.Leader != nil {
			head += " · leader " + r.Leader.Session
		}
		return head
	case *recognize.Queue:
		return queueHead(r)
	case *recognize.Barrier:
		head := fmt.Sprintf("%s · %s · %d participants", r.Kind, r.Format, len(r.Participants))
		if r.Ready {
			head += " · ready"
		}
		return head
	case *recognize.Group:
		kind := "members"
		if r.Kind != "" {
			kind = r.Kind
		}
		return fmt.Sprintf("%s · %s · %d live · one ephemeral node per live member: it goes when the member's session does", kind, r.Format, len(r.Members))
	}
	return headMore(r, now)
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
	recognize.AlarmQueueStale:      "STALE",
	recognize.AlarmItemStuck:       "STUCK ITEM",
	recognize.AlarmAllocationStuck: "STUCK",
	recognize.AlarmLeaderless:      "LEADERLESS",
	recognize.AlarmLeaderSilent:    "LEADER SILENT",
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
	case recognize.AlarmDeadlock, recognize.AlarmTwoHolders, recognize.AlarmSilent, recognize.AlarmGoneHolder, recognize.AlarmLeaderless:
		return Bad
	}
	return Warn
}

// Alarms names a lock's alarms in one cell, loudest severity first: "(5)
// DEADLOCK, SILENT" (how many warnings in all, then the alarms' words);
// "" when it has none.
func Alarms(l *recognize.Lock) (string, Severity) { return RecipeAlarms(l) }

// RecipeAlarms names any recipe's alarms in one cell, as Alarms a lock's:
// "(2) STALE, STUCK ITEM"; "" when it has none.
func RecipeAlarms(r recognize.Recipe) (string, Severity) {
	alarms := recognize.AlarmsOf(r)
	if len(alarms) == 0 {
		return "", Calm
	}
	var words []string
	sev := Warn
	for _, a := range alarms {
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
	return fmt.Sprintf("(%d) %s", len(r.Info().Warnings), strings.Join(words, ", ")), sev
}
