package syslayout

import (
	"context"
	"fmt"
	"path"
)

// Storm lays out Nimbus's leader election under root (storm.zookeeper.root):
// a Curator LeaderLatch at <root>/leader-lock whose id is the Nimbus's
// host:port (storm-server LeaderElectorImp / Zookeeper.java).
func (l *Layout) Storm(ctx context.Context, root string) error {
	return l.latch(ctx, path.Join(root, "leader-lock"), "nimbus", []string{"nimbus-1:6627", "nimbus-2:6627"})
}

// Druid lays out Druid's leader latches under root (druid.zk.paths.base):
// the Coordinator's at <base>/coordinator/_COORDINATOR and the Overlord's
// at <base>/indexer/leaderLatchPath (Druid's ZooKeeper documentation and
// IndexerZkConfig.java), Curator LeaderLatches whose ids are the nodes'
// URLs.
func (l *Layout) Druid(ctx context.Context, root string) error {
	if err := l.latch(ctx, path.Join(root, "coordinator/_COORDINATOR"), "druid-coordinator",
		[]string{"http://druid-coord-1:8081", "http://druid-coord-2:8081"}); err != nil {
		return err
	}
	return l.latch(ctx, path.Join(root, "indexer/leaderLatchPath"), "druid-overlord",
		[]string{"http://druid-overlord-1:8090"})
}

// latch lays out a Curator LeaderLatch (curator-recipes LeaderLatch.java:
// "latch-" nodes, protected, so "_c_<uuid>-latch-SEQ", ephemeral
// sequential, holding the participant's id; each watches its predecessor
// with getData).
func (l *Layout) latch(ctx context.Context, dir, client string, ids []string) error {
	var prev string
	for i, id := range ids {
		name := fmt.Sprintf("%s-%d", client, i+1)
		uuid := InstanceID(0x100+i, len(dir), l.Started)
		p, err := l.ephemeral(ctx, name, path.Join(dir, "_c_"+uuid+"-latch-"), []byte(id), true)
		if err != nil {
			return err
		}
		if prev != "" {
			if err := l.watch(name, prev); err != nil {
				return err
			}
		}
		prev = p
	}
	return nil
}
