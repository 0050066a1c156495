package recognize

import (
	"context"
	"path"
	"strconv"
	"strings"
)

// Apache Helix (helix-core PropertyType.java, DistributedLeaderElection
// .java) under <cluster>:
//
//	CONTROLLER/LEADER      ephemeral: the leading controller, a LiveInstance
//	                       ZNRecord {"id", "simpleFields": {SESSION_ID (hex),
//	                       LIVE_INSTANCE (pid@host), HELIX_VERSION}}; standby
//	                       controllers watch it
//	LIVEINSTANCES/<name>   ephemeral: the live participants, ZNRecords too
const helixSystemName = "helix"

var helixSystem = systemRecognizer{
	name: helixSystemName,
	candidate: func(d listedDir) bool {
		return (base(d.path) == "LEADER" && parent(d.path) == "CONTROLLER" && len(d.names) == 0) || base(d.path) == "LIVEINSTANCES"
	},
	recognize: func(rc *recognizer, ctx context.Context, d listedDir) (Recipe, bool, error) {
		if base(d.path) == "LIVEINSTANCES" {
			return rc.helixLiveInstances(ctx, d)
		}
		return rc.helixController(ctx, d)
	},
}

// helixRecord reads a ZNRecord: its id and simple fields.
func helixRecord(data []byte) (id string, simple map[string]any, ok bool) {
	m := jsonObject(data)
	if m == nil {
		return "", nil, false
	}
	simple, _ = m["simpleFields"].(map[string]any)
	id = jsonString(m, "id")
	return id, simple, id != "" && simple != nil
}

// helixText shows a ZNRecord's instance: "controller-1 (4711@ctrl-host-1, helix 1.0.4)".
func helixText(id string, simple map[string]any) string {
	var extra []string
	if li := jsonString(simple, "LIVE_INSTANCE"); li != "" {
		extra = append(extra, li)
	}
	if v := jsonString(simple, "HELIX_VERSION"); v != "" {
		extra = append(extra, "helix "+v)
	}
	if len(extra) == 0 {
		return id
	}
	return id + " (" + strings.Join(extra, ", ") + ")"
}

// helixSessionMismatch says when a ZNRecord's SESSION_ID is not its
// node's owner: the record was written by an earlier session.
func helixSessionMismatch(simple map[string]any, owner int64) (string, bool) {
	s := jsonString(simple, "SESSION_ID")
	if s == "" || owner == 0 {
		return "", false
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err == nil && int64(v) == owner {
		return "", false
	}
	return s, true
}

func (rc *recognizer) helixController(ctx context.Context, d listedDir) (Recipe, bool, error) {
	data, stat, err := rc.get(ctx, d.path)
	if err != nil || stat == nil {
		return nil, err != nil, err
	}
	id, simple, ok := helixRecord(data)
	if !ok {
		return nil, false, nil
	}
	e := &Election{Path: d.path, Format: helixSystemName, Candidates: []Contender{},
		SystemTag: SystemTag{System: helixSystemName, Role: "controller", SystemRoot: up(d.path, 2)}}
	b := rc.build(d.path)
	leader := b.holder(childNode{childName: childName{Name: d.path}, data: data, stat: stat}, d.path, "controller", false)
	leader.Data = helixText(id, simple)
	e.Leader = &leader
	e.Candidates = nonNilContenders(rc.watchersOf(d.path, stat.EphemeralOwner))
	if s, bad := helixSessionMismatch(simple, stat.EphemeralOwner); bad {
		b.warnf("LEADER's SESSION_ID is %s but session %s owns the node: the controller that wrote it is gone", s, leader.Session)
	}
	e.Alarms = b.leaderAlarms(e)
	e.Warnings = b.warn
	return e, true, nil
}

func (rc *recognizer) helixLiveInstances(ctx context.Context, d listedDir) (Recipe, bool, error) {
	if _, st, err := rc.get(ctx, path.Join(path.Dir(d.path), "CONTROLLER")); err != nil || st == nil {
		return nil, err != nil, err // a Helix cluster has CONTROLLER beside LIVEINSTANCES
	}
	var mismatched []string
	g, err := rc.group(ctx, d, helixSystemName, SystemTag{System: helixSystemName, Role: "live-instances", SystemRoot: path.Dir(d.path)},
		func(name string, data []byte) string {
			id, simple, ok := helixRecord(data)
			if !ok {
				return ""
			}
			return helixText(id, simple)
		})
	if err != nil {
		return nil, true, err
	}
	for _, m := range g.Members {
		data, _, err := rc.get(ctx, path.Join(d.path, m.Node))
		if err != nil {
			continue
		}
		if _, simple, ok := helixRecord(data); ok {
			if _, bad := helixSessionMismatch(simple, m.SessionID); bad {
				mismatched = append(mismatched, m.Node)
			}
		}
	}
	if len(mismatched) > 0 {
		g.Warnings = append(g.Warnings, "SESSION_ID is not the owning session for "+listShort(mismatched)+": records left by earlier sessions")
	}
	return g, true, nil
}
