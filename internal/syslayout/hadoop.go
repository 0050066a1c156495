package syslayout

import (
	"context"
	"path"
)

// The Hadoop HA layout: HDFS nameservice ns1 (nn1 active, nn2 standby) and
// YARN cluster yarn-cluster (rm1 active, rm2 standby, its breadcrumb still
// naming rm2: a failover not yet fenced).
const (
	HDFSNameservice = "ns1"
	YARNCluster     = "yarn-cluster"
)

// Hadoop lays out the Hadoop HA elector (hadoop-common ActiveStandbyElector:
// <parent>/ActiveStandbyElectorLock, ephemeral, holding the application's
// bytes, and ActiveBreadCrumb, persistent, the last active's) for HDFS
// (ha.zookeeper.parent-znode /hadoop-ha, then the nameservice; the ZKFC
// writes hadoop.hdfs.ActiveNodeInfo, HAZKInfo.proto) and YARN
// (/yarn-leader-election, then the cluster id; the ResourceManager writes
// hadoop.yarn.ActiveRMInfoProto). Standbys watch the lock.
func (l *Layout) Hadoop(ctx context.Context, root string) error {
	nn := func(id, host string) PB {
		return PB{}.String(1, HDFSNameservice).String(2, id).String(3, host).Int(4, 8020).Int(5, 8019)
	}
	hdfs := path.Join(root, "hadoop-ha", HDFSNameservice)
	if _, err := l.ephemeral(ctx, "zkfc-nn1", path.Join(hdfs, "ActiveStandbyElectorLock"), nn("nn1", "namenode-1"), false); err != nil {
		return err
	}
	if err := l.persistent(ctx, path.Join(hdfs, "ActiveBreadCrumb"), nn("nn1", "namenode-1")); err != nil {
		return err
	}
	if err := l.watch("zkfc-nn2", path.Join(hdfs, "ActiveStandbyElectorLock")); err != nil {
		return err
	}
	rm := func(id string) PB { return PB{}.String(1, YARNCluster).String(2, id) }
	yarn := path.Join(root, "yarn-leader-election", YARNCluster)
	if _, err := l.ephemeral(ctx, "yarn-rm1", path.Join(yarn, "ActiveStandbyElectorLock"), rm("rm1"), false); err != nil {
		return err
	}
	if err := l.persistent(ctx, path.Join(yarn, "ActiveBreadCrumb"), rm("rm2")); err != nil {
		return err
	}
	return l.watch("yarn-rm2", path.Join(yarn, "ActiveStandbyElectorLock"))
}
