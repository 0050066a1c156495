package present

import (
	"strings"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// Outcome says, plainly, what a force-release left: after the released
// node of before was deleted, the lock read again (after; nil when its
// directory went with its last node) — who holds now (and who took over),
// who still waits and on whom, who may believe it holds. One sentence a
// line.
func Outcome(before *recognize.Lock, released recognize.Contender, after *recognize.Lock) []string {
	if after == nil || len(after.Holders)+len(after.Waiters) == 0 {
		return []string{"the lock is free: nobody holds it and nobody waits"}
	}
	held := map[string]bool{}
	for _, h := range before.Holders {
		held[h.Node] = h.Node != released.Node
	}
	var out []string
	for _, h := range after.Holders {
		if held[h.Node] {
			out = append(out, display.Line(Who(h)+" still holds"))
		} else {
			out = append(out, display.Line(Who(h)+" took over: it holds now"))
		}
	}
	if len(after.Holders) == 0 {
		out = append(out, "nobody holds the lock now")
	}
	places := after.Lineup()
	for _, w := range after.Waiters {
		line := "the " + Who(w) + " still waits"
		if on := WaitsOn(places, w); on != "" {
			line += ": " + on
		}
		if w.MayHold {
			line += "; it may believe it holds: it " + w.MayHoldReason
		}
		out = append(out, display.Line(line))
	}
	return out
}

// Who names a contender of a lock in a sentence, its role in the lock
// first: "writer curator __WRIT__0000000002 (session 0x…)", "kazoo
// __lock__0000000001 (session 0x…)", "lease curator leases/lease-0000000003
// (session 0x…)".
func Who(c recognize.Contender) string {
	switch c.Kind {
	case "read":
		return "reader " + c.Name()
	case "write":
		return "writer " + c.Name()
	case "lease":
		return "lease " + c.Name()
	}
	return c.Name()
}

// WaitsOn says on whom a waiter waits: the contenders along its chain of
// watches, up to one that holds — "writer … waits ahead of it; reader …
// holds" — or what it watches when that is no contender (a semaphore's
// leases); "" when it watches nothing.
func WaitsOn(places []recognize.Place, w recognize.Contender) string {
	ahead := recognize.AheadOf(places, w)
	if len(ahead) == 0 {
		if w.WaitsFor == "" {
			return ""
		}
		return "it watches " + recognize.BareName(w.WaitsFor)
	}
	var out []string
	for _, p := range ahead {
		switch {
		case p.Role == recognize.RoleLeader:
			out = append(out, Who(p.Contender)+" leads")
		case p.Holding():
			out = append(out, Who(p.Contender)+" holds")
		default:
			out = append(out, Who(p.Contender)+" waits ahead of it")
		}
	}
	return strings.Join(out, "; ")
}
