package syslayout

import (
	"context"
	"path"
	"strconv"
)

// HelixCluster is the Helix cluster of the layout.
const HelixCluster = "orders-cluster"

// znRecord is Helix's ZNRecord as ZNRecordSerializer writes it (Jackson:
// id, simpleFields, listFields, mapFields).
func znRecord(id string, simple map[string]string) []byte {
	return javaJSON(map[string]any{"id": id, "simpleFields": simple, "listFields": map[string]any{}, "mapFields": map[string]any{}})
}

// Helix lays out a Helix cluster under root: <cluster>/CONTROLLER/LEADER
// (ephemeral, a LiveInstance ZNRecord whose SESSION_ID is the leader's
// session in hex, ZKUtil.toHexSessionId; helix-core DistributedLeaderElection
// .java) with a standby controller watching it, and participants in
// <cluster>/LIVEINSTANCES (ephemeral ZNRecords; PropertyType.java).
func (l *Layout) Helix(ctx context.Context, root string) error {
	record := func(client, id, host string) ([]byte, error) {
		sid, err := l.sessionID(client)
		if err != nil {
			return nil, err
		}
		return znRecord(id, map[string]string{"HELIX_VERSION": "1.0.4", "LIVE_INSTANCE": "4711@" + host,
			"SESSION_ID": strconv.FormatInt(sid, 16)}), nil
	}
	cluster := path.Join(root, HelixCluster)
	leader, err := record("helix-controller-1", "controller-1", "ctrl-host-1")
	if err != nil {
		return err
	}
	if _, err := l.ephemeral(ctx, "helix-controller-1", path.Join(cluster, "CONTROLLER/LEADER"), leader, false); err != nil {
		return err
	}
	if err := l.watch("helix-controller-2", path.Join(cluster, "CONTROLLER/LEADER")); err != nil {
		return err
	}
	for _, p := range []string{"participant_1", "participant_2"} {
		rec, err := record("helix-"+p, p, p+".example.com")
		if err != nil {
			return err
		}
		if _, err := l.ephemeral(ctx, "helix-"+p, path.Join(cluster, "LIVEINSTANCES", p), rec, false); err != nil {
			return err
		}
	}
	return nil
}
