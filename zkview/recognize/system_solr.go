package recognize

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// SolrCloud, as solr/core LeaderElector.java, OverseerElectionContext.java
// and ZkDistributedQueue lay it out under Solr's chroot:
//
//	overseer_elect/election/<session>-<node>-n_SEQ   the overseer election: ephemeral
//	    sequential, no data, <session> the owner's session id in decimal; the
//	    lowest leads, each other watches its predecessor (getData)
//	overseer_elect/leader            ephemeral, {"id": the leader's election node}
//	collections/<c>/leader_elect/<shard>/election/<session>-<core_node>-n_SEQ
//	collections/<c>/leaders/<shard>/leader   ephemeral, the shard leader's core properties
//	overseer/queue, overseer/queue-work, overseer/collection-queue-work   qn-SEQ work queues
//	live_nodes/<host:port_context>   ephemeral, the live Solr nodes
const solrSystemName = "solr"

var solrSystem = systemRecognizer{
	name: solrSystemName,
	candidate: func(d listedDir) bool {
		switch b := base(d.path); {
		case b == "election" && (parent(d.path) == "overseer_elect" || grand(d.path) == "leader_elect"):
			return true
		case b == "leader" && len(d.names) == 0 && (parent(d.path) == "overseer_elect" || grand(d.path) == "leaders"):
			return true
		case b == "live_nodes":
			return true
		case parent(d.path) == "overseer" && (b == "queue" || b == "queue-work" || b == "collection-queue-work" || b == "collection-map-running"):
			return true
		}
		return false
	},
	recognize: func(rc *recognizer, ctx context.Context, d listedDir) (Recipe, bool, error) {
		switch b := base(d.path); {
		case b == "election":
			return rc.solrElection(ctx, d)
		case b == "leader":
			// The leader's node: recognised as its election.
			election := path.Join(path.Dir(d.path), "election")
			if grand(d.path) == "leaders" {
				election = path.Join(up(d.path, 3), "leader_elect", parent(d.path), "election")
			}
			children, stat, err := rc.list(ctx, election)
			if err != nil || stat == nil {
				return nil, err != nil, err
			}
			return rc.solrElection(ctx, newListedDir(election, stat, children))
		case b == "live_nodes":
			return rc.solrLiveNodes(ctx, d)
		}
		return rc.solrQueue(ctx, d)
	},
}

// solrElectionName is one election node's name read: the owner's session
// (decimal), the candidate's id (node name or core node) and the sequence.
type solrElectionName struct {
	childName
	session int64
	id      string
}

// parseSolrElection reads "<session>-<id>-n_SEQ" as LeaderElector's
// patterns do (the session is up to the first '-').
func parseSolrElection(n childName) (solrElectionName, bool) {
	i := strings.LastIndex(n.Name, "-n_")
	if i < 0 || !n.HasSeq || len(n.Name)-i-3 < 10 {
		return solrElectionName{}, false
	}
	head := n.Name[:i]
	sess, id, ok := strings.Cut(head, "-")
	if !ok {
		return solrElectionName{}, false
	}
	s, err := strconv.ParseInt(sess, 10, 64)
	if err != nil {
		return solrElectionName{}, false
	}
	return solrElectionName{childName: n, session: s, id: id}, true
}

// solrElection reads an overseer or shard leader election.
func (rc *recognizer) solrElection(ctx context.Context, d listedDir) (Recipe, bool, error) {
	var names []childName
	var parsed = map[string]solrElectionName{}
	var foreign []childName
	for _, n := range d.names {
		if p, ok := parseSolrElection(n); ok {
			names = append(names, n)
			parsed[n.Name] = p
		} else {
			foreign = append(foreign, n)
		}
	}
	if len(names) == 0 && len(foreign) > 0 {
		return nil, false, nil
	}
	sortBySeq(names)
	ms, err := rc.readMembers(ctx, d.path, names)
	if err != nil {
		return nil, true, err
	}
	t := SystemTag{System: solrSystemName, Role: "overseer", SystemRoot: up(d.path, 2)}
	leaderNode := path.Join(path.Dir(d.path), "leader")
	if parent(d.path) != "overseer_elect" {
		// collections/<c>/leader_elect/<shard>/election
		t = SystemTag{System: solrSystemName, Role: "shard-leader", SystemRoot: up(d.path, 5)}
		leaderNode = path.Join(up(d.path, 3), "leaders", parent(d.path), "leader")
	}
	e := &Election{Path: d.path, Format: solrSystemName, SystemTag: t, Candidates: []Contender{}}
	b := rc.build(d.path)
	for i, m := range ms {
		p := parsed[m.Name]
		if i == 0 {
			leader := b.holder(m, m.Name, "leader", false)
			leader.Data = p.id
			e.Leader = &leader
		} else {
			c := b.waiter(m, m.Name, ms[i-1].Name, true)
			c.Data = p.id
			e.Candidates = append(e.Candidates, c)
		}
		if m.session() != 0 && m.session() != p.session {
			b.warnf("%s names session %d but session %s owns it: a registration left from an earlier session", m.Name, p.session, sessionText(m.session()))
		}
	}
	b.checkOrphans(ms, "")
	b.checkForeign(foreign, "", "Solr election")
	// The leader's own node says who took over.
	data, stat, err := rc.get(ctx, leaderNode)
	if err != nil {
		return nil, true, err
	}
	rel := strings.TrimPrefix(leaderNode, t.SystemRoot+"/")
	switch {
	case stat == nil && e.Leader != nil:
		b.warnf("no %s: the first in line (%s) has not taken over", rel, e.Leader.Data)
	case stat != nil:
		m := jsonObject(data)
		if id := jsonString(m, "id"); id != "" && e.Leader != nil && id != e.Leader.Node {
			b.warnf("%s names %s but %s is first in line", rel, id, e.Leader.Node)
		}
		if core := jsonString(m, "core_node_name"); core != "" && e.Leader != nil && core != e.Leader.Data {
			b.warnf("%s names %s but %s is first in line", rel, core, e.Leader.Data)
		}
		if e.Leader != nil && stat.EphemeralOwner != 0 && stat.EphemeralOwner != e.Leader.SessionID {
			b.warnf("%s belongs to session %s, not the first in line's (%s)", rel, sessionText(stat.EphemeralOwner), e.Leader.Session)
		}
		if e.Leader == nil {
			b.warnf("%s exists but nobody is in the election", rel)
		}
	}
	e.Alarms = b.leaderAlarms(e)
	e.Warnings = b.warn
	return e, true, nil
}

// solrLiveNodes reads live_nodes: the live Solr nodes.
func (rc *recognizer) solrLiveNodes(ctx context.Context, d listedDir) (Recipe, bool, error) {
	for _, n := range d.names {
		if !strings.Contains(n.Name, "_") || !strings.Contains(n.Name, ":") {
			return nil, false, nil // Solr names nodes host:port_context
		}
	}
	g, err := rc.group(ctx, d, solrSystemName, SystemTag{System: solrSystemName, Role: "live-nodes", SystemRoot: path.Dir(d.path)}, nil)
	return g, true, err
}

// solrQueue reads an overseer work queue (qn-SEQ, ZkDistributedQueue).
func (rc *recognizer) solrQueue(ctx context.Context, d listedDir) (Recipe, bool, error) {
	var items, foreign []childName
	for _, n := range d.names {
		if n.Kind == kindZKQueue {
			items = append(items, n)
		} else {
			foreign = append(foreign, n)
		}
	}
	role := map[string]string{"queue": "overseer-queue", "queue-work": "overseer-work-queue",
		"collection-queue-work": "collection-work-queue", "collection-map-running": "collection-running"}[base(d.path)]
	return rc.systemQueue(ctx, d, items, foreign, SystemTag{System: solrSystemName, Role: role, SystemRoot: up(d.path, 2)},
		func(name string, data []byte) string {
			m := jsonObject(data)
			if op := jsonString(m, "operation"); op != "" {
				return fmt.Sprintf("%s %s", op, queueData(data))
			}
			return queueData(data)
		})
}
