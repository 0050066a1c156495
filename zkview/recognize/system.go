package recognize

import (
	"context"
	"encoding/json"
	"path"
	"strings"
)

// Systems that run on ZooKeeper keep their own coordination nodes: a
// controller, an active master, an overseer, live members, work queues.
// Each system's knowledge — where its nodes are (found by the shape of the
// tree around them, under any chroot or prefix), what they mean and how
// their bytes decode — is one file, system_<name>.go, whose recogniser is
// listed in systemRecognizers. A recogniser returns the recipe it makes of
// a directory (or a leaf) with its SystemTag set; the recipe is typed as
// every other (Lock, Election, Queue, Group), so every viewer shows it.

// systemRecognizer is one system's recogniser.
type systemRecognizer struct {
	name string
	// candidate reports, by names alone, whether d may be one of the
	// system's nodes (a walk recognises only candidates).
	candidate func(d listedDir) bool
	// recognize makes the system's recipe of d; ok is false when d is
	// not the system's.
	recognize func(rc *recognizer, ctx context.Context, d listedDir) (r Recipe, ok bool, err error)
}

// systemRecognizers are tried in order; the first that claims a
// directory wins. A new system is added here.
var systemRecognizers = []systemRecognizer{
	kafkaSystem, hbaseSystem, hadoopSystem, solrSystem, helixSystem,
	clickhouseSystem, bookkeeperSystem, discoverySystem,
}

// systemCandidate reports whether some system may claim d.
func systemCandidate(d listedDir) bool {
	for _, s := range systemRecognizers {
		if s.candidate(d) {
			return true
		}
	}
	return false
}

// system recognises d as a known system's node.
func (rc *recognizer) system(ctx context.Context, d listedDir) (Recipe, bool, error) {
	for _, s := range systemRecognizers {
		if !s.candidate(d) {
			continue
		}
		r, ok, err := s.recognize(rc, ctx, d)
		if err != nil || ok {
			return r, true, err
		}
	}
	return nil, false, nil
}

// tag sets a recipe's SystemTag.
func tag(r Recipe, t SystemTag) {
	switch r := r.(type) {
	case *Lock:
		r.SystemTag = t
	case *Election:
		r.SystemTag = t
	case *Queue:
		r.SystemTag = t
	case *Barrier:
		r.SystemTag = t
	case *Group:
		r.SystemTag = t
	case *Partitioner:
		r.SystemTag = t
	case *Lease:
		r.SystemTag = t
	case *Counter:
		r.SystemTag = t
	case *TTLNode:
		r.SystemTag = t
	}
}

// pathTags name the systems whose recipes are found at well-known places,
// each by the last components of the recipe's path and the depth of the
// system's root above it: Storm's Nimbus leader latch
// (storm.zookeeper.root + "/leader-lock", storm-server Zookeeper.java),
// Druid's Coordinator and Overlord latches (druid.zk.paths.coordinatorPath
// + "/_COORDINATOR", druid.zk.paths.indexer.leaderLatchPath; Druid's
// ZooKeeper documentation, IndexerZkConfig.java).
var pathTags = []struct {
	suffix       string
	system, role string
	up           int // the root is this many levels above the recipe
}{
	{"/leader-lock", "storm", "nimbus-leader", 1},
	{"/coordinator/_COORDINATOR", "druid", "coordinator-leader", 2},
	{"/indexer/leaderLatchPath", "druid", "overlord-leader", 2},
}

// systemWords are names that, as a component of a recipe's path, say
// whose the recipe is when no recogniser claimed it: Curator's latches and
// locks are used by many systems under their own root.
var systemWords = []string{"storm", "druid", "nifi", "flink", "pinot", "drill", "hive", "kylin", "pulsar",
	"dolphinscheduler", "mesos", "marathon", "accumulo", "zeppelin", "seatunnel", "shardingsphere"}

// tagByPath names the system of a library's recipe where its path says
// it: a well-known place, or a path component naming the system.
func tagByPath(r Recipe) {
	info := r.Info()
	if info.System != "" {
		return
	}
	p := info.Path
	for _, t := range pathTags {
		if strings.HasSuffix(p, t.suffix) {
			tag(r, SystemTag{System: t.system, Role: t.role, SystemRoot: up(p, t.up)})
			return
		}
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i := len(parts) - 2; i >= 0; i-- {
		for _, w := range systemWords {
			if strings.EqualFold(parts[i], w) {
				root := "/" + strings.Join(parts[:i+1], "/")
				tag(r, SystemTag{System: w, Role: info.Kind, SystemRoot: root})
				return
			}
		}
	}
}

// up is p's ancestor n levels above it.
func up(p string, n int) string {
	for ; n > 0; n-- {
		p = path.Dir(p)
	}
	return p
}

// base, parent and grand name a path's last three components.
func base(p string) string   { return path.Base(p) }
func parent(p string) string { return path.Base(path.Dir(p)) }
func grand(p string) string  { return path.Base(path.Dir(path.Dir(p))) }

// jsonObject parses data as a JSON object (nil when it is not one).
func jsonObject(data []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil
	}
	return m
}

// jsonString returns a string field of a JSON object.
func jsonString(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// jsonInt returns an integer field of a JSON object.
func jsonInt(m map[string]any, key string) (int64, bool) {
	f, ok := m[key].(float64)
	return int64(f), ok
}

// group reads a directory of ephemeral members: each child is a member,
// described by describe (its data → what to show; "" shows the name); the
// persistent children named in skip are not members.
func (rc *recognizer) group(ctx context.Context, d listedDir, format string, t SystemTag, describe func(name string, data []byte) string, skip ...string) (*Group, error) {
	var names []childName
	for _, n := range d.names {
		if !containsString(skip, n.Name) {
			names = append(names, n)
		}
	}
	ms, err := rc.readMembers(ctx, d.path, names)
	if err != nil {
		return nil, err
	}
	g := &Group{Path: d.path, Format: format, SystemTag: t, Members: []Contender{}}
	b := rc.build(d.path)
	for _, m := range ms {
		c := b.contender(m, m.Name)
		if describe != nil {
			if s := describe(m.Name, m.data); s != "" {
				c.Data = s
			}
		}
		if m.session() == 0 {
			b.warnf("member %s is a persistent node: it stays when its process goes", m.Name)
		} else {
			b.checkConnected(c, "member")
		}
		g.Members = append(g.Members, c)
	}
	g.Warnings = b.warn
	return g, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sessionMembers maps the sessions owning a group's members to their
// names: who a watcher is, when it is also a member.
func sessionMembers(g *Group) map[int64]string {
	out := map[int64]string{}
	if g == nil {
		return out
	}
	for _, m := range g.Members {
		if m.SessionID != 0 {
			out[m.SessionID] = m.Node
		}
	}
	return out
}
