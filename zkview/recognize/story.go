package recognize

import (
	"path"
	"sort"
)

// SessionStory is what one session does in the recognised recipes: what
// it holds, where it waits (and behind whom), what it leads or stands in,
// which groups it is a member of, the queue items it has taken, the
// deadlocks it is in, and its ephemeral nodes no recipe accounts for.
type SessionStory struct {
	Session string `json:"-"`
	// Holds: it holds a lock, a lease, or leads an election.
	Holds []SessionPart `json:"holds"`
	// Waits: it waits in a lock's queue or stands in an election.
	Waits []SessionPart `json:"waits"`
	// Members: it is a member of a group, a participant of a barrier.
	Members []SessionPart `json:"members"`
	// Items are the queue items it has taken and not yet consumed (a
	// Kazoo LockingQueue's taken/ marks).
	Items []SessionItem `json:"items"`
	// Deadlocks are the cycles of sessions it is in.
	Deadlocks []string `json:"deadlocks"`
	// Others are its ephemeral nodes that are none of the above.
	Others []string `json:"other_ephemerals"`
}

// SessionPart is one place a session has in a recipe.
type SessionPart struct {
	Path   string `json:"path"`
	Recipe string `json:"recipe"` // mutex, rwlock, semaphore, election, members, barrier…
	Format string `json:"format"` // the recipe's
	// Role and Position are where it stands (Place).
	Role      string    `json:"role"`
	Position  int       `json:"position,omitempty"`
	Contender Contender `json:"contender"`
	// Behind are those it waits for, nearest first, up to the one that
	// holds or leads (AheadOf); empty for those that hold.
	Behind []Contender `json:"behind,omitempty"`
	// Lineup is every place of the recipe, for whoever words Behind.
	Lineup []Place `json:"-"`
}

// SessionItem is a queue item a session has taken.
type SessionItem struct {
	Queue string    `json:"queue"`
	Item  QueueItem `json:"item"`
	// Mark is the ephemeral node that says it took it.
	Mark string `json:"mark"`
}

// StoryOf tells what session does in res, given its ephemeral nodes (as
// the servers list them, full paths) and the deadlocks found in res (see
// Deadlocks).
func StoryOf(res *Result, session int64, ephemerals []string, deadlocks []Deadlock) SessionStory {
	st := SessionStory{Session: sessionText(session), Holds: []SessionPart{}, Waits: []SessionPart{}, Members: []SessionPart{},
		Items: []SessionItem{}, Deadlocks: []string{}, Others: []string{}}
	accounted := map[string]bool{}
	for _, r := range res.All() {
		info := r.Info()
		places := r.Lineup()
		for _, p := range places {
			if p.SessionID != session {
				continue
			}
			if p.Node != "" {
				accounted[ContenderPath(info.Path, p.Node)] = true
			}
			part := SessionPart{Path: info.Path, Recipe: info.Kind, Format: info.Format, Role: p.Role, Position: p.Position, Contender: p.Contender, Lineup: places}
			switch p.Role {
			case RoleHolder, RoleLease, RoleLeader:
				st.Holds = append(st.Holds, part)
			case RoleWaiter, RoleCandidate:
				for _, a := range AheadOf(places, p.Contender) {
					part.Behind = append(part.Behind, a.Contender)
				}
				st.Waits = append(st.Waits, part)
			default:
				st.Members = append(st.Members, part)
			}
		}
	}
	mine := map[string]bool{}
	for _, e := range ephemerals {
		mine[e] = true
	}
	for _, q := range res.Queues {
		for _, it := range q.Items {
			mark := path.Join(q.Path, "taken", path.Base(it.Node))
			if it.Taken && mine[mark] {
				st.Items = append(st.Items, SessionItem{Queue: q.Path, Item: it, Mark: mark})
				accounted[mark] = true
			}
		}
	}
	for _, d := range deadlocks {
		for _, l := range d.Links {
			if l.SessionID == session {
				st.Deadlocks = append(st.Deadlocks, d.Text())
			}
		}
	}
	for _, e := range ephemerals {
		if !accounted[e] {
			st.Others = append(st.Others, e)
		}
	}
	sort.Strings(st.Others)
	return st
}
