package recognize

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// recFormatEphemeralNode is the format of a lock or a leadership held as
// one ephemeral node: ZooKeeper's recipe documentation's exclusive lock,
// Redis-style spin locks over ZooKeeper, a /leader or /master node.
const recFormatEphemeralNode = "ephemeral-node"

// ephemeralNodeRecipe says what a single node named name would be if it
// is ephemeral: a mutex ("lock", "jobLock", "db_lock", "run.lock"), an
// election ("leader", "master", "controller", "shardLeader"), or "" for
// neither. The rest of the name does not matter; only how it ends.
func ephemeralNodeRecipe(name string) string {
	for _, w := range []struct{ word, recipe string }{
		{"lock", recMutex}, {"mutex", recMutex},
		{"leader", recElection}, {"master", recElection}, {"controller", recElection},
	} {
		if len(name) < len(w.word) {
			continue
		}
		rest, end := name[:len(name)-len(w.word)], name[len(name)-len(w.word):]
		if !strings.EqualFold(end, w.word) {
			continue
		}
		if rest == "" {
			return w.recipe
		}
		// A word of its own: after a separator, or capitalised in camel
		// case (ActiveStandbyElectorLock) — not "clock" or "deadlock".
		if sep := rest[len(rest)-1]; sep == '_' || sep == '-' || sep == '.' || ('A' <= end[0] && end[0] <= 'Z') {
			return w.recipe
		}
	}
	return ""
}

// EphemeralNodeName reports whether an ephemeral leaf of this name is
// taken for a lock or a leadership held as one node ("lock", "leader",
// "ActiveStandbyElectorLock", "master"), so that a viewer knows it is worth
// recognising.
func EphemeralNodeName(name string) bool { return ephemeralNodeRecipe(name) != "" }

// isEphemeralNodeCandidate reports whether a leaf may be one ephemeral node
// used as a lock or a leadership, from its name and, when known, its stat.
func isEphemeralNodeCandidate(d listedDir) bool {
	if len(d.names) != 0 || d.path == "/" || ephemeralNodeRecipe(path.Base(d.path)) == "" {
		return false
	}
	return d.stat == nil || (d.stat.EphemeralOwner != 0 && d.stat.NumChildren == 0)
}

// ephemeralNode recognises one ephemeral, non-sequential node as the lock
// (or the leadership) it is: its owner holds it. Whoever waits for it has
// no node of its own; it watches the node (exists or getData) and races to
// create it when it goes, so the waiters are the sessions the servers'
// watch tables show watching it, in no order: a herd, which every release
// wakes whole. Without the watch tables the waiters are not known. A
// persistent node of such a name is not a lock: nothing lets it go.
//
// Holder and waiters are named by the node's absolute path (see
// ContenderPath), so that the node's directory is among the recipe's Dirs:
// a viewer sees the node go and come back.
func (rc *recognizer) ephemeralNode(ctx context.Context, d listedDir) (Recipe, error) {
	if !isEphemeralNodeCandidate(d) {
		return nil, nil
	}
	data, stat, err := rc.get(ctx, d.path)
	if err != nil || stat == nil || stat.EphemeralOwner == 0 || stat.NumChildren != 0 {
		return nil, err
	}
	recipe := ephemeralNodeRecipe(path.Base(d.path))
	owner := childNode{childName: childName{Name: d.path}, data: data, stat: stat}
	b := rc.build(d.path)
	role := "holder"
	if recipe == recElection {
		role = "leader"
	}
	holder := b.holder(owner, d.path, role, recipe == recMutex)
	waiters := rc.watchersOf(d.path, owner.session())
	if len(waiters) > 1 {
		b.warnf("%d sessions watch %s itself: every release wakes all of them, and all race to create it (the herd effect)", len(waiters), path.Base(d.path))
	}
	if recipe == recElection {
		e := &Election{Path: d.path, Format: recFormatEphemeralNode, Leader: &holder, Candidates: nonNilContenders(waiters)}
		e.Alarms = b.leaderAlarms(e)
		e.Warnings = b.warn
		return e, nil
	}
	l := &Lock{Path: d.path, Recipe: recMutex, Format: recFormatEphemeralNode,
		Holders: []Contender{holder}, Waiters: nonNilContenders(waiters), Warnings: b.warn, Alarms: b.alarms}
	switch known := rc.opts.Tables != nil; {
	case len(waiters) > 0:
		l.handovers = map[string]string{d.path: fmt.Sprintf("one of the %d sessions watching it, whichever creates it first: a herd", len(waiters))}
	case known:
		l.handovers = map[string]string{d.path: "nobody watches it: whoever tries next creates it"}
	default:
		l.handovers = map[string]string{d.path: "whoever creates it first (who watches it is not known: the servers' watch tables were not read)"}
	}
	return l, nil
}

func nonNilContenders(cs []Contender) []Contender {
	if cs == nil {
		return []Contender{}
	}
	return cs
}

// watchersOf are the sessions the servers' watch tables show watching
// the node at p, but its owner and the viewer: those waiting for it, with
// no node of their own. Empty without the tables.
func (rc *recognizer) watchersOf(p string, owner int64) []Contender {
	t := rc.opts.Tables
	if t == nil {
		return nil
	}
	var waiters []Contender
	sessions, _ := t.Watchers(p)
	for _, s := range sessions {
		if s == owner || s == rc.opts.Viewer {
			continue // the holder's own watch, or the viewer's
		}
		c := Contender{Session: sessionText(s), SessionID: s, WaitsFor: p, Watch: WatchObserved}
		if addr, ok := t.ClientAddress(s); ok {
			c.Client = addr
		}
		waiters = append(waiters, c)
	}
	return waiters
}
