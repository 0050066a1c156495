package curatoritems

import (
	"encoding/binary"
	"fmt"
)

// The constants of Curator's ItemSerializer.
const (
	// Version starts every item set.
	Version = 0x00010001
	itemOp  = 0x01
	endOp   = 0x02
)

// Encode writes items as one item set, as ItemSerializer.serialize does:
// Curator's consumers deserialize it into the same items in the same order.
// A nil or empty item is written with length 0, as Curator writes an empty
// array.
func Encode(items [][]byte) []byte {
	size := 4 + 1
	for _, it := range items {
		size += 5 + len(it)
	}
	out := make([]byte, 0, size)
	out = binary.BigEndian.AppendUint32(out, Version)
	for _, it := range items {
		out = append(out, itemOp)
		out = binary.BigEndian.AppendUint32(out, uint32(len(it)))
		out = append(out, it...)
	}
	return append(out, endOp)
}

// Decode reads an item set into its items (each a slice of data). Bytes
// after the end opcode are ignored, as ItemSerializer.deserialize ignores
// them.
func Decode(data []byte) ([][]byte, error) {
	var items [][]byte
	_, _, err := Walk(data, func(_ int, item []byte) bool {
		items = append(items, item)
		return true
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// Walk reads an item set, calling item (if not nil) for each item in order
// until it returns false; it returns how many items the set holds and how
// many bytes follow the end opcode. Each item passed is a slice of data
// with no room to grow. A set Curator would refuse (another version, an
// unknown opcode, a length beyond the data, no end opcode) is an error
// that says where.
func Walk(data []byte, item func(i int, b []byte) bool) (n, trailing int, err error) {
	if len(data) < 4 {
		return 0, 0, fmt.Errorf("%d bytes, too short for the version", len(data))
	}
	if v := binary.BigEndian.Uint32(data); v != Version {
		return 0, 0, fmt.Errorf("version 0x%08x, want 0x%08x", v, Version)
	}
	off := 4
	for {
		if off >= len(data) {
			return n, 0, fmt.Errorf("no end marker (0x%02x) after %d items", endOp, n)
		}
		switch op := data[off]; op {
		case endOp:
			return n, len(data) - off - 1, nil
		case itemOp:
		default:
			return n, 0, fmt.Errorf("opcode 0x%02x at offset %d, want 0x%02x (item) or 0x%02x (end)", op, off, itemOp, endOp)
		}
		if len(data)-off-1 < 4 {
			return n, 0, fmt.Errorf("item %d at offset %d: no room for its length", n+1, off)
		}
		size := int64(int32(binary.BigEndian.Uint32(data[off+1:])))
		start := off + 5
		if size < 0 || size > int64(len(data)-start) {
			return n, 0, fmt.Errorf("item %d at offset %d: length %d, %d bytes left", n+1, off, size, len(data)-start)
		}
		end := start + int(size)
		if item != nil && !item(n, data[start:end:end]) {
			item = nil
		}
		n++
		off = end
	}
}

// IsComplete reports whether data is an item set with nothing after its
// end opcode: what a Curator producer writes.
func IsComplete(data []byte) bool {
	if len(data) < 5 || binary.BigEndian.Uint32(data) != Version {
		return false
	}
	_, trailing, err := Walk(data, nil)
	return err == nil && trailing == 0
}
