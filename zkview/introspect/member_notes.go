package introspect

import (
	"fmt"
	"net"
	"net/url"

	"github.com/zkx-dev/zkx/internal/display"
)

// MemberNote is what the reader of a verdict should know of one member:
// that it did not answer or serves no clients (the sessions connected to
// it are then missing from the tables), or, of the member zkx read
// through, that it was well behind the freshest member. Every front end
// shows the same notes: stderr and the JSON of the commands, the
// explorer's header and :server page.
type MemberNote struct {
	// Member is the member's client address, as the connect string
	// gives it.
	Member string `json:"member"`
	// AdminURL is its AdminServer, when the note is about it too.
	AdminURL string `json:"admin_url,omitempty"`
	// Kind is one of the Note* kinds.
	Kind string `json:"kind"`
	// Text says it in a sentence that names the member first.
	Text string `json:"text"`
}

// The kinds of MemberNote.
const (
	// NoteNoAnswer: the member was silent until the deadline, on its
	// client port and on its AdminServer when it has one (a stopped or
	// hung process, an overloaded machine, a network that drops).
	NoteNoAnswer = "no-answer"
	// NoteUnreachable: the member could not be asked (its port refuses
	// connections, its name does not resolve): it is down or the address
	// is wrong.
	NoteUnreachable = "unreachable"
	// NoteNotServing: the member answers but serves no clients (out of its
	// quorum, or electing a leader).
	NoteNotServing = "not-serving"
	// NoteBehind: the member zkx read through was well behind the
	// freshest member when the members were asked.
	NoteBehind = "behind"
)

// behindTransactions is how many transactions the member zkx read through
// may be behind the freshest member before a note says so: members asked
// a few milliseconds apart differ by a few transactions on a busy
// ensemble; a member catching up after a pause, by thousands.
const behindTransactions = 1000

// ReadThrough is the member a command read the tree through, for
// MemberNotes: Member is its address ("" when the command read no tree),
// Synced that zkx asked it to sync with the leader before reading.
type ReadThrough struct {
	Member string
	Synced bool
}

// MemberNotes lists what should be said of the members, in the connect
// string's order: those that did not answer or do not serve, and the
// member zkx read through when it was well behind the freshest one. Nil
// when every member answered and none lagged.
func (in *Snapshot) MemberNotes(read ReadThrough) []MemberNote {
	if in == nil {
		return nil
	}
	var out []MemberNote
	for i := range in.Members {
		m := &in.Members[i]
		switch m.Mode {
		case ModeUnreachable:
			out = append(out, unansweredNote(m))
		case ModeNotServing:
			out = append(out, MemberNote{Member: m.Addr, Kind: NoteNotServing,
				Text: "member " + display.Line(m.Addr) + ": it answers but serves no clients (out of its quorum, or electing a leader); the sessions connected to it are not in the tables"})
		}
		if m.Addr == read.Member && read.Member != "" {
			if n, ok := in.behindNote(m, read.Synced); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// unansweredNote names a member that answered nothing: "member
// 127.0.0.1:2183 (AdminServer :9183): no answer within 2s on its client
// port or its AdminServer; the sessions connected to it are not in the
// tables".
func unansweredNote(m *Member) MemberNote {
	n := MemberNote{Member: m.Addr, AdminURL: m.AdminUnanswered, Kind: NoteUnreachable}
	if m.NoAnswer {
		n.Kind = NoteNoAnswer
	}
	who, what := "member "+display.Line(m.Addr), m.Error+" on its client port"
	if m.AdminUnanswered != "" {
		who += " (AdminServer " + shortAdmin(m.AdminUnanswered, m.Addr) + ")"
		switch {
		case m.AdminError == m.Error && m.NoAnswer:
			what = m.Error + " on its client port or its AdminServer"
		case m.AdminError == m.Error:
			what = m.Error + " on its client port and its AdminServer"
		default:
			what += "; its AdminServer: " + m.AdminError
		}
	}
	n.Text = who + ": " + display.Line(what) + "; the sessions connected to it are not in the tables"
	return n
}

// shortAdmin shows an AdminServer URL briefly beside its member: ":9183"
// on the member's host, else host:port.
func shortAdmin(raw, member string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return display.Line(raw)
	}
	host, _, _ := net.SplitHostPort(member)
	if u.Hostname() == host {
		return ":" + u.Port()
	}
	return display.Line(u.Host)
}

// behindNote says how far the member zkx read through was behind the
// freshest serving member, when that is more than a little.
func (in *Snapshot) behindNote(read *Member, synced bool) (MemberNote, bool) {
	if read.Stats == nil || !read.Serving() {
		return MemberNote{}, false
	}
	var freshest *Member
	for i := range in.Members {
		if m := &in.Members[i]; m.Serving() && m.Stats != nil && (freshest == nil || m.Stats.Zxid > freshest.Stats.Zxid) {
			freshest = m
		}
	}
	if freshest == nil || freshest == read {
		return MemberNote{}, false
	}
	have, want := read.Stats.Zxid, freshest.Stats.Zxid
	var lag string
	switch {
	case have>>32 < want>>32:
		lag = "a leader's term behind"
	case want-have > behindTransactions:
		lag = fmt.Sprintf("%d transactions behind", want-have)
	default:
		return MemberNote{}, false
	}
	text := fmt.Sprintf("member %s, which zkx read through, was %s %s (zxid %s against %s) when the members were asked",
		display.Line(read.Addr), lag, display.Line(freshest.Addr), display.Hex(have), display.Hex(want))
	if synced {
		text += "; zkx had it sync with the leader first, so what it read is at least as new as the leader's commits then"
	} else {
		text += "; what zkx read through it may be that much older"
	}
	return MemberNote{Member: read.Addr, Kind: NoteBehind, Text: text}, true
}
