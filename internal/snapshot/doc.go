// Package snapshot reads ZooKeeper's snapshots (dataDir/version-2/
// snapshot.<zxid>[.gz|.snappy]), streaming, as ZooKeeper's FileSnap,
// SnapStream and SerializeUtils.deserializeSnapshot do: the FileHeader
// ("ZKSN", version 2, dbid), the session table (id, timeout), the ACL
// cache (DataTree's ReferenceCountedACLCache: a number standing for each
// distinct ACL list), the nodes in depth-first order (path, data, ACL
// number, StatPersisted) up to the path "/", an Adler32 seal of everything
// before it, then since 3.6 the tree's digest at a zxid and a second seal.
//
// The stream may be gzip'd (snapshot.*.gz) or snappy'd (snapshot.*.snappy,
// zookeeper.snapshot.compression.method): the seal is over the
// uncompressed bytes, as SnapStream's CheckedInputStream sees them. The
// compression is told by the file's first bytes, not its name. Snappy is
// snappy-java's stream (SnappyOutputStream: a 16-byte header, then blocks
// each behind its length), whose blocks github.com/klauspost/compress
// decodes.
//
// Nodes come one at a time (Next): a snapshot of millions of nodes is
// never held by this package. Problems are *Error values naming the offset
// in the (uncompressed) stream and a sentinel error.
package snapshot
