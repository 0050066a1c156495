package recognize

// Recipe is a recognised coordination object: a *Lock (mutex, read-write
// lock or semaphore), an *Election, a *Queue, a *Barrier, a *Group (a
// system's or a library's members), a *Partitioner, a *Lease, a *Counter
// or a *TTLNode. It is sealed
// (only this package implements it), so a new kind is added here, with
// every method, and every viewer that lists recipes shows it.
type Recipe interface {
	// Info is what every recipe has: its path, kind, format and warnings.
	Info() Info
	// Holding are those the recipe lets in: a lock's holders, an
	// election's leader; none for queues and barriers.
	Holding() []Contender
	// Lineup is every contender where it stands: those let in first, then
	// those in line, in order; none for a queue.
	Lineup() []Place
	// Dirs are the directories whose children make up the recipe, its own
	// path first: what a viewer keeps child watches on to follow it live,
	// recognising it again when one of them changes. Besides the
	// directories its contenders and items are in, a layout's component
	// directories are included even when an empty recipe does not show them
	// (the leases/ and locks/ of a Curator semaphore, the entries/ and taken/
	// of what may be a Kazoo LockingQueue), so some may not exist.
	Dirs() []string
	// Emptied is the recipe with no members left (a lock whose last holder
	// went, a drained queue): what a viewer keeps showing, free or empty,
	// until its directory goes.
	Emptied() Recipe
	// addTo appends the recipe to its list in a Result.
	addTo(res *Result)
	// members are the recipe's contenders, to fill in what every one has.
	members() []*Contender
}

// Info is what every recipe has.
type Info struct {
	Path string
	// Kind is mutex, rwlock, semaphore, election, queue, barrier or
	// double-barrier.
	Kind string
	// Class is the list the recipe belongs to: ClassLock, ClassElection,
	// ClassQueue, ClassBarrier, ClassGroup, ClassPartition, ClassLease,
	// ClassCounter or ClassTTLNode.
	Class    string
	Format   string
	Warnings []string
	// SystemTag is set when the recipe belongs to a known system.
	SystemTag
}

// The classes of recipe: a lock of any kind, an election, a queue, a
// barrier, a group of members, a partitioner, a lease, a counter, a TTL
// node.
const (
	ClassLock      = "lock"
	ClassElection  = "election"
	ClassQueue     = "queue"
	ClassBarrier   = "barrier"
	ClassGroup     = "group"
	ClassPartition = "partition"
	ClassLease     = "lease"
	ClassCounter   = "counter"
	ClassTTLNode   = "ttl-node"
)

// Info implements Recipe.
func (l *Lock) Info() Info {
	return Info{Path: l.Path, Kind: l.Recipe, Class: ClassLock, Format: l.Format, Warnings: l.Warnings, SystemTag: l.SystemTag}
}

// Info implements Recipe.
func (e *Election) Info() Info {
	return Info{Path: e.Path, Kind: ClassElection, Class: ClassElection, Format: e.Format, Warnings: e.Warnings, SystemTag: e.SystemTag}
}

// Info implements Recipe.
func (q *Queue) Info() Info {
	return Info{Path: q.Path, Kind: ClassQueue, Class: ClassQueue, Format: q.Format, Warnings: q.Warnings, SystemTag: q.SystemTag}
}

// Info implements Recipe.
func (b *Barrier) Info() Info {
	return Info{Path: b.Path, Kind: b.Kind, Class: ClassBarrier, Format: b.Format, Warnings: b.Warnings, SystemTag: b.SystemTag}
}

// Info implements Recipe.
func (g *Group) Info() Info {
	kind := g.Kind
	if kind == "" {
		kind = "members"
	}
	return Info{Path: g.Path, Kind: kind, Class: ClassGroup, Format: g.Format, Warnings: g.Warnings, SystemTag: g.SystemTag}
}

// Holding implements Recipe: members hold nothing.
func (g *Group) Holding() []Contender { return nil }

// Emptied implements Recipe.
func (g *Group) Emptied() Recipe {
	return &Group{Path: g.Path, Format: g.Format, Kind: g.Kind, SystemTag: g.SystemTag}
}

// Dirs implements Recipe.
func (g *Group) Dirs() []string { return []string{g.Path} }

func (g *Group) addTo(res *Result) { res.Groups = append(res.Groups, *g) }

// Holding implements Recipe.
func (l *Lock) Holding() []Contender { return l.Holders }

// Holding implements Recipe.
func (e *Election) Holding() []Contender {
	if e.Leader == nil {
		return nil
	}
	return []Contender{*e.Leader}
}

// Holding implements Recipe: a queue has no holders.
func (q *Queue) Holding() []Contender { return nil }

// Holding implements Recipe: a barrier lets nobody in.
func (b *Barrier) Holding() []Contender { return nil }

// Emptied implements Recipe.
func (l *Lock) Emptied() Recipe {
	return &Lock{Path: l.Path, Recipe: l.Recipe, Format: l.Format, MaxLeases: l.MaxLeases, MaxFrom: l.MaxFrom, MaxPath: l.MaxPath,
		MutexBySemaphore: l.MutexBySemaphore, SystemTag: l.SystemTag}
}

// Emptied implements Recipe.
func (e *Election) Emptied() Recipe {
	return &Election{Path: e.Path, Format: e.Format, SystemTag: e.SystemTag}
}

// Emptied implements Recipe.
func (q *Queue) Emptied() Recipe {
	return &Queue{Path: q.Path, Format: q.Format, SystemTag: q.SystemTag}
}

// Emptied implements Recipe.
func (b *Barrier) Emptied() Recipe {
	return &Barrier{Path: b.Path, Format: b.Format, Kind: b.Kind, SystemTag: b.SystemTag}
}

func (l *Lock) addTo(res *Result)     { res.Locks = append(res.Locks, *l) }
func (e *Election) addTo(res *Result) { res.Elections = append(res.Elections, *e) }
func (q *Queue) addTo(res *Result)    { res.Queues = append(res.Queues, *q) }
func (b *Barrier) addTo(res *Result)  { res.Barriers = append(res.Barriers, *b) }

func (l *Lock) members() []*Contender { return memberPtrs(l.Holders, l.Waiters) }
func (e *Election) members() []*Contender {
	out := memberPtrs(e.Candidates)
	if e.Leader != nil {
		out = append(out, e.Leader)
	}
	return out
}
func (q *Queue) members() []*Contender   { return nil }
func (b *Barrier) members() []*Contender { return memberPtrs(b.Participants) }
func (g *Group) members() []*Contender   { return memberPtrs(g.Members) }

func memberPtrs(lists ...[]Contender) []*Contender {
	var out []*Contender
	for _, l := range lists {
		for i := range l {
			out = append(out, &l[i])
		}
	}
	return out
}

// settle fills in what the recognisers leave to the recipe: a
// contender's format, when its name alone does not say, is the recipe's.
func settle(r Recipe) {
	format := r.Info().Format
	for _, c := range r.members() {
		if c.Format == "" {
			c.Format = format
		}
	}
}
