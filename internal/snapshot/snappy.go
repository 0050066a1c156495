package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/snappy"
)

// snappyMagic starts snappy-java's stream (SnappyCodec.MAGIC_HEADER), then
// come its version and its oldest compatible version, one int each.
var snappyMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// snappyHeaderSize is the magic and the two versions.
const snappyHeaderSize = 8 + 4 + 4

// maxSnappyBlock bounds one block, compressed or not: snappy-java writes
// 32 KiB blocks by default.
const maxSnappyBlock = 64 << 20

// snappyReader reads snappy-java's SnappyOutputStream format: after the
// header, blocks each behind its compressed length (a big-endian int),
// each a raw snappy block.
type snappyReader struct {
	src    io.Reader
	block  []byte // compressed
	out    []byte // decompressed, not yet read
	buf    []byte
	blocks int // blocks read, for messages
}

func newSnappyReader(r io.Reader) (*snappyReader, error) {
	head := make([]byte, snappyHeaderSize)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("snappy header: %w", errShort)
	}
	if !bytes.Equal(head[:8], snappyMagic) {
		return nil, fmt.Errorf("snappy header: magic % x", head[:8])
	}
	return &snappyReader{src: r}, nil
}

func (s *snappyReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		var lenb [4]byte
		if _, err := io.ReadFull(s.src, lenb[:]); err != nil {
			if err == io.EOF {
				return 0, io.EOF
			}
			return 0, fmt.Errorf("snappy block %d: length: %w", s.blocks, errShort)
		}
		n := int32(binary.BigEndian.Uint32(lenb[:]))
		if n < 0 || n > maxSnappyBlock {
			return 0, fmt.Errorf("snappy block %d: compressed length %d", s.blocks, n)
		}
		if cap(s.block) < int(n) {
			s.block = make([]byte, n)
		}
		s.block = s.block[:n]
		if _, err := io.ReadFull(s.src, s.block); err != nil {
			return 0, fmt.Errorf("snappy block %d: %w", s.blocks, errShort)
		}
		size, err := snappy.DecodedLen(s.block)
		if err != nil || size > maxSnappyBlock {
			return 0, fmt.Errorf("snappy block %d: decoded length %d: %v", s.blocks, size, err)
		}
		if cap(s.buf) < size {
			s.buf = make([]byte, size)
		}
		out, err := snappy.Decode(s.buf[:size], s.block)
		if err != nil {
			return 0, fmt.Errorf("snappy block %d: %w", s.blocks, err)
		}
		s.out = out
		s.blocks++
	}
	k := copy(p, s.out)
	s.out = s.out[k:]
	return k, nil
}
