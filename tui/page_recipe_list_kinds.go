package tui

import (
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
)

// tables reports whether the kind shows what only the servers' tables
// say (client addresses, live connections, observed watches). Queues do
// not, so a queue list never asks the servers.
func (k recipeKind) tables() bool { return k != kindQueues }

// contended reports whether the kind's members are ephemeral, so that the
// servers' list of ephemeral nodes finds them without a walk.
func (k recipeKind) contended() bool { return k != kindQueues && k != kindSystems }

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
	if k == kindSystems {
		return r.Info().System != ""
	}
	return r.Info().Class == k.class()
}

// singular names one recipe of the kind.
func (k recipeKind) singular() string {
	if k == kindSystems {
		return "system object"
	}
	return k.class()
}
