// Package alarms lists every alarm holding now, across recipes and the
// ensemble's members, in one shape: what `zkx check` prints a line for,
// what the exporter serves as zkx_recipe_alarm, and what the explorer's
// :alarms page lists. The alarms themselves are computed where the
// recipes are recognised (recognize.AlarmsOf) and where the members are
// asked (introspect.MemberNotes); this package only gathers them.
package alarms

import (
	"cmp"
	"slices"

	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// KindMemberDown is the alarm of a member that does not answer or does
// not serve clients (docs/metrics.md; the exporter serves it as
// zkx_member_up 0).
const KindMemberDown = "member-down"

// Alarm is one alarm holding now.
type Alarm struct {
	// Kind is one of recognize's Alarm… kinds, or KindMemberDown.
	Kind string `json:"kind"`
	// Path is the recipe's path; "" for a member's alarm.
	Path string `json:"path,omitempty"`
	// Recipe is what the recipe is (mutex, rwlock, semaphore, election,
	// queue, partitioner…: its Info().Kind); "" for a member.
	Recipe string `json:"recipe,omitempty"`
	// Member is the member's address, for KindMemberDown.
	Member string `json:"member,omitempty"`
	// Node is the contender or item the alarm is about, when one is.
	Node string `json:"node,omitempty"`
	// Text says it in a sentence.
	Text string `json:"text"`
}

// Subject is what the alarm is on: the recipe's path, or the member.
func (a Alarm) Subject() string {
	if a.Path != "" {
		return a.Path
	}
	return a.Member
}

// Of gathers the alarms of the recipes and of the members' notes, the
// recipes' in path order, then the members'. A note that a member lags
// is no alarm (the member serves).
func Of(recipes []recognize.Recipe, members []introspect.MemberNote) []Alarm {
	var out []Alarm
	sorted := slices.SortedFunc(slices.Values(recipes), func(a, b recognize.Recipe) int {
		return cmp.Compare(a.Info().Path, b.Info().Path)
	})
	for _, r := range sorted {
		info := r.Info()
		for _, a := range recognize.AlarmsOf(r) {
			out = append(out, Alarm{Kind: a.Kind, Path: info.Path, Recipe: RecipeKind(r), Node: a.Node, Text: a.Text})
		}
	}
	for _, n := range members {
		if MemberDown(n) {
			out = append(out, Alarm{Kind: KindMemberDown, Member: n.Member, Text: n.Text})
		}
	}
	return out
}

// MemberDown reports whether a member's note says it does not answer or
// does not serve.
func MemberDown(n introspect.MemberNote) bool {
	switch n.Kind {
	case introspect.NoteNoAnswer, introspect.NoteUnreachable, introspect.NoteNotServing:
		return true
	}
	return false
}

// RecipeKind is the recipe label of docs/metrics.md: a lock's recipe
// (mutex, rwlock, semaphore), a barrier's or partitioner's kind (barrier,
// double-barrier, partitioner), else the recipe's class (election,
// queue, group…).
func RecipeKind(r recognize.Recipe) string {
	info := r.Info()
	switch info.Class {
	case recognize.ClassLock, recognize.ClassBarrier, recognize.ClassPartition:
		return info.Kind
	}
	return info.Class
}
