package present

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// HeardState is what the servers said of a contender's session, in the
// one order of precedence every front end shows: no connection first (no
// server lists the session: its silence measures nothing), then silent,
// then heard, then unknown.
type HeardState int

// The states of Heard, from the least to the most alarming.
const (
	// HeardNoSession: a persistent node, which no session owns.
	HeardNoSession HeardState = iota
	// HeardUnknown: the servers' tables were not read or do not say.
	HeardUnknown
	// HeardRecently: its server answered it lately.
	HeardRecently
	// HeardSilent: not heard from for more than a third of its session
	// timeout: frozen or cut off.
	HeardSilent
	// HeardNoConnection: no server lists a connection of its session.
	HeardNoConnection
)

// Heard is whether and when a contender's server last answered its
// session, in words.
type Heard struct {
	State HeardState
	// Cell is the few words of a table cell, under a HEARD heading that
	// says "ago": "3s", "≥3s", "SILENT 15s", "NO CONN", "?", "-".
	Cell string
	// Text is the sentence: "3s ago", "SILENT for 15s: frozen or cut off,
	// its session expires by 15:04:05 at the latest", "NO CONNECTION: …".
	Text string
}

// Phrase is the words in a line of several facts: "heard 3s ago", the
// alarm's sentence, "" when the servers do not say.
func (h Heard) Phrase() string {
	switch h.State {
	case HeardRecently:
		return "heard " + h.Text
	case HeardSilent, HeardNoConnection:
		return h.Text
	}
	return ""
}

// Alarming reports whether the state calls for someone: silent, or no
// connection.
func (h Heard) Alarming() bool { return h.State == HeardSilent || h.State == HeardNoConnection }

// HeardOf says what the servers said of c's session as of now: from its
// Liveness when the tables were read in this process, else from the JSON
// fields (last_heard_ms, silent) a contender read back carries.
func HeardOf(c recognize.Contender, now time.Time) Heard {
	var (
		silence time.Duration
		known   bool
		silent  bool
		atLeast bool
	)
	switch l := c.Liveness; {
	case !l.Heard.IsZero():
		silence, known, silent, atLeast = l.Silence(now), true, l.Silent(now), l.AtLeast
	case c.LastHeardMs != nil:
		silence, known, silent, atLeast = time.Duration(*c.LastHeardMs)*time.Millisecond, true, c.Silent, c.LastHeardAtLeast
	}
	ago := display.Duration(silence)
	if atLeast {
		ago = "≥" + ago
	}
	switch {
	case c.Connected != nil && !*c.Connected:
		return Heard{State: HeardNoConnection, Cell: "NO CONN",
			Text: "NO CONNECTION: no server lists its session; its node stays until the session expires"}
	case known && silent:
		text := "SILENT for " + ago + ": frozen or cut off"
		if bound := c.Liveness.ExpiryBound(); bound != "" {
			text += ", its session expires " + bound
			if !c.Liveness.ExpiresByApprox {
				text += " at the latest"
			}
		}
		return Heard{State: HeardSilent, Cell: "SILENT " + ago, Text: text}
	case known:
		return Heard{State: HeardRecently, Cell: ago, Text: ago + " ago"}
	case c.SessionID == 0 && c.Session == "":
		return Heard{State: HeardNoSession, Cell: "-", Text: "no session: a persistent node"}
	}
	return Heard{State: HeardUnknown, Cell: "?", Text: "unknown (the servers do not say)"}
}

// Held is how long a holder has held, in words.
type Held struct {
	// Known is set when zkx knows when holding began (it saw it begin, or
	// nothing changed since the node was created); else the node's age
	// bounds it.
	Known bool
	// Cell: "3m" when known, "≤5m" (its node's age) when not, "?" when
	// neither is known.
	Cell string
	// Text follows "held": "since 15:04:05 (3m)", "for 3m", or "at most
	// 5m: its node's age (zkx did not see it begin to hold)".
	Text string
	// Phrase is the words in a line of several facts: "held since
	// 15:04:05 (3m)", "held ≤5m (start not seen)".
	Phrase string
}

// HeldOf says how long c has held as of now.
func HeldOf(c recognize.Contender, now time.Time) Held {
	switch {
	case !c.HeldSince.IsZero():
		d := display.Duration(now.Sub(c.HeldSince))
		text := fmt.Sprintf("since %s (%s)", c.HeldSince.Format("15:04:05"), d)
		return Held{Known: true, Cell: d, Text: text, Phrase: "held " + text}
	case c.HeldMs != nil:
		d := display.Duration(time.Duration(*c.HeldMs) * time.Millisecond)
		return Held{Known: true, Cell: d, Text: "for " + d, Phrase: "held for " + d}
	}
	age, ok := Age(c, now)
	if !ok {
		return Held{Cell: "?", Text: "for a time not known (zkx did not see it begin to hold)", Phrase: "held: start not seen"}
	}
	return Held{Cell: "≤" + age, Text: "at most " + age + ": its node's age (zkx did not see it begin to hold)",
		Phrase: "held ≤" + age + " (start not seen)"}
}

// Age is how old c's node is as of now ("" and false for a herd's
// waiter, which has none).
func Age(c recognize.Contender, now time.Time) (string, bool) {
	switch {
	case !c.Created.IsZero():
		return display.Duration(max(now.Sub(c.Created), 0)), true
	case c.AgeMs > 0:
		return display.Duration(time.Duration(c.AgeMs) * time.Millisecond), true
	}
	return "", false
}

// Role names a place in one or two words: "holder", "waiter 2", "holder
// (read)", "waiter 1 (write)", "waiter 1 (may hold)", "lease", "leader",
// "candidate 3".
func Role(p recognize.Place) string {
	s := p.Role
	if p.Position > 0 {
		s += fmt.Sprintf(" %d", p.Position)
	}
	var marks []string
	switch p.Kind {
	case "read", "write":
		marks = append(marks, p.Kind)
	}
	if p.MayHold {
		marks = append(marks, "may hold")
	}
	if len(marks) > 0 {
		s += " (" + strings.Join(marks, ", ") + ")"
	}
	return s
}

// Label names a contender's node in a row: "#3" when its name ends in
// its sequence number (the order is what the name says; the session says
// who), its short name otherwise.
func Label(c recognize.Contender) string {
	base := path.Base(c.Node)
	if c.Node != "" && strings.HasSuffix(base, fmt.Sprintf("%010d", c.Seq)) {
		return fmt.Sprintf("#%d", c.Seq)
	}
	return display.Line(recognize.BareName(base))
}

// Format is a contender's format, with the library rule it was judged
// by when there is one: "kazoo (Kazoo Lock with extra_lock_patterns=…)".
func Format(c recognize.Contender) string {
	if c.View == "" {
		return c.Format
	}
	return c.Format + " (" + c.View + ")"
}

// Client is a contender's client address as shown, or why it is not
// known.
func Client(c recognize.Contender) string {
	if s := c.ClientText(); s != "" {
		return display.Line(s)
	}
	if c.SessionID == 0 && c.Session == "" {
		return "none: a persistent node"
	}
	return "unknown (the servers' connection lists were not read)"
}

// Next says what happens when a holder's (or the leader's) node is
// deleted, by the model; "not known" where the recipe does not say.
func Next(r recognize.Recipe, node string) string {
	next := ""
	switch r := r.(type) {
	case *recognize.Lock:
		next = r.Handover(node)
	case *recognize.Election:
		next = r.Handover(node)
	}
	if next == "" {
		return "not known"
	}
	return display.Line(next)
}

// FactWidth is the width every front end pads a Fact's label to, so that
// the words line up alike everywhere.
const FactWidth = 8

// Fact is one line of a contender's description: a label and its words.
type Fact struct {
	Label string
	Text  string
	// Alarm marks words that call for someone (silent, no connection).
	Alarm bool
}

// Facts describe one contender of a recipe, for a confirmation or a
// runbook, in this order: its role and node, format, session, client,
// how long it has held (a holder), whether it was asked to release
// (__REVOKE__), when its server last heard from it,
// who takes over when it goes (a holder), and, for a waiter that may
// hold, why.
func Facts(r recognize.Recipe, p recognize.Place, now time.Time) []Fact {
	c := p.Contender
	out := []Fact{
		{Label: p.Role, Text: display.Line(recognize.BareName(c.Node))},
		{Label: "format", Text: Format(c)},
		{Label: "session", Text: orNone(c.Session)},
		{Label: "client", Text: Client(c)},
	}
	if p.Holding() {
		out = append(out, Fact{Label: "held", Text: HeldOf(c, now).Text})
	}
	if note := c.RevokeNote(now); note != "" {
		out = append(out, Fact{Label: "revoke", Text: note})
	}
	h := HeardOf(c, now)
	out = append(out, Fact{Label: "heard", Text: h.Text, Alarm: h.Alarming()})
	if p.Holding() {
		out = append(out, Fact{Label: "next", Text: Next(r, c.Node)})
	}
	if c.MayHold {
		out = append(out, Fact{Label: "may hold", Text: display.Line(c.MayHoldReason), Alarm: true})
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none (a persistent node)"
	}
	return s
}

// MayAlsoHold names the waiters of a lock that may believe they hold
// (MayHold), each with why: whoever frees the certain holder learns who
// else may think the lock is theirs.
func MayAlsoHold(l *recognize.Lock) []string {
	var out []string
	for _, w := range l.Waiters {
		if w.MayHold {
			out = append(out, display.Line(w.Name()+": "+w.MayHoldReason))
		}
	}
	return out
}

// NotTold is what a force-release cannot do: tell the holder.
const NotTold = "Its owner is not told: if it is alive it may still believe it holds the lock."
