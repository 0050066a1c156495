package recognize

import "fmt"

// The kinds of an election's Alarm.
const (
	// AlarmLeaderless: candidates wait and nobody leads (or a system's
	// leader role is vacant while its candidates wait).
	AlarmLeaderless = "leaderless"
	// AlarmLeaderSilent: the leader's session has no live connection, or
	// has not been heard from for more than a third of its timeout: it
	// still leads and may do nothing.
	AlarmLeaderSilent = "leader-silent"
)

// leaderAlarms are an election's alarms: the builder's alarms about its
// leader (gone or silent, as about a lock's holder) under the election's
// kind, and leaderless when candidates wait with nobody leading.
func (b *recipeBuilder) leaderAlarms(e *Election) []Alarm {
	var out []Alarm
	if e.Leader == nil && len(e.Candidates) > 0 {
		text := fmt.Sprintf("nobody leads: %d candidate(s) wait", len(e.Candidates))
		b.warn = append([]string{text}, b.warn...)
		out = append(out, Alarm{Kind: AlarmLeaderless, Text: text})
	}
	for _, a := range b.alarms {
		switch a.Kind {
		case AlarmGoneHolder, AlarmSilent:
			out = append(out, Alarm{Kind: AlarmLeaderSilent, Node: a.Node, Text: a.Text})
		}
	}
	return out
}
