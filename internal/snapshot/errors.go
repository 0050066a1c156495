package snapshot

import (
	"errors"
	"fmt"
)

// The problems a snapshot can have, each wrapped in an *Error.
var (
	// ErrEmpty: the file has no bytes at all.
	ErrEmpty = errors.New("empty file")
	// ErrBadMagic: the stream does not start with a snapshot's header
	// ("ZKSN").
	ErrBadMagic = errors.New("not a ZooKeeper snapshot (no ZKSN header)")
	// ErrTruncated: the stream ends inside a record, as a snapshot does
	// when its server died while writing it (ZooKeeper skips such a
	// snapshot for an older one).
	ErrTruncated = errors.New("truncated")
	// ErrBadLength: a length is negative or over the limit.
	ErrBadLength = errors.New("bad length")
	// ErrChecksum: the seal does not match the Adler32 of the bytes before
	// it ("CRC corruption" to ZooKeeper).
	ErrChecksum = errors.New("checksum mismatch")
	// ErrCorrupt: a record that cannot be: a seal without its "/", an
	// unknown compression header, a bad snappy block.
	ErrCorrupt = errors.New("corrupt")
)

// Error is a problem at a place in a snapshot.
type Error struct {
	// File is the snapshot's path when the reader was opened on one.
	File string
	// Offset is where the record starts in the uncompressed stream.
	Offset int64
	// Err is one of the Err… sentinels.
	Err error
	// Detail says what was being read and what was found.
	Detail string
}

func (e *Error) Error() string {
	where := fmt.Sprintf("offset %d", e.Offset)
	if e.File != "" {
		where = e.File + ": " + where
	}
	if e.Detail == "" {
		return fmt.Sprintf("%s: %v", where, e.Err)
	}
	return fmt.Sprintf("%s: %v: %s", where, e.Err, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }
