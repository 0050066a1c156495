package decode

import (
	"fmt"
	"strings"

	"github.com/zkx-dev/zkx/internal/curatoritems"
)

// isCuratorQueue is Auto's test: a complete item set, nothing after
// its end marker.
func isCuratorQueue(data []byte) bool { return curatoritems.IsComplete(data) }

// decodeCuratorQueue lists a Curator item set's items, each decoded
// automatically and indented under a header line, or falls back to hex.
func decodeCuratorQueue(data []byte, depth int) Result {
	if _, _, err := curatoritems.Walk(data, nil); err != nil {
		return hexFallback(data, "not a Curator queue item set: "+err.Error())
	}
	var b strings.Builder
	shown := 0
	n, trailing, _ := curatoritems.Walk(data, func(i int, item []byte) bool {
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
