package introspect

import "strings"

// Where a member's session tables came from.
const (
	TablesFromFourLetter = "4lw"
	TablesFromAdmin      = "AdminServer"
	TablesPartial        = "4lw, partly"
	TablesRefused        = "refused"
)

// tablesFrom says where the member's tables came from, once probed.
func (p *memberProbe) tablesFrom() string {
	m := &p.member
	switch {
	case !m.Serving():
		return string(m.Mode)
	case m.AdminURL != "":
		return TablesFromAdmin
	case !p.tablesMissing():
		return TablesFromFourLetter
	case m.Connections != nil || m.Watches != nil || m.Dump != nil:
		return TablesPartial
	}
	return TablesRefused
}

// SourcesLine says in one line where each member's tables came from:
// "tables: zk1:2181 4lw · zk2:2181 AdminServer · zk3:2181 refused (no
// AdminServer at http://zk3:8080/commands: connection refused)". Members
// that did not answer are left out: their MemberNote names them. It is
// "" when every member that answered did with four-letter words, which
// needs no saying.
func (s *Snapshot) SourcesLine() string {
	if s == nil {
		return ""
	}
	plain := true
	parts := make([]string, 0, len(s.Members))
	for _, m := range s.Members {
		if m.Mode == ModeUnreachable {
			continue
		}
		var why []string
		if m.TablesFrom == TablesPartial || m.TablesFrom == TablesRefused {
			var words []string
			for _, r := range s.Refused {
				if r.Member == m.Addr && tableWord(r.Command) {
					words = append(words, r.Command)
				}
			}
			if len(words) > 0 {
				why = append(why, strings.Join(words, ", ")+" refused")
			}
		}
		switch {
		case m.TablesFrom == TablesFromAdmin:
			why = append(why, m.AdminURL)
		case m.AdminNote != "":
			why = append(why, m.AdminNote)
		case m.Mode == ModeNotServing && m.Error != "":
			// (An unreachable member's MemberNote says why.)
			why = append(why, m.Error)
		}
		part := m.Addr + " " + m.TablesFrom
		if len(why) > 0 {
			part += " (" + strings.Join(why, "; ") + ")"
		}
		plain = plain && m.TablesFrom == TablesFromFourLetter
		parts = append(parts, part)
	}
	if plain {
		return ""
	}
	return "tables: " + strings.Join(parts, " · ")
}

// TablesComplete reports whether every member that serves gave its session
// tables (from four-letter words or its AdminServer): client addresses and
// watches are then known for every session.
func (s *Snapshot) TablesComplete() bool {
	if s == nil {
		return false
	}
	for _, m := range s.Members {
		if m.Serving() && m.TablesFrom != TablesFromFourLetter && m.TablesFrom != TablesFromAdmin {
			return false
		}
	}
	return true
}

// OtherProblems are the problems SourcesLine does not already tell: those
// of members that serve (a table that could not be read, an AdminServer
// error), not the silence of a member that is down.
func (s *Snapshot) OtherProblems() []Problem {
	if s == nil {
		return nil
	}
	var out []Problem
	for _, p := range s.Problems {
		if m := s.Member(p.Member); m != nil && !m.Serving() {
			continue
		}
		out = append(out, p)
	}
	return out
}

// tableWord reports whether a four-letter word answers one of the
// session tables (connections, watches, ephemerals).
func tableWord(cmd string) bool {
	switch cmd {
	case "cons", "wchc", "wchp", "dump":
		return true
	}
	return false
}

// RefusedTables lists the four-letter words of the session tables (cons,
// wchc, wchp, dump) that some member refused and no AdminServer answered
// instead, in the order zkview asks them.
func (s *Snapshot) RefusedTables() []string {
	if s == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, r := range s.Refused {
		if m := s.Member(r.Member); tableWord(r.Command) && (m == nil || m.AdminURL == "") {
			seen[r.Command] = true
		}
	}
	var out []string
	for _, w := range fourLetterOrder {
		if seen[w] {
			out = append(out, w)
		}
	}
	return out
}

// TablesRemedy says how to let zkx read the session tables the servers
// refuse, ending where the caller says how to name AdminServers
// ("--admin-url URL[,URL…]", ":admin URL[,URL…]"): "add cons, dump to
// 4lw.commands.whitelist on every server, or give zkx the members'
// AdminServers, which answer whatever the whitelist says: …". "" when
// nothing is refused.
func (s *Snapshot) TablesRemedy(adminHow string) string {
	words := s.RefusedTables()
	if len(words) == 0 {
		return ""
	}
	return "add " + strings.Join(words, ", ") + " to 4lw.commands.whitelist on every server, or give zkx the members' AdminServers, which answer whatever the whitelist says: " + adminHow
}
