package auditlog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// Sentinels of LineError.
var (
	// ErrMalformed is a line that names the audit logger, or starts an
	// event's fields, and is no event.
	ErrMalformed = errors.New("malformed audit line")
	// ErrTruncated is the last line of a file, cut short: the file ends
	// inside it (a server stopped while writing it, or a copy taken then).
	ErrTruncated = errors.New("audit line cut short at the end of the file")
	// ErrTooLong is a line longer than any event, that looks like one.
	ErrTooLong = errors.New("line too long for an audit event")
)

// LineError is a line of an audit log that is not the event it looks
// like. Reading goes on after it.
type LineError struct {
	File string
	Line int
	// Err is one of the Err… sentinels.
	Err error
	// Detail says what is wrong.
	Detail string
}

func (e *LineError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%s: line %d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: line %d: %v: %s", e.File, e.Line, e.Err, e.Detail)
}

func (e *LineError) Unwrap() error { return e.Err }

// maxLine bounds a line: an event's longest field is a path (ZooKeeper
// bounds a request at 1 MiB) or an ACL.
const maxLine = 1 << 20

// FileStats counts what was read of one file.
type FileStats struct {
	Path string
	// Lines read, Events among them, Broken lines among them, and the
	// events passed over unread (Options.Skip).
	Lines, Events, Broken, Skipped int
	// Gzip says the file was gzip-compressed.
	Gzip bool
}

// fileReader reads one file's events in order.
type fileReader struct {
	stats  FileStats
	file   *os.File
	gz     *gzip.Reader
	br     *bufio.Reader
	parser *parser
	long   []byte // a line longer than br's buffer, put together
	// lastMs is the time of the last event that had one: an event
	// without a time is ordered at it.
	lastMs int64
	done   bool
}

func openFile(path string, p *parser) (*fileReader, error) {
	f, err := fileread.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := newFileReader(f, path, p)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// newFileReader reads a file's bytes from in, gunzipped when they are a
// gzip stream.
func newFileReader(in io.Reader, path string, p *parser) (*fileReader, error) {
	r := &fileReader{stats: FileStats{Path: path}, parser: p}
	br := bufio.NewReaderSize(in, 256<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		r.gz, r.stats.Gzip = gz, true
		br = bufio.NewReaderSize(gz, 256<<10)
	}
	r.br = br
	return r, nil
}

func (r *fileReader) close() {
	if r.gz != nil {
		r.gz.Close()
	}
	if r.file != nil {
		r.file.Close()
	}
}

// readLine returns the next line without its end; last is set when the
// file ended without a line end after it, tooLong when the line is longer
// than maxLine (line then holds its start).
func (r *fileReader) readLine() (line []byte, last, tooLong bool, err error) {
	line, err = r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.long = append(r.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = r.br.ReadSlice('\n')
			if len(r.long) < maxLine {
				r.long = append(r.long, line...)
			} else {
				tooLong = true
			}
		}
		line = r.long
		tooLong = tooLong || len(line) > maxLine
	}
	switch {
	case err == nil:
		line = line[:len(line)-1]
	case errors.Is(err, io.EOF):
		if len(line) == 0 {
			return nil, false, false, io.EOF
		}
		last, err = true, nil
	default:
		return nil, false, false, fmt.Errorf("%s: %w", r.stats.Path, err)
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, last, tooLong, nil
}

// next reads the next event of the file; io.EOF at its end, and after an
// error reading the file (a gzip stream cut short), which ends it.
func (r *fileReader) next(e *Event) error {
	for {
		if r.done {
			return io.EOF
		}
		line, last, tooLong, err := r.readLine()
		if err != nil {
			r.done = true
			return err
		}
		r.stats.Lines++
		if tooLong {
			if bytes.Contains(line, loggerName) || bytes.Contains(line, []byte("operation=")) {
				r.stats.Broken++
				return &LineError{File: r.stats.Path, Line: r.stats.Lines, Err: ErrTooLong, Detail: fmt.Sprintf("%d bytes or more", maxLine)}
			}
			continue
		}
		if r.parser.skip != nil {
			if session, znode, ok := quickFields(line); ok && r.parser.skip(session, znode) {
				r.stats.Skipped++
				continue
			}
		}
		kind, why := r.parser.parse(line, e)
		switch kind {
		case kindOther:
			continue
		case kindBroken:
			r.stats.Broken++
			sentinel := ErrMalformed
			if last {
				sentinel = ErrTruncated
			}
			return &LineError{File: r.stats.Path, Line: r.stats.Lines, Err: sentinel, Detail: why}
		}
		r.stats.Events++
		e.File, e.Line = r.stats.Path, r.stats.Lines
		if e.Time.IsZero() {
			return nil
		}
		r.lastMs = e.Time.UnixMilli()
		return nil
	}
}

// Options tune Open.
type Options struct {
	// Location is the zone of times written without one (log4j's and
	// logback's ISO8601 write none): the zone the server ran in. Default:
	// the local zone.
	Location *time.Location
	// Skip, when set, is asked about each client's event from its session
	// and node alone, before the line is read whole: true passes the event
	// over (FileStats.Skipped), which is most of the cost of a reader that
	// wants a few of a million. Only a line that ends as an event does
	// (its result last) is asked about: a broken one is still reported.
	Skip func(session int64, znode []byte) bool
	// Warn is told of each file of a directory passed over because it is
	// not a regular file.
	Warn func(error)
}

// Log reads the events of one or more audit logs in time order: each
// file in its own order, the files merged by time (a server's rotated
// files, or the logs of several members). It reads streaming: memory
// holds a buffer and one event per file.
type Log struct {
	files []*fileReader
	heads []head
}

// head is the next item of one file, read ahead.
type head struct {
	ev   Event
	err  error
	full bool
	at   int64 // the time it is ordered at, in ms
}

// Open opens the files of an audit log, as Files lists them.
func Open(paths []string, opts Options) (*Log, error) {
	files, err := Files(paths, opts.Warn)
	if err != nil {
		return nil, err
	}
	l := &Log{}
	p := newParser(opts.Location)
	p.skip = opts.Skip
	for _, path := range files {
		r, err := openFile(path, p)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.files = append(l.files, r)
	}
	l.heads = make([]head, len(l.files))
	return l, nil
}

// Next returns the next event in time order, a *LineError for a line it
// reads past (call Next again to go on), or io.EOF after the last.
func (l *Log) Next() (Event, error) {
	if len(l.files) == 1 {
		var e Event
		err := l.files[0].next(&e)
		return e, err
	}
	pick := -1
	for i := range l.heads {
		h := &l.heads[i]
		if !h.full && !l.files[i].done {
			h.err = l.files[i].next(&h.ev)
			h.full = h.err == nil || !errors.Is(h.err, io.EOF)
			h.at = l.files[i].lastMs
		}
		if !h.full {
			continue
		}
		if h.err != nil {
			h.full = false
			return Event{}, h.err
		}
		if pick < 0 || h.at < l.heads[pick].at {
			pick = i
		}
	}
	if pick < 0 {
		return Event{}, io.EOF
	}
	l.heads[pick].full = false
	return l.heads[pick].ev, nil
}

// Stats are the counts of each file read.
func (l *Log) Stats() []FileStats {
	out := make([]FileStats, len(l.files))
	for i, f := range l.files {
		out[i] = f.stats
	}
	return out
}

// Close closes the files.
func (l *Log) Close() error {
	for _, f := range l.files {
		f.close()
	}
	return nil
}
