package txnlog

import (
	"errors"

	"github.com/zkx-dev/zkx/internal/datadir"
)

// The problems a log can have, each wrapped in an *Error with its offset.
var (
	// ErrEmpty: the file has no bytes at all.
	ErrEmpty = errors.New("empty file")
	// ErrBadMagic: the file does not start with a transaction log's
	// header ("ZKLG"): another kind of file, or one overwritten.
	ErrBadMagic = errors.New("not a ZooKeeper transaction log (no ZKLG header)")
	// ErrTruncated: the file ends inside the header or an entry, as a log
	// does when its server died while writing. Reading ends there.
	ErrTruncated = errors.New("truncated")
	// ErrChecksum: an entry's bytes do not match its Adler32. Next skips
	// the entry.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrBadLength: an entry's length is negative or over the limit: the
	// frame is broken. Next goes on at the next entry whose checksum holds.
	ErrBadLength = errors.New("bad entry length")
	// ErrBadEnd: an entry does not end with the end-of-record byte 'B':
	// the frame is broken. Next goes on at the next entry whose checksum
	// holds.
	ErrBadEnd = errors.New("entry does not end with 'B'")
	// ErrBadRecord: an entry's checksum holds but its bytes do not decode
	// as a transaction (unknown type, a record cut short). Next skips the
	// entry.
	ErrBadRecord = errors.New("bad transaction record")
)

// Error is a problem at a place in a log file, with its offset.
type Error = datadir.FileError
