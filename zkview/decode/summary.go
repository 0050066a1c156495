package decode

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zkx-dev/zkx/internal/display"
)

const (
	// summaryDefaultWidth is Summary's width when none is given.
	summaryDefaultWidth = 80
	// summaryScanBytes is how much of a value Summary looks at: beyond it only a
	// prefix is checked for text, and JSON is not compacted.
	summaryScanBytes = 64 << 10
)

// Summary describes data in one line of at most max characters (runes; max
// < 1 means 80), for tables and the "data" fields of JSON output. It follows
// Data's automatic choice:
//
//   - no data (null or empty): "";
//   - text: the text, with newlines, tabs, other control characters and
//     invalid bytes escaped (\n, \t, \x00), never raw;
//   - JSON: compacted onto one line (values up to 64 KiB);
//   - int32 / int64: the number;
//   - gzip: "gzip: " and the summary of what it inflates to;
//   - a Curator queue item set: the summary of its only item, or
//     "[N items] " and the items' summaries separated by " | ";
//   - anything else: "<N bytes binary>".
//
// A summary longer than max ends with "…". Summary reads at most 64 KiB of
// the value (and inflates at most that much of a gzip).
func Summary(data []byte, max int) string {
	if max < 1 {
		max = summaryDefaultWidth
	}
	return summariseAt(data, max, 0)
}

// summariseAt is Summary at a nesting depth.
func summariseAt(data []byte, max, depth int) string {
	if len(data) == 0 {
		return ""
	}
	kind := summaryDecoder(data, depth)
	switch kind {
	case Text:
		return summaryOneLine(data, max)
	case JSON:
		var out bytes.Buffer
		if json.Compact(&out, data) == nil {
			return summaryOneLine(out.Bytes(), max)
		}
		return summaryOneLine(data, max)
	case Int32:
		return clipRunes(strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(data))), 10), max)
	case Int64:
		return clipRunes(strconv.FormatInt(int64(binary.BigEndian.Uint64(data)), 10), max)
	case Gzip:
		inner, truncated, err := gunzipCapped(data, summaryScanBytes)
		if err != nil {
			break
		}
		if truncated {
			inner = trimPartialUTF8(inner)
		}
		return clipRunes("gzip: "+summariseAt(inner, max, depth+1), max)
	case CuratorQueue:
		return summariseCuratorQueue(data, max, depth)
	case Protobuf:
		if msg, err := ParseProtobuf(data); err == nil {
			return clipRunes("protobuf "+pbCompact(msg, 0), max)
		}
	case HBasePBUF:
		if f, ok := ParseHBaseFrame(data); ok {
			if msg, err := ParseProtobuf(f.Message); err == nil {
				return clipRunes("PBUF "+pbCompact(msg, 0), max)
			}
		}
	}
	return clipRunes("<"+strconv.Itoa(len(data))+" bytes binary>", max)
}

// summaryDecoder is detectDecoder, bounded: a large value is looked at through a
// prefix for text, and not parsed as JSON.
func summaryDecoder(data []byte, depth int) Decoder {
	if len(data) <= summaryScanBytes {
		return detectDecoder(data, depth)
	}
	switch {
	case hasGzipMagic(data) && depth < maxDepth:
		return Gzip
	case isCuratorQueue(data) && depth < maxDepth:
		return CuratorQueue
	case isPrintableText(trimPartialUTF8(data[:summaryScanBytes])):
		return Text
	}
	return Hex
}

// summariseCuratorQueue summarises an item set by its items.
func summariseCuratorQueue(data []byte, max, depth int) string {
	var parts []string
	width := 0
	n, _, _ := walkCuratorQueue(data, func(_ int, item []byte) bool {
		s := summariseAt(item, max, depth+1)
		if s == "" {
			s = `""`
		}
		parts = append(parts, s)
		width += utf8.RuneCountInString(s) + 3
		return width <= max
	})
	switch n {
	case 0:
		return clipRunes("[0 items]", max)
	case 1:
		return parts[0]
	}
	return clipRunes("["+strconv.Itoa(n)+" items] "+strings.Join(parts, " | "), max)
}

// summaryOneLine escapes text onto one line and clips it to max runes.
func summaryOneLine(data []byte, max int) string {
	var b strings.Builder
	// Escapes never shrink text, so 4 bytes a rune is enough to fill max.
	display.AppendEscaped(&b, data, false, 4*max+8)
	return clipRunes(b.String(), max)
}

// clipRunes shortens s to max runes, the last being "…", when it is longer.
func clipRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// trimPartialUTF8 drops an incomplete UTF-8 sequence at the end of a prefix
// cut from longer data.
func trimPartialUTF8(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
