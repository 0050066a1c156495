package recipes

import "github.com/zkx-dev/zkx/internal/lockstats"

// The instruments of zkx demo and the lock benchmarks reach a recipe
// through lockstats.RecipeOption, so that they are not this package's API.
func init() {
	lockstats.RecipeOption = func(in lockstats.Instruments) any { return withInstruments(in) }
}

// withInstruments makes a recipe count into in.Stats, tell in.Observer and,
// for a Mutex, wait with in.Strategy, polling every in.PollInterval. A zero
// field leaves the recipe's own setting, so such options add up.
func withInstruments(in lockstats.Instruments) Option {
	return func(o *options) {
		if in.Stats != nil {
			o.stats = in.Stats
		}
		if in.Observer != nil {
			o.observer = in.Observer
		}
		if in.Strategy != lockstats.Chain {
			o.strategy = in.Strategy
		}
		if in.PollInterval > 0 {
			o.pollInterval = in.PollInterval
		}
	}
}

// tell reports an event to the observer, if there is one.
func (o *options) tell(ev lockstats.Event) { o.observer.Tell(ev) }
