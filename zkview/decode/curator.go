package decode

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Curator's DistributedQueue item set (ItemSerializer): a version, then
// records of an opcode, a length and the item's bytes, then an end opcode.
const (
	curatorQueueVersion = 0x00010001
	curatorItemOp       = 0x01
	curatorEndOp        = 0x02
)

// walkCuratorQueue reads a Curator item set, calling item (if not nil) for
// each item in order until it returns false; it returns how many items the
// set holds and how many bytes follow the end opcode (Curator ignores them).
func walkCuratorQueue(data []byte, item func(i int, b []byte) bool) (n, trailing int, err error) {
	if len(data) < 4 {
		return 0, 0, fmt.Errorf("%d bytes, too short for the version", len(data))
	}
	if v := binary.BigEndian.Uint32(data); v != curatorQueueVersion {
		return 0, 0, fmt.Errorf("version 0x%08x, want 0x%08x", v, curatorQueueVersion)
	}
	off := 4
	for {
		if off >= len(data) {
			return n, 0, fmt.Errorf("no end marker (0x%02x) after %d items", curatorEndOp, n)
		}
		switch op := data[off]; op {
		case curatorEndOp:
			return n, len(data) - off - 1, nil
		case curatorItemOp:
		default:
			return n, 0, fmt.Errorf("opcode 0x%02x at offset %d, want 0x%02x (item) or 0x%02x (end)", op, off, curatorItemOp, curatorEndOp)
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

// isCuratorQueue is Auto's test: a complete item set, nothing after
// its end marker.
func isCuratorQueue(data []byte) bool {
	if len(data) < 5 || binary.BigEndian.Uint32(data) != curatorQueueVersion {
		return false
	}
	_, trailing, err := walkCuratorQueue(data, nil)
	return err == nil && trailing == 0
}

// decodeCuratorQueue lists a Curator item set's items, each decoded
// automatically and indented under a header line, or falls back to hex.
func decodeCuratorQueue(data []byte, depth int) Result {
	if _, _, err := walkCuratorQueue(data, nil); err != nil {
		return hexFallback(data, "not a Curator queue item set: "+err.Error())
	}
	var b strings.Builder
	shown := 0
	n, trailing, _ := walkCuratorQueue(data, func(i int, item []byte) bool {
		if b.Len() >= maxText {
			return false
		}
		d := decodeAt(item, Auto, depth+1)
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "item %d: %s, %d bytes", i+1, d.Decoder, len(item))
		if d.Note != "" && d.Decoder != Empty {
			fmt.Fprintf(&b, " (%s)", d.Note)
		}
		if d.Text != "" {
			b.WriteString("\n  ")
			b.WriteString(strings.ReplaceAll(d.Text, "\n", "\n  "))
		}
		shown++
		return true
	})
	if shown < n {
		fmt.Fprintf(&b, "\n… %d more items", n-shown)
	}
	note := fmt.Sprintf("Curator queue item set: %d items", n)
	if n == 1 {
		note = "Curator queue item set: 1 item"
	}
	if trailing > 0 {
		note += fmt.Sprintf(", %d bytes after the end marker (ignored, as Curator does)", trailing)
	}
	return Result{Decoder: CuratorQueue, Text: b.String(), Note: note}
}
