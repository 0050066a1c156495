// Package lockstats instruments the lock recipes (package recipes) for
// zkx demo and the lock benchmarks (scripts/lockbench): counters and a
// handoff histogram (Stats), the steps a contender goes through (Event,
// for an Observer), and the waiting strategies the demo sets against the
// recipe (Herd, Spin). None of it is the recipes' public API, which is a
// coordination library: a program outside this module cannot import it.
//
// RecipeOption, which package recipes sets when it loads, turns Instruments
// into a recipes.Option:
//
//	m := recipes.NewMutex(s, dir, lockstats.RecipeOption(lockstats.Instruments{
//		Stats: st, Strategy: lockstats.Spin,
//	}).(recipes.Option))
package lockstats
