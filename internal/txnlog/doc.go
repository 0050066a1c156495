// Package txnlog reads ZooKeeper's transaction logs (dataDir/version-2/
// log.<zxid>), streaming, as ZooKeeper's FileTxnLog.FileTxnIterator and
// TxnLogToolkit do: the FileHeader ("ZKLG", version 2, dbid), then one
// entry per transaction — an Adler32 of the entry's bytes (as a long), the
// bytes' length, the bytes (a TxnHeader, the transaction's record by type
// and, since 3.6, a TxnDigest), and the end-of-record byte 'B'. A
// preallocated file ends in zeros: an entry of length 0 is the end
// (Util.readTxnBytes). Records are the txn module of zookeeper.jute,
// decoded with internal/jute as SerializeUtils.deserializeTxn does.
//
// A file is read entry by entry through a window of the file, never
// whole: a 1 GB log costs the memory of its largest entry. Every problem is
// an *Error naming the file offset of the entry and one of the sentinel
// errors (ErrChecksum, ErrBadRecord, ErrBadLength, ErrBadEnd, ErrTruncated,
// ErrBadMagic, ErrEmpty); Next may be called again after an error to go on
// past it: a bad checksum or record is skipped, a broken frame is skipped
// by looking for the next entry whose checksum holds, and a truncated tail
// (a server that died while writing) ends the file.
package txnlog
