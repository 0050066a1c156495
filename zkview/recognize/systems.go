package recognize

import (
	"sort"
)

// SystemSummary is one system instance (a system at one root) as the
// recognised objects show it: who leads, who is a member, what waits in
// its queues, and what is wrong.
type SystemSummary struct {
	System   string          `json:"system"`
	Root     string          `json:"root"`
	Leaders  []SystemLeader  `json:"leaders"`
	Members  []SystemMembers `json:"members"`
	Queues   []SystemQueue   `json:"queues"`
	Warnings []string        `json:"warnings"`
}

// SystemLeader is one election (or lock) of a system: its leader (nil
// when nobody leads) and those in line.
type SystemLeader struct {
	Role       string      `json:"role"`
	Path       string      `json:"path"`
	Leader     *Contender  `json:"leader"`
	Candidates []Contender `json:"candidates"`
}

// SystemMembers is one membership directory of a system.
type SystemMembers struct {
	Role    string      `json:"role"`
	Path    string      `json:"path"`
	Members []Contender `json:"members"`
}

// SystemQueue is one queue of a system: how many items wait, and the
// first of them.
type SystemQueue struct {
	Role    string      `json:"role"`
	Path    string      `json:"path"`
	Pending int         `json:"pending"`
	Items   []QueueItem `json:"items"`
}

// systemQueueItems is how many items of a queue a summary carries.
const systemQueueItems = 3

// Systems groups the recognised objects of known systems by system and
// root, in order of system then root; each object's warnings are the
// system's, prefixed by the object's path. Plain recipes are left out.
func Systems(res Result) []SystemSummary {
	byKey := map[[2]string]*SystemSummary{}
	var keys [][2]string
	for _, r := range res.All() {
		info := r.Info()
		if info.System == "" {
			continue
		}
		k := [2]string{info.System, info.SystemRoot}
		s := byKey[k]
		if s == nil {
			s = &SystemSummary{System: info.System, Root: info.SystemRoot, Leaders: []SystemLeader{},
				Members: []SystemMembers{}, Queues: []SystemQueue{}, Warnings: []string{}}
			byKey[k] = s
			keys = append(keys, k)
		}
		switch v := r.(type) {
		case *Election:
			s.Leaders = append(s.Leaders, SystemLeader{Role: info.Role, Path: v.Path, Leader: v.Leader, Candidates: nonNilContenders(v.Candidates)})
		case *Lock:
			l := SystemLeader{Role: info.Role, Path: v.Path, Candidates: nonNilContenders(v.Waiters)}
			if len(v.Holders) > 0 {
				h := v.Holders[0]
				l.Leader = &h
			}
			s.Leaders = append(s.Leaders, l)
		case *Group:
			s.Members = append(s.Members, SystemMembers{Role: info.Role, Path: v.Path, Members: nonNilContenders(v.Members)})
		case *Queue:
			items := v.Items[:min(len(v.Items), systemQueueItems)]
			s.Queues = append(s.Queues, SystemQueue{Role: info.Role, Path: v.Path, Pending: v.Length, Items: append([]QueueItem{}, items...)})
		}
		for _, w := range info.Warnings {
			s.Warnings = append(s.Warnings, info.Path+": "+w)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	out := make([]SystemSummary, 0, len(keys))
	for _, k := range keys {
		out = append(out, *byKey[k])
	}
	return out
}
