package tui

import (
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipeKind is what a recipe list shows.
type recipeKind string

const (
	kindLocks     recipeKind = "locks"
	kindQueues    recipeKind = "queues"
	kindElections recipeKind = "elections"
)

// tables reports whether the kind shows what only the servers' tables
// say (client addresses, live connections, observed watches). Queues do
// not, so a queue list never asks the servers.
func (k recipeKind) tables() bool { return k != kindQueues }

// pick returns the recipes of the kind in a scan's result, as pointers.
func (k recipeKind) pick(res recognize.Result) []any {
	var out []any
	switch k {
	case kindLocks:
		for i := range res.Locks {
			out = append(out, &res.Locks[i])
		}
	case kindQueues:
		for i := range res.Queues {
			out = append(out, &res.Queues[i])
		}
	case kindElections:
		for i := range res.Elections {
			out = append(out, &res.Elections[i])
		}
	}
	return out
}

// is reports whether v, as RecognizeDir returns it, is of the kind.
func (k recipeKind) is(v any) bool {
	switch v.(type) {
	case *recognize.Lock:
		return k == kindLocks
	case *recognize.Queue:
		return k == kindQueues
	case *recognize.Election:
		return k == kindElections
	}
	return false
}

// singular names one recipe of the kind.
func (k recipeKind) singular() string {
	switch k {
	case kindLocks:
		return "lock"
	case kindQueues:
		return "queue"
	}
	return "election"
}

// emptied is a listed recipe whose directory no longer holds a member
// that makes it one (the last holder left a lock, a queue was drained):
// it stays listed, free or empty, until its directory goes.
func emptied(v any) any {
	switch v := v.(type) {
	case *recognize.Lock:
		return &recognize.Lock{Path: v.Path, Recipe: v.Recipe, Format: v.Format, MaxLeases: v.MaxLeases}
	case *recognize.Queue:
		return &recognize.Queue{Path: v.Path, Format: v.Format}
	case *recognize.Election:
		return &recognize.Election{Path: v.Path, Format: v.Format}
	}
	return v
}

// warningsOf returns a recipe's warnings.
func warningsOf(v any) []string {
	switch v := v.(type) {
	case *recognize.Lock:
		return v.Warnings
	case *recognize.Queue:
		return v.Warnings
	case *recognize.Election:
		return v.Warnings
	}
	return nil
}
