package datadir

import "fmt"

// FileError is a problem at a place in one of ZooKeeper's files: a
// transaction log (txnlog.Error) or a snapshot (snapshot.Error).
type FileError struct {
	// File is the file's path when the reader was opened on one.
	File string
	// Offset is where the header, entry or record starts: in the file for
	// a log, in the uncompressed stream for a snapshot.
	Offset int64
	// Err is one of the reader's Err… sentinels.
	Err error
	// Detail says more: what was being read and what was found.
	Detail string
}

func (e *FileError) Error() string {
	where := fmt.Sprintf("offset %d", e.Offset)
	if e.File != "" {
		where = e.File + ": " + where
	}
	if e.Detail == "" {
		return fmt.Sprintf("%s: %v", where, e.Err)
	}
	return fmt.Sprintf("%s: %v: %s", where, e.Err, e.Detail)
}

func (e *FileError) Unwrap() error { return e.Err }
