// Package forensics turns a ZooKeeper data directory (its transaction logs
// and snapshots, read by internal/txnlog and internal/snapshot) into
// stories: what each transaction did (Transaction, for zkx txnlog), who
// held a recipe when (History, for zkx history, with zkview/recognize
// deciding what a recipe is at every step), and the tree as it was at any
// moment (Past, for the explorer on the past: the state loaded into a
// read-only embedded server, internal/zkserver, that every view reads
// through the ordinary client path).
//
// The state at a moment is rebuilt as ZooKeeper rebuilds its own at start
// (FileTxnSnapLog.restore): the newest snapshot at or before the moment,
// then the logged transactions after the snapshot's zxid replayed up to
// the moment, each applied as DataTree.processTxn applies it. Snapshots are
// fuzzy — taken while the server wrote — so a snapshot is only used for a
// moment at or after the zxid of the digest it carries (the tree was whole
// again by then); replaying the transactions already in it changes nothing
// twice, as in ZooKeeper.
//
// Client addresses are not on disk: nothing here knows who a session was,
// only its id and timeout.
package forensics
