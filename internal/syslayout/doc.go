// Package syslayout lays out on a ZooKeeper the coordination nodes of the
// systems zkx recognises — Kafka (ZooKeeper mode), HBase, the Hadoop HA
// elector (HDFS, YARN), Solr, Helix, Curator service discovery,
// ClickHouse's distributed DDL queue, BookKeeper, and the Curator latches
// of Storm and Druid — as those systems write them: the same paths, node
// modes and bytes (each writer cites the source file its format comes
// from). Ephemeral nodes are created in the sessions of the clients that
// own them, and candidates set the watches the systems set, so that what
// zkx shows of a real cluster can be shown and tested without one. The
// demo seeds it; the recognisers' tests check it.
package syslayout
