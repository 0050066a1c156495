package recognize

import (
	"path"
	"strings"

	"github.com/zkx-dev/zkx/zkview"
)

// Dirs implements Recipe.
func (l *Lock) Dirs() []string {
	var d recipeDirs
	d.lock(*l)
	return d.list
}

// Dirs implements Recipe.
func (e *Election) Dirs() []string {
	var d recipeDirs
	d.election(*e)
	return d.list
}

// Dirs implements Recipe.
func (q *Queue) Dirs() []string {
	var d recipeDirs
	d.queue(*q)
	return d.list
}

// Dirs implements Recipe.
func (b *Barrier) Dirs() []string {
	var d recipeDirs
	d.barrier(*b)
	return d.list
}

// recipeDirs collects directories once each, in the order first met.
type recipeDirs struct{ list []string }

func (d *recipeDirs) add(dir string) {
	for _, have := range d.list {
		if have == dir {
			return
		}
	}
	d.list = append(d.list, dir)
}

// contenders adds the directories the nodes named relative to recipe are
// in (see ContenderPath).
func (d *recipeDirs) contenders(recipe string, cs []Contender) {
	for _, c := range cs {
		d.add(path.Dir(ContenderPath(recipe, c.Node)))
	}
}

func (d *recipeDirs) lock(l Lock) {
	d.add(l.Path)
	if l.Recipe == recSemaphore {
		switch {
		case l.Format == recFormatKazoo:
			d.add(l.Path + kazooSemaphoreLock)
		case l.Format == recFormatMixed:
			d.add(zkview.ChildPath(l.Path, "leases"))
			d.add(zkview.ChildPath(l.Path, "locks"))
			d.add(l.Path + kazooSemaphoreLock)
		case !leasesOnly(l):
			d.add(zkview.ChildPath(l.Path, "leases"))
			d.add(zkview.ChildPath(l.Path, "locks"))
		}
	}
	d.contenders(l.Path, l.Holders)
	d.contenders(l.Path, l.Waiters)
}

// leasesOnly tells a directory of Curator leases met on its own (its
// contenders are its children) from a SemaphoreV2 (they are in leases/
// and locks/). An empty one could be either.
func leasesOnly(l Lock) bool {
	n := 0
	for _, cs := range [][]Contender{l.Holders, l.Waiters} {
		for _, c := range cs {
			if strings.Contains(c.Node, "/") {
				return false
			}
			n++
		}
	}
	return n > 0
}

func (d *recipeDirs) election(e Election) {
	d.add(e.Path)
	if e.Leader != nil {
		d.contenders(e.Path, []Contender{*e.Leader})
	}
	d.contenders(e.Path, e.Candidates)
}

func (d *recipeDirs) queue(q Queue) {
	d.add(q.Path)
	locking := q.Format == recFormatKazoo && len(q.Items) == 0
	for _, it := range q.Items {
		d.add(path.Dir(ContenderPath(q.Path, it.Node)))
		locking = locking || strings.HasPrefix(it.Node, "entries/")
	}
	if locking {
		d.add(zkview.ChildPath(q.Path, "entries"))
		d.add(zkview.ChildPath(q.Path, "taken"))
	}
}

func (d *recipeDirs) barrier(b Barrier) {
	d.add(b.Path)
	d.contenders(b.Path, b.Participants)
}
