package txnlog

import (
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"io"

	"github.com/zkx-dev/zkx/internal/fileread"
	"github.com/zkx-dev/zkx/internal/jute"
)

// Magic is a transaction log's FileHeader magic, "ZKLG"
// (FileTxnLog.TXNLOG_MAGIC).
const Magic int32 = 0x5a4b4c47

// fileHeaderSize is FileHeader's encoded size: magic, version, dbid.
const fileHeaderSize = 4 + 4 + 8

// frameSize is what precedes an entry's bytes: the Adler32 as a long and
// the length as an int.
const frameSize = 8 + 4

// endOfRecord ends every entry (Util.writeTxnBytes).
const endOfRecord = 'B'

// DefaultMaxEntry bounds an entry's length. ZooKeeper refuses requests
// over jute.maxbuffer (1 MiB by default), but a server may raise it.
const DefaultMaxEntry = 64 << 20

// resyncMaxEntry bounds the entries looked for after a broken frame: a
// server with the default jute.maxbuffer writes none larger.
const resyncMaxEntry = 2 << 20

// FileHeader starts every log.
type FileHeader struct {
	Magic   int32
	Version int32
	DBID    int64
}

// Entry is one transaction of a log.
type Entry struct {
	// Offset is where the entry starts in the file (its checksum).
	Offset int64
	// Size is the length of the entry's bytes (header, record, digest).
	Size   int
	Header Header
	// Txn is the record; nil for a closeSession logged without its
	// CloseSessionTxn.
	Txn Txn
	// Digest is nil when the server logged none.
	Digest *Digest
}

// Reader reads the entries of one log file in order.
type Reader struct {
	name     string
	window   *window
	closer   io.Closer
	header   FileHeader
	maxEntry int
	done     bool
	// resync is set after a broken frame: the next Next looks for the
	// next entry whose checksum holds.
	resync bool
}

// NewReader reads a log's header from r and returns a reader of its
// entries. name, when not empty, is put in errors.
func NewReader(r io.Reader, name string) (*Reader, error) {
	lr := &Reader{name: name, window: newWindow(r), maxEntry: DefaultMaxEntry}
	if !lr.window.fill(fileHeaderSize) {
		if lr.window.err != nil {
			return nil, lr.ioError(lr.window.err)
		}
		if lr.window.avail() == 0 {
			return nil, lr.errorAt(0, ErrEmpty, "")
		}
		return nil, lr.errorAt(0, ErrTruncated, fmt.Sprintf("the file header takes %d bytes, the file has %d", fileHeaderSize, lr.window.avail()))
	}
	d := jute.NewDecoder(lr.window.peek(fileHeaderSize))
	lr.header = FileHeader{Magic: d.Int(), Version: d.Int(), DBID: d.Long()}
	if lr.header.Magic != Magic {
		return nil, lr.errorAt(0, ErrBadMagic, fmt.Sprintf("the file starts with %q", lr.window.peek(4)))
	}
	lr.window.skip(fileHeaderSize)
	return lr, nil
}

// Open opens the log file at path; Close closes it.
func Open(path string) (*Reader, error) {
	f, err := fileread.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// Close closes the file Open opened.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Header is the log's file header.
func (r *Reader) Header() FileHeader { return r.header }

// SetMaxEntry changes the largest entry length accepted (default
// DefaultMaxEntry); a longer one is ErrBadLength.
func (r *Reader) SetMaxEntry(n int) { r.maxEntry = n }

// Offset is the file offset of the next entry.
func (r *Reader) Offset() int64 { return r.window.off }

func (r *Reader) errorAt(off int64, err error, detail string) *Error {
	return &Error{File: r.name, Offset: off, Err: err, Detail: detail}
}

func (r *Reader) ioError(err error) error {
	if r.name != "" {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	return err
}

// Next returns the next entry, io.EOF after the last one (the end of the
// file, or its zero padding), or an *Error. After an error Next may be
// called again: it goes on past the problem (see the package doc).
func (r *Reader) Next() (Entry, error) {
	if r.done {
		return Entry{}, io.EOF
	}
	if r.resync {
		r.resync = false
		if !r.findEntry() {
			r.done = true
			if r.window.err != nil {
				return Entry{}, r.ioError(r.window.err)
			}
			return Entry{}, io.EOF
		}
	}
	w := r.window
	start := w.off
	if !w.fill(frameSize) {
		r.done = true
		if w.err != nil {
			return Entry{}, r.ioError(w.err)
		}
		if allZero(w.peek(w.avail())) {
			return Entry{}, io.EOF // the end of the file, or of its padding
		}
		return Entry{}, r.errorAt(start, ErrTruncated, fmt.Sprintf("%d bytes left, an entry's frame takes %d", w.avail(), frameSize))
	}
	frame := w.peek(frameSize)
	crc := binary.BigEndian.Uint64(frame)
	n := int32(binary.BigEndian.Uint32(frame[8:]))
	if n == 0 {
		// ZooKeeper preallocates its logs: an empty entry is the end.
		r.done = true
		return Entry{}, io.EOF
	}
	if n < 0 || int(n) > r.maxEntry {
		r.resyncAfter()
		return Entry{}, r.errorAt(start, ErrBadLength, fmt.Sprintf("length %d (at most %d)", n, r.maxEntry))
	}
	total := frameSize + int(n) + 1
	if !w.fill(total) {
		r.done = true
		if w.err != nil {
			return Entry{}, r.ioError(w.err)
		}
		return Entry{}, r.errorAt(start, ErrTruncated, fmt.Sprintf("an entry of %d bytes, the file ends %d bytes into it", n, w.avail()-frameSize))
	}
	b := w.peek(total)
	body := b[frameSize : frameSize+int(n)]
	if b[total-1] != endOfRecord {
		r.resyncAfter()
		return Entry{}, r.errorAt(start, ErrBadEnd, fmt.Sprintf("found 0x%02x after %d bytes", b[total-1], n))
	}
	sum := adler32.Checksum(body)
	if uint64(sum) != crc {
		w.skip(total)
		return Entry{}, r.errorAt(start, ErrChecksum, fmt.Sprintf("stored 0x%x, computed 0x%x over %d bytes", crc, sum, n))
	}
	e, err := decodeEntry(body)
	w.skip(total)
	if err != nil {
		return Entry{}, r.errorAt(start, ErrBadRecord, err.Error())
	}
	e.Offset, e.Size = start, int(n)
	return e, nil
}

// SkipUntil passes over the entries up to and including zxid without
// checking or decoding them, reading only their headers' zxids: a replay
// starting from a snapshot taken late in a log skips most of it. It stops
// before the first entry past zxid, and before anything it cannot pass
// over as a whole entry (a broken or truncated frame, the end), which Next
// then reads and reports.
func (r *Reader) SkipUntil(zxid int64) {
	w := r.window
	for !r.done && !r.resync {
		if !w.fill(frameSize) {
			return
		}
		n := int32(binary.BigEndian.Uint32(w.peek(frameSize)[8:]))
		if n < headerSize || int(n) > r.maxEntry || !w.fill(frameSize+int(n)+1) {
			return
		}
		b := w.peek(frameSize + int(n) + 1)
		if b[len(b)-1] != endOfRecord {
			return
		}
		// TxnHeader: clientId (8), cxid (4), then the zxid.
		if int64(binary.BigEndian.Uint64(b[frameSize+12:])) > zxid {
			return
		}
		w.skip(len(b))
	}
}

// resyncAfter marks a broken frame at the window's start: the next Next
// looks for an entry from the byte after it.
func (r *Reader) resyncAfter() {
	r.window.skip(1)
	r.resync = true
}

// findEntry moves the window to the next offset where a whole entry
// holds: a plausible length, the end-of-record byte, a matching checksum
// and a record that decodes. False when the file (or its padding) ends
// first.
func (r *Reader) findEntry() bool {
	w := r.window
	for {
		if !w.fill(frameSize) {
			return false
		}
		frame := w.peek(frameSize)
		crc := binary.BigEndian.Uint64(frame)
		n := int32(binary.BigEndian.Uint32(frame[8:]))
		if crc == 0 && n == 0 {
			return false // the zero padding: the log ends here
		}
		if n >= headerSize && int(n) <= min(resyncMaxEntry, r.maxEntry) && crc>>32 == 0 && w.fill(frameSize+int(n)+1) {
			b := w.peek(frameSize + int(n) + 1)
			body := b[frameSize : frameSize+int(n)]
			if b[len(b)-1] == endOfRecord && uint64(adler32.Checksum(body)) == crc {
				if _, err := decodeEntry(body); err == nil {
					return true
				}
			}
		}
		w.skip(1)
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decodeEntry reads an entry's bytes as SerializeUtils.deserializeTxn
// does: the header, the record its type calls for, and a digest when
// bytes remain for one.
func decodeEntry(b []byte) (Entry, error) {
	var e Entry
	d := jute.NewDecoder(b)
	e.Header.decode(d)
	if err := d.Err(); err != nil {
		return e, fmt.Errorf("transaction header: %w", err)
	}
	txn, ok := newTxn(e.Header.Type)
	if !ok {
		return e, fmt.Errorf("zxid 0x%x: unsupported transaction type %d", e.Header.Zxid, e.Header.Type)
	}
	switch {
	case e.Header.Type == TypeCloseSession && d.Remaining() == 0:
		txn = nil // no CloseSessionTxn: an older server
	case e.Header.Type == TypeCloseSession && d.Remaining() == digestSize:
		// Either a digest alone or paths and no digest: ZooKeeper since
		// 3.6 writes the paths (a count at least) before any digest.
		probe := &CloseSessionTxn{}
		pd := jute.NewDecoder(b[d.Offset():])
		probe.decode(pd)
		if pd.Err() != nil || pd.Remaining() != 0 {
			txn = nil
		}
	}
	if txn != nil {
		txn.decode(d)
		if err := d.Err(); err != nil {
			return e, fmt.Errorf("zxid 0x%x: %s record: %w", e.Header.Zxid, e.Header.Type, err)
		}
		e.Txn = txn
	}
	if d.Remaining() >= digestSize {
		e.Digest = &Digest{Version: d.Int(), TreeDigest: d.Long()}
	}
	return e, nil
}
