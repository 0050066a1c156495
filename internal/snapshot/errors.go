package snapshot

import (
	"errors"

	"github.com/zkx-dev/zkx/internal/datadir"
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

// Error is a problem at a place in a snapshot, with its offset.
type Error = datadir.FileError
