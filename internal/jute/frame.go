package jute

import (
	"encoding/binary"
	"fmt"
	"io"
)

// NewFrameEncoder returns an Encoder with room for a frame's length
// prefix, which Frame fills in.
func NewFrameEncoder() *Encoder { return NewEncoder(make([]byte, 4)) }

// Frame returns what e holds as one frame of the wire protocol: a
// big-endian length, then the bytes. e must come from NewFrameEncoder.
func Frame(e *Encoder) []byte {
	b := e.Bytes()
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// ReadFrame reads one frame's body; a frame longer than limit (or negative)
// is an error, as it would be to ZooKeeper's jute.maxbuffer.
func ReadFrame(r io.Reader, limit int) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(head[:]))
	if n < 0 || int(n) > limit {
		return nil, fmt.Errorf("jute: frame of %d bytes (at most %d)", n, limit)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}
