package lockstats

import "time"

// Instruments are what a recipe counts into, tells and waits with; the zero
// value changes nothing.
type Instruments struct {
	// Stats, shared between recipes, adds up their counts (a recipe counts
	// into counters of its own without it).
	Stats *Stats
	// Observer is told each step of a contender.
	Observer Observer
	// Strategy is how a Mutex waits (Chain, the recipe, when zero); the
	// other recipes ignore it.
	Strategy Strategy
	// PollInterval is how long a Spin waiter sleeps between attempts
	// (10ms when zero).
	PollInterval time.Duration
}

// RecipeOption returns the recipes.Option that gives a recipe in (as an
// any, which is a recipes.Option). Package recipes sets it when it loads,
// so that the option is not part of its API; nothing else may.
var RecipeOption func(in Instruments) any
