package tui

import (
	"slices"
	"sort"

	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipeKind is what a recipe list shows.
type recipeKind string

const (
	kindLocks     recipeKind = "locks"
	kindQueues    recipeKind = "queues"
	kindElections recipeKind = "elections"
	// kindSystems lists every object of a known system (Kafka's
	// controller, HBase's masters, Solr's overseer…), of any class.
	kindSystems recipeKind = "systems"
	// kindRecipes lists the recipes no other list shows: groups,
	// partitioners, leases, counters, TTL nodes and barriers.
	kindRecipes recipeKind = "recipes"
)

// recipesClasses are the classes kindRecipes lists.
var recipesClasses = []string{recognize.ClassGroup, recognize.ClassPartition, recognize.ClassLease,
	recognize.ClassCounter, recognize.ClassTTLNode, recognize.ClassBarrier}

// tables reports whether the kind shows what only the servers' tables
// say (client addresses, live connections, observed watches, the
// consumers of a queue's items in flight): every kind does.
func (k recipeKind) tables() bool { return true }

// contended reports whether the kind's members are ephemeral, so that the
// servers' list of ephemeral nodes finds them without a walk.
func (k recipeKind) contended() bool {
	return k != kindQueues && k != kindSystems && k != kindRecipes && k != kindAlarms
}

// class is the recognize.Class of the recipes the kind lists.
func (k recipeKind) class() string {
	switch k {
	case kindLocks:
		return recognize.ClassLock
	case kindQueues:
		return recognize.ClassQueue
	}
	return recognize.ClassElection
}

// pick returns the recipes of the kind in a scan's result: systems' by
// system, root and path, the others in the walk's order.
func (k recipeKind) pick(res recognize.Result) []recognize.Recipe {
	var out []recognize.Recipe
	for _, r := range res.All() {
		if k.is(r) {
			out = append(out, r)
		}
	}
	if k == kindSystems {
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i].Info(), out[j].Info()
			if a.System != b.System {
				return a.System < b.System
			}
			if a.SystemRoot != b.SystemRoot {
				return a.SystemRoot < b.SystemRoot
			}
			return a.Path < b.Path
		})
	}
	return out
}

// is reports whether a recognised recipe is of the kind.
func (k recipeKind) is(r recognize.Recipe) bool {
	if r == nil {
		return false
	}
	switch k {
	case kindSystems:
		return r.Info().System != ""
	case kindRecipes:
		return slices.Contains(recipesClasses, r.Info().Class)
	case kindAlarms:
		return true // every recipe is followed: its alarms come and go
	}
	return r.Info().Class == k.class()
}

// singular names one recipe of the kind.
func (k recipeKind) singular() string {
	switch k {
	case kindSystems:
		return "system object"
	case kindRecipes, kindAlarms:
		return "recipe"
	}
	return k.class()
}
