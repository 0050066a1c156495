package metrics

import (
	"cmp"
	"slices"

	"github.com/zkx-dev/zkx/zkview/alarms"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// sample is one series' labels (in its metric's label order) and value.
type sample struct {
	labels []string
	value  float64
}

// series are the samples of one State, computed once when it is
// published so that a scrape only copies them out.
type series struct {
	members        []sample // zkx_member_up{member}
	recipes        []sample // zkx_recipes{class}
	alarm          []sample // zkx_recipe_alarm{path,recipe,kind}
	lockHolders    []sample
	lockWaiters    []sample
	lockHeld       []sample
	lockHolderAge  []sample
	lockLastHeard  []sample
	candidates     []sample
	leaderHeard    []sample
	queueItems     []sample
	queueOldest    []sample
	rolePresent    []sample // zkx_system_role_present{system,root,role}
	kept, dropped  []string // the recipes' paths with series, and without (the cap)
	refreshSeconds float64
}

// role is a system's leader role as the exporter last saw it.
type role struct {
	system, root, role, path, recipe string
}

// seconds turns a count of milliseconds into seconds.
func seconds(ms int64) float64 { return float64(ms) / 1000 }

// classes are zkx_recipes' values of class, each served (at 0 when none).
var classes = []string{
	recognize.ClassLock, recognize.ClassElection, recognize.ClassQueue, recognize.ClassBarrier, recognize.ClassGroup,
	recognize.ClassPartition, recognize.ClassLease, recognize.ClassCounter, recognize.ClassTTLNode,
}

// computeSeries turns a State into samples: at most maxRecipes recipes
// get per-recipe series, those with an alarm first, then in path order.
// roles are the system roles seen before (by path), which a State without
// them shows vacant; the roles seen in this State are added to it.
func computeSeries(st State, maxRecipes int, roles map[string]role) *series {
	s := &series{refreshSeconds: st.Refresh.Seconds()}
	for _, m := range st.Members {
		s.members = append(s.members, sample{[]string{m.Addr}, boolValue(m.Up)})
	}
	byClass := map[string]int{}
	for _, r := range st.Recipes {
		byClass[r.Info().Class]++
	}
	for _, c := range classes {
		s.recipes = append(s.recipes, sample{[]string{c}, float64(byClass[c])})
	}

	ordered := slices.Clone(st.Recipes)
	slices.SortFunc(ordered, func(a, b recognize.Recipe) int {
		aa, ba := len(recognize.AlarmsOf(a)) > 0, len(recognize.AlarmsOf(b)) > 0
		if aa != ba {
			if aa {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Info().Path, b.Info().Path)
	})
	present := map[string]bool{}
	for i, r := range ordered {
		path := r.Info().Path
		if maxRecipes > 0 && i >= maxRecipes {
			s.dropped = append(s.dropped, path)
			present[path] = true // left out, not vacant
			continue
		}
		s.kept = append(s.kept, path)
		s.addRecipe(r, roles, present)
	}
	// A role seen before and gone now (a Kafka controller's node is gone
	// when no broker is controller) is vacant: present 0 and leaderless.
	for path, ro := range roles {
		if present[path] {
			continue
		}
		s.rolePresent = append(s.rolePresent, sample{[]string{ro.system, ro.root, ro.role}, 0})
		s.alarm = append(s.alarm, sample{[]string{path, ro.recipe, recognize.AlarmLeaderless}, 1})
	}
	s.rolePresent = leastByLabels(s.rolePresent)
	return s
}

// leastByLabels keeps one sample per label set, the least (a system with
// several elections of one role, as Solr's shard leaders, is vacant when
// one is), sorted by labels.
func leastByLabels(samples []sample) []sample {
	slices.SortFunc(samples, func(a, b sample) int {
		return cmp.Or(slices.Compare(a.labels, b.labels), cmp.Compare(a.value, b.value))
	})
	return slices.CompactFunc(samples, func(a, b sample) bool { return slices.Equal(a.labels, b.labels) })
}

// addRecipe adds one recipe's series.
func (s *series) addRecipe(r recognize.Recipe, roles map[string]role, present map[string]bool) {
	info := r.Info()
	path, kind := info.Path, alarms.RecipeKind(r)
	seen := map[string]bool{}
	for _, a := range recognize.AlarmsOf(r) {
		if !seen[a.Kind] {
			seen[a.Kind] = true
			s.alarm = append(s.alarm, sample{[]string{path, kind, a.Kind}, 1})
		}
	}
	one := []string{path}
	switch r := r.(type) {
	case *recognize.Lock:
		s.lockHolders = append(s.lockHolders, sample{one, float64(len(r.Holders))})
		s.lockWaiters = append(s.lockWaiters, sample{one, float64(len(r.Waiters))})
		if v, ok := worst(r.Holders, func(c recognize.Contender) *int64 { return c.HeldMs }); ok {
			s.lockHeld = append(s.lockHeld, sample{one, v})
		}
		if v, ok := worst(r.Holders, func(c recognize.Contender) *int64 { return &c.AgeMs }); ok {
			s.lockHolderAge = append(s.lockHolderAge, sample{one, v})
		}
		if v, ok := worst(r.Holders, func(c recognize.Contender) *int64 { return c.LastHeardMs }); ok {
			s.lockLastHeard = append(s.lockLastHeard, sample{one, v})
		}
	case *recognize.Election:
		s.candidates = append(s.candidates, sample{one, float64(len(r.Candidates))})
		if r.Leader != nil && r.Leader.LastHeardMs != nil {
			s.leaderHeard = append(s.leaderHeard, sample{one, seconds(*r.Leader.LastHeardMs)})
		}
		if r.System != "" && r.Role != "" {
			roles[path] = role{system: r.System, root: r.SystemRoot, role: r.Role, path: path, recipe: kind}
			present[path] = true
			s.rolePresent = append(s.rolePresent, sample{[]string{r.System, r.SystemRoot, r.Role}, boolValue(r.Leader != nil)})
		}
	case *recognize.Queue:
		s.queueItems = append(s.queueItems, sample{one, float64(r.Length)})
		if r.OldestAgeMs != nil {
			s.queueOldest = append(s.queueOldest, sample{one, seconds(*r.OldestAgeMs)})
		}
	}
}

// worst is the largest of a value the holders may have, in seconds; ok
// is false when none has it.
func worst(holders []recognize.Contender, value func(recognize.Contender) *int64) (float64, bool) {
	var most int64
	found := false
	for _, h := range holders {
		if v := value(h); v != nil && (!found || *v > most) {
			most, found = *v, true
		}
	}
	return seconds(most), found
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
