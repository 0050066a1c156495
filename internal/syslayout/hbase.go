package syslayout

import (
	"context"
	"fmt"
	"path"
)

// HBase's masters and region servers in the layout.
const (
	HBaseActiveMaster = "hmaster-1"
	HBaseBackupMaster = "hmaster-2"
)

// hbaseServerName is hbase.pb.ServerName (HBase.proto): host_name = 1,
// port = 2, start_code = 3.
func hbaseServerName(host string, port, start int64) PB {
	return PB{}.String(1, host).Varint(2, uint64(port)).Varint(3, uint64(start))
}

// HBaseServerName is the name HBase gives a server's znodes
// (ServerName.toString: "host,port,startcode").
func HBaseServerName(host string, port, start int64) string {
	return fmt.Sprintf("%s,%d,%d", host, port, start)
}

// HBase lays out an HBase cluster under root (zookeeper.znode.parent), as
// ZNodePaths.java names the nodes and ZooKeeper.proto / HBase.proto
// declare their data, every value framed by HBaseValue: master (ephemeral,
// hbase.pb.Master) held by hmaster-1, hmaster-2 in backup-masters, two
// region servers in rs (RegionServerInfo), meta-region-server
// (MetaRegionServer, OPEN) and an HBase 1.x table lock (table-lock/<table>/
// write-SEQ and read-SEQ, ephemeral sequential, TableLock).
func (l *Layout) HBase(ctx context.Context, root string) error {
	masterPB := func(host string) PB {
		return PB{}.Message(1, hbaseServerName(host, 16000, l.Started)).Varint(2, 0).Varint(3, 16010)
	}
	if _, err := l.ephemeral(ctx, HBaseActiveMaster, path.Join(root, "master"), HBaseValue("4242@"+HBaseActiveMaster, masterPB(HBaseActiveMaster)), false); err != nil {
		return err
	}
	backup := path.Join(root, "backup-masters", HBaseServerName(HBaseBackupMaster, 16000, l.Started))
	if _, err := l.ephemeral(ctx, HBaseBackupMaster, backup, HBaseValue("4343@"+HBaseBackupMaster, masterPB(HBaseBackupMaster)), false); err != nil {
		return err
	}
	// The backup master waits on the active one's node.
	if err := l.watch(HBaseBackupMaster, path.Join(root, "master")); err != nil {
		return err
	}
	for i := 1; i <= 2; i++ {
		host := fmt.Sprintf("hbase-rs-%d", i)
		version := PB{}.String(1, "2.5.8").String(2, "git://build/hbase").String(3, "1a2b3c").
			String(4, "hbase").String(5, "Mon Jan  1 00:00:00 UTC 2024").String(6, "0f0f").Varint(7, 2).Varint(8, 5)
		info := PB{}.Varint(1, 16030).Message(2, version)
		if _, err := l.ephemeral(ctx, host, path.Join(root, "rs", HBaseServerName(host, 16020, l.Started)), HBaseValue(fmt.Sprintf("%d@%s", 5000+i, host), info), false); err != nil {
			return err
		}
	}
	meta := PB{}.Message(1, hbaseServerName("hbase-rs-1", 16020, l.Started)).Varint(2, 0).Varint(3, 3) // OPEN
	if err := l.persistent(ctx, path.Join(root, "meta-region-server"), HBaseValue("4242@"+HBaseActiveMaster, meta)); err != nil {
		return err
	}
	// HBase 1.x table locks (ZKInterProcessLockBase: "write-", "read-").
	lock := func(shared bool, owner string) []byte {
		tl := PB{}.Message(1, PB{}.String(1, "default").String(2, "orders")).
			Message(2, hbaseServerName(owner, 16000, l.Started)).Int(3, 77).Varint(4, boolVarint(shared)).
			String(5, map[bool]string{false: "alter", true: "region split"}[shared]).Int(6, l.Started)
		return HBaseValue("4242@"+owner, tl)
	}
	dir := path.Join(root, "table-lock", "orders")
	writer, err := l.ephemeral(ctx, HBaseActiveMaster, path.Join(dir, "write-"), lock(false, HBaseActiveMaster), true)
	if err != nil {
		return err
	}
	if _, err := l.ephemeral(ctx, "hbase-rs-2", path.Join(dir, "read-"), lock(true, "hbase-rs-2"), true); err != nil {
		return err
	}
	// The reader waits for the writer ahead of it (ZKInterProcessReadLock).
	return l.watch("hbase-rs-2", writer)
}

func boolVarint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
