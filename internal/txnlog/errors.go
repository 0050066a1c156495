package txnlog

import (
	"errors"
	"fmt"
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

// Error is a problem at a place in a log file.
type Error struct {
	// File is the log's path when the reader was opened on one.
	File string
	// Offset is where the header or the entry starts in the file.
	Offset int64
	// Err is one of the Err… sentinels.
	Err error
	// Detail says more: the lengths, the checksums, the record's error.
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
