// Package datadir knows the layout of a ZooKeeper data directory: the
// version-2 folder, the transaction logs log.<zxid> and the snapshots
// snapshot.<zxid>[.gz|.snappy], where <zxid> is the lower-case hex of the
// first transaction a log holds, or of the last transaction a snapshot
// had seen when it began (ZooKeeper's persistence.Util.makeLogName,
// makeSnapshotName and getZxidFromName). It lists them sorted by that
// zxid and picks the files a moment needs, as FileTxnSnapLog and
// FileTxnIterator do; it reads no file's content. FileError is the
// error both readers of those files (txnlog, snapshot) report.
package datadir
