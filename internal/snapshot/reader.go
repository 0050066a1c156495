package snapshot

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/zkx-dev/zkx/internal/fileread"
	"github.com/zkx-dev/zkx/internal/jute"
)

// Magic is a snapshot's FileHeader magic, "ZKSN" (FileSnap.SNAP_MAGIC).
const Magic int32 = 0x5a4b534e

// OpenACL is the ACL number of world:anyone with every permission, which
// the ACL cache never lists (ReferenceCountedACLCache.OPEN_UNSAFE_ACL_ID).
const OpenACL int64 = -1

// MaxField bounds a path, a node's data or an ACL list's count in bytes;
// ZooKeeper's own bound is jute.maxbuffer, 1 MiB by default.
const MaxField = 64 << 20

// Compression is how a snapshot's stream is compressed.
type Compression string

const (
	Plain  Compression = "plain"
	Gzip   Compression = "gzip"
	Snappy Compression = "snappy"
)

// FileHeader starts every snapshot.
type FileHeader struct {
	Magic   int32
	Version int32
	DBID    int64
}

// Session is one entry of the session table: a session alive when the
// snapshot was taken, with its negotiated timeout.
type Session struct {
	ID        int64
	TimeoutMs int32
}

// Stat is StatPersisted: a node's stat as the server keeps it. Cversion
// counts the creates of children (clients see 2*Cversion-NumChildren);
// EphemeralOwner is raw: a session, or a container's or TTL node's mark.
type Stat struct {
	Czxid          int64
	Mzxid          int64
	Ctime          int64
	Mtime          int64
	Version        int32
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64
	Pzxid          int64
}

// statSize is StatPersisted's encoded size.
const statSize = 8*4 + 4*3 + 8*2

// Node is one znode of the snapshot.
type Node struct {
	// Path is absolute; the root, which the snapshot names "", is "/".
	Path string
	// Data is nil for null data, which ZooKeeper keeps apart from empty.
	Data []byte
	// ACL is the node's ACL number: look it up with Reader.ACL.
	ACL  int64
	Stat Stat
}

// Digest is the tree's digest at a zxid, written after the nodes since
// ZooKeeper 3.6 (DataTree.ZxidDigest). A zero Zxid means the server had
// none to write.
type Digest struct {
	Zxid    int64
	Version int32
	Digest  int64
}

// Reader reads one snapshot.
type Reader struct {
	name     string
	comp     Compression
	stream   *stream
	closer   io.Closer
	header   FileHeader
	sessions []Session
	acls     map[int64][]jute.ACL
	nodes    int
	done     bool
	digest   *Digest
}

// NewReader reads a snapshot's header, session table and ACL cache from
// r; Next then returns its nodes. name, when not empty, is put in errors.
func NewReader(r io.Reader, name string) (*Reader, error) {
	sr := &Reader{name: name}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(len(snappyMagic))
	if len(head) == 0 {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, sr.ioError(err)
		}
		return nil, sr.errorAt(0, ErrEmpty, "")
	}
	var in io.Reader = br
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		sr.comp = Gzip
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, sr.errorAt(0, ErrCorrupt, "gzip header: "+err.Error())
		}
		in = zr
	case head[0] == snappyMagic[0]:
		sr.comp = Snappy
		zr, err := newSnappyReader(br)
		if err != nil {
			return nil, sr.classify(0, err, "snappy stream")
		}
		in = zr
	default:
		sr.comp = Plain
	}
	sr.stream = newStream(in)
	if err := sr.readPrelude(); err != nil {
		return nil, err
	}
	return sr, nil
}

// Open opens the snapshot at path; Close closes it.
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

// Compression is how the stream was compressed.
func (r *Reader) Compression() Compression { return r.comp }

// Header is the snapshot's file header.
func (r *Reader) Header() FileHeader { return r.header }

// Sessions is the session table, in the snapshot's order.
func (r *Reader) Sessions() []Session { return r.sessions }

// ACLs is the ACL cache: the ACL list behind each number.
func (r *Reader) ACLs() map[int64][]jute.ACL { return r.acls }

// ACL returns the ACL list behind a node's number; ok is false for a
// number the cache does not hold (ZooKeeper fails such a node's reads).
func (r *Reader) ACL(ref int64) ([]jute.ACL, bool) {
	if ref == OpenACL {
		return []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}, true
	}
	acl, ok := r.acls[ref]
	return acl, ok
}

// Nodes is how many nodes Next has returned.
func (r *Reader) Nodes() int { return r.nodes }

// Digest is the digest written after the nodes, once Next has returned
// io.EOF; nil when the snapshot has none (before ZooKeeper 3.6, or with
// digests disabled).
func (r *Reader) Digest() *Digest { return r.digest }

func (r *Reader) errorAt(off int64, err error, detail string) *Error {
	return &Error{File: r.name, Offset: off, Err: err, Detail: detail}
}

func (r *Reader) ioError(err error) error {
	if r.name != "" {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	return err
}

// classify turns the stream's error into an *Error: the stream ending
// inside a record is ErrTruncated, a decompressor's complaint ErrCorrupt.
func (r *Reader) classify(off int64, err error, what string) error {
	switch {
	case errors.Is(err, errShort), errors.Is(err, io.ErrUnexpectedEOF):
		return r.errorAt(off, ErrTruncated, what)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
		return r.errorAt(off, ErrCorrupt, what+": gzip: "+err.Error())
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return r.ioError(err)
	}
	return r.errorAt(off, ErrCorrupt, what+": "+err.Error())
}

// fail reports the stream's stuck error, if any, as read while reading what.
func (r *Reader) fail(off int64, what string) error {
	if r.stream.err == nil {
		return nil
	}
	return r.classify(off, r.stream.err, what)
}

func (r *Reader) readPrelude() error {
	s := r.stream
	b := s.fixed(16)
	if b == nil {
		return r.fail(0, "file header")
	}
	d := jute.NewDecoder(b)
	r.header = FileHeader{Magic: d.Int(), Version: d.Int(), DBID: d.Long()}
	if r.header.Magic != Magic {
		return r.errorAt(0, ErrBadMagic, fmt.Sprintf("the stream starts with %q", b[:4]))
	}
	off := s.off
	n := s.int32()
	if err := r.fail(off, "session count"); err != nil {
		return err
	}
	if n < 0 || n > MaxField/12 {
		return r.errorAt(off, ErrBadLength, fmt.Sprintf("session count %d", n))
	}
	r.sessions = make([]Session, 0, min(int(n), 4096))
	for i := int32(0); i < n; i++ {
		off := s.off
		b := s.fixed(12)
		if b == nil {
			return r.fail(off, fmt.Sprintf("session %d of %d", i, n))
		}
		d := jute.NewDecoder(b)
		r.sessions = append(r.sessions, Session{ID: d.Long(), TimeoutMs: d.Int()})
	}
	off = s.off
	n = s.int32()
	if err := r.fail(off, "ACL cache size"); err != nil {
		return err
	}
	if n < 0 || n > MaxField/12 {
		return r.errorAt(off, ErrBadLength, fmt.Sprintf("ACL cache size %d", n))
	}
	r.acls = make(map[int64][]jute.ACL, min(int(n), 4096))
	for i := int32(0); i < n; i++ {
		off := s.off
		ref := s.int64()
		count := s.int32()
		if err := r.fail(off, fmt.Sprintf("ACL list %d of %d", i, n)); err != nil {
			return err
		}
		if count < 0 || count > MaxField/12 {
			return r.errorAt(off, ErrBadLength, fmt.Sprintf("ACL list %d (number %d) has %d entries", i, ref, count))
		}
		acl := make([]jute.ACL, 0, min(int(count), 64))
		for j := int32(0); j < count; j++ {
			perms := s.int32()
			scheme := r.str(s.off, "ACL scheme")
			id := r.str(s.off, "ACL id")
			if s.err != nil {
				return r.fail(off, fmt.Sprintf("ACL list %d (number %d), entry %d", i, ref, j))
			}
			acl = append(acl, jute.ACL{Perms: perms, ID: jute.Id{Scheme: scheme, ID: id}})
		}
		r.acls[ref] = acl
	}
	return nil
}

// stringLengthError is a bad string length found by str, reported by the
// caller.
type stringLengthError struct {
	off    int64
	what   string
	length int32
}

func (e *stringLengthError) Error() string {
	return fmt.Sprintf("%s length %d", e.what, e.length)
}

// str reads a jute ustring; null reads as "". A bad length sticks as the
// stream's error.
func (r *Reader) str(off int64, what string) string {
	b, null := r.buffer(off, what)
	if null || b == nil {
		return ""
	}
	return string(b)
}

// buffer reads a jute buffer; null is (nil, true).
func (r *Reader) buffer(off int64, what string) ([]byte, bool) {
	s := r.stream
	n := s.int32()
	if s.err != nil {
		return nil, false
	}
	if n == -1 {
		return nil, true
	}
	if n < -1 || n > MaxField {
		s.err = &stringLengthError{off: off, what: what, length: n}
		return nil, false
	}
	return s.bytes(int(n)), false
}

// Next returns the next node, depth-first as the server wrote them, or
// io.EOF after the last one, once the seal (and the digest) checked out.
func (r *Reader) Next() (Node, error) {
	if r.done {
		return Node{}, io.EOF
	}
	s := r.stream
	off := s.off
	path := r.str(off, "path")
	if s.err != nil {
		r.done = true
		return Node{}, r.nodeError(off, "a node's path")
	}
	if path == "/" {
		r.done = true
		return Node{}, r.readSeals()
	}
	data, _ := r.buffer(s.off, "data")
	b := s.fixed(8 + statSize)
	if b == nil {
		r.done = true
		return Node{}, r.nodeError(off, "node "+strconv.Quote(path))
	}
	d := jute.NewDecoder(b)
	n := Node{Path: path, Data: data, ACL: d.Long()}
	st := &n.Stat
	st.Czxid, st.Mzxid, st.Ctime, st.Mtime = d.Long(), d.Long(), d.Long(), d.Long()
	st.Version, st.Cversion, st.Aversion = d.Int(), d.Int(), d.Int()
	st.EphemeralOwner, st.Pzxid = d.Long(), d.Long()
	if n.Path == "" {
		n.Path = "/"
	}
	r.nodes++
	return n, nil
}

// nodeError reports the stream's error while reading what, at off.
func (r *Reader) nodeError(off int64, what string) error {
	var se *stringLengthError
	if errors.As(r.stream.err, &se) {
		return r.errorAt(se.off, ErrBadLength, fmt.Sprintf("%s: %s", what, se.Error()))
	}
	return r.fail(off, what)
}

// readSeals checks the seal after the nodes, then reads the digest and
// its own seal when the stream goes on (SnapStream.checkSealIntegrity,
// DataTree.deserializeZxidDigest).
func (r *Reader) readSeals() error {
	if err := r.seal("the seal after the nodes"); err != nil {
		return err
	}
	s := r.stream
	if s.atEOF() {
		if s.err != nil {
			return r.fail(s.off, "after the seal")
		}
		return io.EOF
	}
	off := s.off
	dg := &Digest{Zxid: s.int64(), Version: s.int32()}
	if dg.Version < 2 {
		// Versions before 2 wrote the digest as a hex string.
		text := r.str(s.off, "digest")
		if s.err == nil {
			v, err := strconv.ParseUint(text, 16, 64)
			if err != nil {
				return r.errorAt(off, ErrCorrupt, fmt.Sprintf("digest version %d: %q is not hex", dg.Version, text))
			}
			dg.Digest = int64(v)
		}
	} else {
		dg.Digest = s.int64()
	}
	if s.err != nil {
		return r.nodeError(off, "the digest")
	}
	if err := r.seal("the seal after the digest"); err != nil {
		return err
	}
	r.digest = dg
	return io.EOF
}

// seal reads a seal and compares it with the sum of everything before it.
func (r *Reader) seal(what string) error {
	s := r.stream
	off := s.off
	want := uint64(s.sum.Sum32())
	got := uint64(s.int64())
	slash := r.str(s.off, what)
	if s.err != nil {
		return r.nodeError(off, what)
	}
	if got != want {
		return r.errorAt(off, ErrChecksum, fmt.Sprintf("%s: stored 0x%x, computed 0x%x", what, got, want))
	}
	if slash != "/" {
		return r.errorAt(off, ErrCorrupt, fmt.Sprintf("%s: ends with %q, not \"/\"", what, slash))
	}
	return nil
}
