package decode

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zkx-dev/zkx/internal/curatoritems"
	"github.com/zkx-dev/zkx/internal/display"
)

const (
	// summaryDefaultWidth is Summary's width when none is given.
	summaryDefaultWidth = 80
	// summaryScanBytes is how much of a value Summary looks at: beyond it only a
	// prefix is checked for text, and JSON is not compacted.
	summaryScanBytes = 64 << 10
)

// Summary describes data in one line of at most maxRunes characters
// (runes; maxRunes < 1 means 80), for tables and the "data" fields of JSON
// output. It follows Data's automatic choice:
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
// A summary longer than maxRunes ends with "…". Summary reads at most 64 KiB of
// the value (and inflates at most that much of a gzip).
func Summary(data []byte, maxRunes int) string {
	if maxRunes < 1 {
		maxRunes = summaryDefaultWidth
	}
	return summariseAt(data, maxRunes, 0)
}

// summariseAt is Summary at a nesting depth.
func summariseAt(data []byte, maxRunes, depth int) string {
	if len(data) == 0 {
		return ""
	}
	kind := summaryDecoder(data, depth)
	switch kind {
	case Text:
		return summaryOneLine(data, maxRunes)
	case JSON:
		var out bytes.Buffer
		if json.Compact(&out, data) == nil {
			return summaryOneLine(out.Bytes(), maxRunes)
		}
		return summaryOneLine(data, maxRunes)
	case Int32:
		return clipRunes(strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(data))), 10), maxRunes)
	case Int64:
		return clipRunes(strconv.FormatInt(int64(binary.BigEndian.Uint64(data)), 10), maxRunes)
	case Gzip:
		inner, truncated, err := gunzipCapped(data, summaryScanBytes)
		if err != nil {
			break
		}
		if truncated {
			inner = trimPartialUTF8(inner)
		}
		return clipRunes("gzip: "+summariseAt(inner, maxRunes, depth+1), maxRunes)
	case CuratorQueue:
		return summariseCuratorQueue(data, maxRunes, depth)
	case Protobuf:
		if msg, err := ParseProtobuf(data); err == nil {
			return clipRunes("protobuf "+pbCompact(msg, 0), maxRunes)
		}
	case HBasePBUF:
		if f, ok := ParseHBaseFrame(data); ok {
			if msg, err := ParseProtobuf(f.Message); err == nil {
				return clipRunes("PBUF "+pbCompact(msg, 0), maxRunes)
			}
		}
	}
	return clipRunes("<"+strconv.Itoa(len(data))+" bytes binary>", maxRunes)
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
func summariseCuratorQueue(data []byte, maxRunes, depth int) string {
	var parts []string
	width := 0
	n, _, _ := curatoritems.Walk(data, func(_ int, item []byte) bool {
		s := summariseAt(item, maxRunes, depth+1)
		if s == "" {
			s = `""`
		}
		parts = append(parts, s)
		width += utf8.RuneCountInString(s) + 3
		return width <= maxRunes
	})
	switch n {
	case 0:
		return clipRunes("[0 items]", maxRunes)
	case 1:
		return parts[0]
	}
	return clipRunes("["+strconv.Itoa(n)+" items] "+strings.Join(parts, " | "), maxRunes)
}

// summaryOneLine escapes text onto one line and clips it to maxRunes runes.
func summaryOneLine(data []byte, maxRunes int) string {
	var b strings.Builder
	// Escapes never shrink text, so 4 bytes a rune is enough to fill maxRunes.
	display.AppendEscaped(&b, data, false, 4*maxRunes+8)
	return clipRunes(b.String(), maxRunes)
}

// clipRunes shortens s to maxRunes runes, the last being "…", when it is longer.
func clipRunes(s string, maxRunes int) string {
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == maxRunes-1 {
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
