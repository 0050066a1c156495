package snapshot

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash"
	"hash/adler32"
	"io"
)

// stream reads the uncompressed bytes of a snapshot, keeping the Adler32
// of what was consumed (SnapStream's CheckedInputStream) and the offset.
type stream struct {
	br  *bufio.Reader
	sum hash.Hash32
	off int64
	err error // the first error; it sticks
}

// bufferSize is the read buffer: fixed-size records are read in place.
const bufferSize = 256 << 10

func newStream(r io.Reader) *stream {
	return &stream{br: bufio.NewReaderSize(r, bufferSize), sum: adler32.New()}
}

// errShort marks a stream that ended inside a record.
var errShort = errors.New("stream ends inside a record")

// fixed returns the next n bytes (n at most bufferSize), consumed and
// summed; nil once an error stuck.
func (s *stream) fixed(n int) []byte {
	if s.err != nil {
		return nil
	}
	b, err := s.br.Peek(n)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = errShort
		}
		s.err = err
		return nil
	}
	s.sum.Write(b)
	s.br.Discard(n)
	s.off += int64(n)
	return b
}

func (s *stream) int32() int32 {
	b := s.fixed(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (s *stream) int64() int64 {
	b := s.fixed(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// bytes reads n bytes into a new slice, growing it as the bytes arrive so
// that a hostile length costs no more than the stream holds.
func (s *stream) bytes(n int) []byte {
	if s.err != nil {
		return nil
	}
	if n <= bufferSize {
		b := s.fixed(n)
		if b == nil {
			return nil
		}
		return append(make([]byte, 0, n), b...)
	}
	out := make([]byte, 0, bufferSize)
	for len(out) < n {
		chunk := min(n-len(out), bufferSize)
		b := s.fixed(chunk)
		if b == nil {
			return nil
		}
		out = append(out, b...)
	}
	return out
}

// atEOF reports whether the stream has no more bytes.
func (s *stream) atEOF() bool {
	if s.err != nil {
		return false
	}
	_, err := s.br.Peek(1)
	return errors.Is(err, io.EOF)
}
