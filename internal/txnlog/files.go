package txnlog

import (
	"errors"
	"io"
)

// Files reads several logs in order, as one stream: a data directory's
// logs from datadir.Dir.LogsFrom. Problems in one file are returned as
// Next's errors like a single Reader's; a file that cannot be opened or
// has no valid header is an error too, and Next goes on with the next
// file.
type Files struct {
	paths []string
	next  int
	cur   *Reader
	skip  int64 // SkipUntil's zxid
}

// OpenFiles returns a reader of the logs at paths, in that order.
func OpenFiles(paths []string) *Files { return &Files{paths: paths} }

// File is the path of the log the last entry came from.
func (f *Files) File() string {
	if f.next == 0 || f.next > len(f.paths) {
		return ""
	}
	return f.paths[f.next-1]
}

// SkipUntil passes over the entries up to and including zxid (see
// Reader.SkipUntil) from where the reading is; entries of later files are
// passed over as those files are opened.
func (f *Files) SkipUntil(zxid int64) { f.skip = zxid }

// Next returns the next entry of the logs, io.EOF after the last one's.
func (f *Files) Next() (Entry, error) {
	for {
		if f.cur == nil {
			if f.next >= len(f.paths) {
				return Entry{}, io.EOF
			}
			path := f.paths[f.next]
			f.next++
			r, err := Open(path)
			if err != nil {
				return Entry{}, err
			}
			f.cur = r
		}
		if f.skip > 0 {
			f.cur.SkipUntil(f.skip)
		}
		e, err := f.cur.Next()
		if errors.Is(err, io.EOF) {
			f.cur.Close()
			f.cur = nil
			continue
		}
		return e, err
	}
}

// Close closes the file being read.
func (f *Files) Close() error {
	if f.cur == nil {
		return nil
	}
	err := f.cur.Close()
	f.cur = nil
	return err
}
