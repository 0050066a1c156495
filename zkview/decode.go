package zkview

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Decoder names a way to show a node's data.
type Decoder string

// The decoders. DecodeNull and DecodeEmpty are never asked for: Decode
// reports them when there is no data to decode.
const (
	// DecodeAuto picks a decoder by looking at the data (see Decode).
	DecodeAuto Decoder = "auto"
	// DecodeText shows UTF-8 text, every control character, non-printing
	// rune and invalid byte escaped (\x1b, \u202e).
	DecodeText Decoder = "text"
	// DecodeJSON pretty-prints JSON, keys in their input order.
	DecodeJSON Decoder = "json"
	// DecodeHex is a hex dump with offsets and an ASCII column, like xxd.
	DecodeHex Decoder = "hex"
	// DecodeGzip gunzips (at most 16 MiB) and decodes what it finds inside
	// automatically.
	DecodeGzip Decoder = "gzip"
	// DecodeCuratorQueue reads the item set Curator's DistributedQueue
	// writes into each queue node (ItemSerializer: the version 0x00010001,
	// then per item the opcode 0x01, a big-endian int32 length and the bytes,
	// then the opcode 0x02) and decodes every item automatically.
	DecodeCuratorQueue Decoder = "curator-queue"
	// DecodeInt32 reads exactly 4 bytes as a big-endian signed integer, as
	// Curator's SharedCount stores its count.
	DecodeInt32 Decoder = "int32"
	// DecodeInt64 reads exactly 8 bytes as a big-endian signed integer, as
	// Curator's DistributedAtomicLong stores its value.
	DecodeInt64 Decoder = "int64"
	// DecodeNull is reported for a node whose data is null (go-zookeeper
	// returns nil), which ZooKeeper tells apart from empty data.
	DecodeNull Decoder = "null"
	// DecodeEmpty is reported for a node with zero bytes of data.
	DecodeEmpty Decoder = "empty"
)

// Output bounds: whatever the size of a value, a decoded Text stays near
// these sizes, cut at the limit with a last line "… N more bytes".
const (
	// decodeMaxText is how much text (text, JSON, queue listings) Decode
	// shows, in bytes of output.
	decodeMaxText = 256 << 10
	// decodeMaxHex is how many bytes of input a hex dump shows (4096 lines).
	decodeMaxHex = 64 << 10
	// decodeMaxGunzip is how much a gzip value may inflate to; beyond it
	// the first decodeMaxGunzip bytes are decoded.
	decodeMaxGunzip = 16 << 20
	// decodeMaxDepth bounds nesting (gzip inside queue items inside gzip…):
	// below it, DecodeAuto no longer looks into gzip or queue items.
	decodeMaxDepth = 4
)

// Decoders returns the decoders a user may choose, DecodeAuto first, in the
// order a viewer cycles through them.
func Decoders() []Decoder {
	return []Decoder{DecodeAuto, DecodeText, DecodeJSON, DecodeHex, DecodeGzip,
		DecodeCuratorQueue, DecodeInt32, DecodeInt64}
}

// ParseDecoder maps a user's choice (as for a --decode flag) to a Decoder.
func ParseDecoder(s string) (Decoder, error) {
	want := Decoder(strings.ToLower(strings.TrimSpace(s)))
	if want == "" {
		return DecodeAuto, nil
	}
	for _, d := range Decoders() {
		if d == want {
			return d, nil
		}
	}
	names := make([]string, 0, 8)
	for _, d := range Decoders() {
		names = append(names, string(d))
	}
	return "", fmt.Errorf("unknown decoder %q (want one of %s)", s, strings.Join(names, ", "))
}

// Decoded is a node's data made ready to show.
type Decoded struct {
	// Decoder is the decoder that produced Text: the one asked for, the one
	// DecodeAuto chose, DecodeHex when the one asked for does not fit the
	// data, DecodeNull/DecodeEmpty when there is no data, or "" for data the
	// server would not let us read (see Detail.NoDataAccess).
	Decoder Decoder
	// Text is ready to show: valid UTF-8 with no control or non-printing
	// characters but newlines (and tabs in text), several lines for hex
	// dumps, JSON and queue items, bounded in size.
	Text string
	// Note says what the viewer should know about Text: why a decoder fell
	// back to hex, what was inside a gzip, what was escaped or cut off.
	Note string
}

// Decode shows data with the given decoder. It never fails: a decoder that
// does not fit the data (JSON that does not parse, an int32 that is not 4
// bytes, a corrupt gzip) falls back to a hex dump with a Note saying why, and
// no data at all is DecodeNull (nil) or DecodeEmpty.
//
// DecodeAuto is conservative; it picks, in this order:
//
//   - gzip when the data starts with gzip's magic (1f 8b 08) and inflates;
//     the inflated bytes are then decoded with DecodeAuto (a corrupt gzip
//     falls back to hex, noted);
//   - curator-queue when the data is a complete Curator item set: the
//     version 00 01 00 01, well-formed item records, the end opcode as the
//     last byte;
//   - json when the data is valid UTF-8, its first non-blank byte is { or [,
//     and it parses as JSON (a bare string or number is shown as text);
//   - text when the data is valid UTF-8 with no control characters other than
//     tab, newline and carriage return;
//   - int32 for exactly 4 bytes and int64 for exactly 8 bytes that are not
//     text by the rule above;
//   - hex for everything else.
//
// Gzip inside queue items inside gzip… is looked into 4 levels deep, no more.
// Text output is cut at 256 KiB and hex dumps at 64 KiB of input, so a
// 1 MiB value decodes quickly and shows a bounded Text.
func Decode(data []byte, with Decoder) Decoded {
	return decodeAt(data, with, 0)
}

// decodeAt is Decode at a nesting depth (inside a gzip or a queue item).
func decodeAt(data []byte, with Decoder, depth int) Decoded {
	if data == nil {
		return Decoded{Decoder: DecodeNull, Note: "no data (null)" + decodeNoDataNote(with)}
	}
	if len(data) == 0 {
		return Decoded{Decoder: DecodeEmpty, Note: "no data (0 bytes)" + decodeNoDataNote(with)}
	}
	var unknown string
	switch with {
	case DecodeAuto, "":
		with = detectDecoder(data, depth)
	case DecodeText, DecodeJSON, DecodeHex, DecodeGzip, DecodeCuratorQueue, DecodeInt32, DecodeInt64:
	default:
		auto := detectDecoder(data, depth)
		unknown = fmt.Sprintf("unknown decoder %q, chose %s", with, auto)
		with = auto
	}
	d := decodeWith(data, with, depth)
	d.Note = joinDecodeNotes(unknown, d.Note)
	return d
}

// decodeNoDataNote is what asking for a decoder of no data adds to the note.
func decodeNoDataNote(with Decoder) string {
	if with == DecodeInt64 {
		return "; Curator's DistributedAtomicLong reads no data as 0"
	}
	return ""
}

// decodeWith applies one decoder, falling back to hex when it does not fit.
func decodeWith(data []byte, with Decoder, depth int) Decoded {
	switch with {
	case DecodeText:
		return decodeText(data)
	case DecodeJSON:
		return decodeJSON(data)
	case DecodeGzip:
		return decodeGzip(data, depth)
	case DecodeCuratorQueue:
		return decodeCuratorQueue(data, depth)
	case DecodeInt32:
		if len(data) != 4 {
			return decodeHexFallback(data, fmt.Sprintf("not an int32: %d bytes, want exactly 4", len(data)))
		}
		v := int32(binary.BigEndian.Uint32(data))
		return Decoded{Decoder: DecodeInt32, Text: strconv.FormatInt(int64(v), 10),
			Note: fmt.Sprintf("big-endian int32 (as Curator's SharedCount stores it), bytes 0x%08x", uint32(v))}
	case DecodeInt64:
		if len(data) != 8 {
			return decodeHexFallback(data, fmt.Sprintf("not an int64: %d bytes, want exactly 8", len(data)))
		}
		v := int64(binary.BigEndian.Uint64(data))
		return Decoded{Decoder: DecodeInt64, Text: strconv.FormatInt(v, 10),
			Note: fmt.Sprintf("big-endian int64 (as Curator's DistributedAtomicLong stores it), bytes 0x%016x", uint64(v))}
	default:
		return Decoded{Decoder: DecodeHex, Text: xxdDump(data, decodeMaxHex), Note: decodeHexNote(data)}
	}
}

// detectDecoder is DecodeAuto's choice (see Decode).
func detectDecoder(data []byte, depth int) Decoder {
	switch {
	case len(data) == 0:
		return DecodeEmpty
	case hasGzipMagic(data) && depth < decodeMaxDepth:
		return DecodeGzip
	case isCuratorQueue(data) && depth < decodeMaxDepth:
		return DecodeCuratorQueue
	case looksLikeJSONDoc(data):
		return DecodeJSON
	case isPrintableText(data):
		return DecodeText
	case len(data) == 4:
		return DecodeInt32
	case len(data) == 8:
		return DecodeInt64
	default:
		return DecodeHex
	}
}

// decodeHexFallback is the hex dump shown when the decoder asked for does not fit.
func decodeHexFallback(data []byte, why string) Decoded {
	return Decoded{Decoder: DecodeHex, Text: xxdDump(data, decodeMaxHex), Note: joinDecodeNotes(why, decodeHexNote(data))}
}

// decodeHexNote says when a hex dump does not show every byte.
func decodeHexNote(data []byte) string {
	if len(data) <= decodeMaxHex {
		return ""
	}
	return fmt.Sprintf("showing the first %d of %d bytes", decodeMaxHex, len(data))
}

// joinDecodeNotes joins the non-empty notes with "; ".
func joinDecodeNotes(notes ...string) string {
	var b strings.Builder
	for _, n := range notes {
		if n == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(n)
	}
	return b.String()
}
