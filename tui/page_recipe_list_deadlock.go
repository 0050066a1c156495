package tui

import (
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// deadlocked are the page's recipes as its rows show them: the locks of
// a cycle of sessions (recognize.MarkDeadlocks, over every lock listed)
// with the deadlock as their first warning and alarm, by path; and the
// deadlocks. Worked out at each rebuild from the recipes as they are, so a
// live change to one lock is judged with all the others.
func (p *recipeListPage) deadlocked() (map[string]recognize.Recipe, []recognize.Deadlock) {
	shown := make(map[string]recognize.Recipe, len(p.recipes))
	var locks []recognize.Lock
	for _, path := range p.order {
		r := p.recipes[path]
		shown[path] = r
		if l, ok := r.(*recognize.Lock); ok {
			locks = append(locks, *l)
		}
	}
	ds := recognize.MarkDeadlocks(locks)
	for i := range locks {
		if locks[i].Deadlocked {
			shown[locks[i].Path] = &locks[i]
		}
	}
	return shown, ds
}
