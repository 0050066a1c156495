package recognize

// Place is one contender of a recipe where it stands: its role and, for
// those in line, its position.
type Place struct {
	// Role is holder, waiter, lease, leader, candidate, participant or
	// member.
	Role string
	// Position is where it stands among the waiters or candidates, from
	// 1; 0 for the others.
	Position int
	Contender
}

// Holding reports whether the place lets its contender in: a holder, a
// lease holder, the leader.
func (p Place) Holding() bool {
	return p.Role == RoleHolder || p.Role == RoleLease || p.Role == RoleLeader
}

// The roles of a Place.
const (
	RoleHolder      = "holder"
	RoleWaiter      = "waiter"
	RoleLease       = "lease"
	RoleLeader      = "leader"
	RoleCandidate   = "candidate"
	RoleParticipant = "participant"
	RoleMember      = "member"
)

// Lineup implements Recipe.
func (l *Lock) Lineup() []Place {
	out := make([]Place, 0, len(l.Holders)+len(l.Waiters))
	for _, c := range l.Holders {
		role := RoleHolder
		if c.Kind == "lease" {
			role = RoleLease
		}
		out = append(out, Place{Role: role, Contender: c})
	}
	for i, c := range l.Waiters {
		out = append(out, Place{Role: RoleWaiter, Position: i + 1, Contender: c})
	}
	return out
}

// Lineup implements Recipe: the leader, then the candidates in line.
func (e *Election) Lineup() []Place {
	out := make([]Place, 0, len(e.Candidates)+1)
	if e.Leader != nil {
		out = append(out, Place{Role: RoleLeader, Contender: *e.Leader})
	}
	n := 0
	for _, c := range e.Candidates {
		if e.Leader != nil && c.Node == e.Leader.Node {
			continue
		}
		n++
		out = append(out, Place{Role: RoleCandidate, Position: n, Contender: c})
	}
	return out
}

// Lineup implements Recipe: a queue's items are not contenders.
func (q *Queue) Lineup() []Place { return nil }

// Lineup implements Recipe.
func (b *Barrier) Lineup() []Place {
	out := make([]Place, 0, len(b.Participants))
	for _, c := range b.Participants {
		out = append(out, Place{Role: RoleParticipant, Contender: c})
	}
	return out
}

// Lineup implements Recipe.
func (g *Group) Lineup() []Place {
	out := make([]Place, 0, len(g.Members))
	for _, c := range g.Members {
		out = append(out, Place{Role: RoleMember, Contender: c})
	}
	return out
}

// How the waiters of a lineup wait (LineOf).
const (
	// LineChain: each waiter watches the one just before it, so a release
	// wakes one.
	LineChain = "chain"
	// LineHerd: the waiters have no node of their own and all watch the
	// holder's one node, so a release wakes them all.
	LineHerd = "herd"
)

// LineOf says how the waiters of a lineup wait: LineChain, LineHerd, or ""
// when neither (readers sharing a lock, a semaphore's waiters, no waiter).
func LineOf(places []Place) string {
	if len(places) < 2 || !places[0].Holding() || places[1].Holding() {
		return ""
	}
	herd, chain := true, true
	for i := 1; i < len(places); i++ {
		c := places[i].Contender
		herd = herd && c.Node == "" && c.WaitsFor == places[0].Node
		chain = chain && !places[i].Holding() && c.WaitsFor == places[i-1].Node
	}
	switch {
	case herd:
		return LineHerd
	case chain:
		return LineChain
	}
	return ""
}

// AheadOf are the places a waiter (or candidate) waits for, nearest
// first: the one it watches, the one that one watches, and so on up to
// one that holds (or leads); empty when what it watches is no contender
// of the lineup (a semaphore's waiter watching the leases).
func AheadOf(places []Place, c Contender) []Place {
	byNode := map[string]Place{}
	for _, p := range places {
		if p.Node != "" {
			byNode[p.Node] = p
		}
	}
	var out []Place
	seen := map[string]bool{c.Node: true}
	for next := c.WaitsFor; next != "" && !seen[next]; {
		p, ok := byNode[next]
		if !ok {
			break
		}
		seen[next] = true
		out = append(out, p)
		if p.Holding() {
			break
		}
		next = p.WaitsFor
	}
	return out
}
