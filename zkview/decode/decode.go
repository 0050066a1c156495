package decode

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Decoder names a way to show a node's data.
type Decoder string

// The decoders. Null and Empty are never asked for: Data
// reports them when there is no data to decode.
const (
	// Auto picks a decoder by looking at the data (see Data).
	Auto Decoder = "auto"
	// Text shows UTF-8 text, every control character, non-printing
	// rune and invalid byte escaped (\x1b, \u202e).
	Text Decoder = "text"
	// JSON pretty-prints JSON, keys in their input order.
	JSON Decoder = "json"
	// Hex is a hex dump with offsets and an ASCII column, like xxd.
	Hex Decoder = "hex"
	// Gzip gunzips (at most 16 MiB) and decodes what it finds inside
	// automatically.
	Gzip Decoder = "gzip"
	// CuratorQueue reads the item set Curator's DistributedQueue
	// writes into each queue node (ItemSerializer: the version 0x00010001,
	// then per item the opcode 0x01, a big-endian int32 length and the bytes,
	// then the opcode 0x02) and decodes every item automatically.
	CuratorQueue Decoder = "curator-queue"
	// Int32 reads exactly 4 bytes as a big-endian signed integer, as
	// Curator's SharedCount stores its count.
	Int32 Decoder = "int32"
	// Int64 reads exactly 8 bytes as a big-endian signed integer, as
	// Curator's DistributedAtomicLong stores its value.
	Int64 Decoder = "int64"
	// Protobuf reads a protocol buffer message without its schema: field
	// numbers, varints, nested messages and strings (field names where the
	// node's place says which system's message it is: see DataAt).
	Protobuf Decoder = "protobuf"
	// HBasePBUF reads HBase's framing (0xFF, the writer's id, "PBUF") and
	// the protocol buffer inside it.
	HBasePBUF Decoder = "hbase-pbuf"
	// Null is reported for a node whose data is null (go-zookeeper
	// returns nil), which ZooKeeper tells apart from empty data.
	Null Decoder = "null"
	// Empty is reported for a node with zero bytes of data.
	Empty Decoder = "empty"
)

// Output bounds: whatever the size of a value, a decoded Text stays near
// these sizes, cut at the limit with a last line "… N more bytes".
const (
	// maxText is how much text (text, JSON, queue listings) Data
	// shows, in bytes of output.
	maxText = 256 << 10
	// maxHex is how many bytes of input a hex dump shows (4096 lines).
	maxHex = 64 << 10
	// maxGunzip is how much a gzip value may inflate to; beyond it
	// the first maxGunzip bytes are decoded.
	maxGunzip = 16 << 20
	// maxDepth bounds nesting (gzip inside queue items inside gzip…):
	// below it, Auto no longer looks into gzip or queue items.
	maxDepth = 4
)

// Choices returns the decoders a user may choose, Auto first, in the
// order a viewer cycles through them.
func Choices() []Decoder {
	return []Decoder{Auto, Text, JSON, Hex, Gzip,
		CuratorQueue, Int32, Int64, Protobuf, HBasePBUF}
}

// Parse maps a user's choice (as for a --decode flag) to a Decoder.
func Parse(s string) (Decoder, error) {
	want := Decoder(strings.ToLower(strings.TrimSpace(s)))
	if want == "" {
		return Auto, nil
	}
	for _, d := range Choices() {
		if d == want {
			return d, nil
		}
	}
	names := make([]string, 0, 8)
	for _, d := range Choices() {
		names = append(names, string(d))
	}
	return "", fmt.Errorf("unknown decoder %q (want one of %s)", s, strings.Join(names, ", "))
}

// Result is a node's data made ready to show.
type Result struct {
	// Decoder is the decoder that produced Text: the one asked for, the one
	// Auto chose, Hex when the one asked for does not fit the
	// data, Null/Empty when there is no data, or "" for data the
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

// Data shows data with the given decoder. It never fails: a decoder that
// does not fit the data (JSON that does not parse, an int32 that is not 4
// bytes, a corrupt gzip) falls back to a hex dump with a Note saying why, and
// no data at all is Null (nil) or Empty.
//
// Auto is conservative; it picks, in this order:
//
//   - gzip when the data starts with gzip's magic (1f 8b 08) and inflates;
//     the inflated bytes are then decoded with Auto (a corrupt gzip
//     falls back to hex, noted);
//   - curator-queue when the data is a complete Curator item set: the
//     version 00 01 00 01, well-formed item records, the end opcode as the
//     last byte;
//   - json when the data is valid UTF-8, its first non-blank byte is { or [,
//     and it parses as JSON (a bare string or number is shown as text);
//   - text when the data is valid UTF-8 with no control characters other than
//     tab, newline and carriage return;
//   - hbase-pbuf for HBase's framing (0xFF and the writer's id, then
//     "PBUF") around a protocol buffer;
//   - int32 for exactly 4 bytes and int64 for exactly 8 bytes that are not
//     text by the rule above;
//   - protobuf for a message that parses to its end with small field
//     numbers and at least one string or nested message;
//   - hex for everything else.
//
// Gzip inside queue items inside gzip… is looked into 4 levels deep, no more.
// Text output is cut at 256 KiB and hex dumps at 64 KiB of input, so a
// 1 MiB value decodes quickly and shows a bounded Text.
func Data(data []byte, with Decoder) Result {
	return decodeAt(data, with, 0)
}

// DataAt is Data for the node at path p: where the node is tells which
// system's protocol buffer message it holds (HBase's Master under
// /hbase/master, Hadoop's ActiveNodeInfo in ActiveStandbyElectorLock,
// BookKeeper's BookieServiceInfoFormat under available/…), so that its
// fields are shown by name.
func DataAt(p string, data []byte, with Decoder) Result {
	if len(data) == 0 {
		return Data(data, with)
	}
	chosen := with
	if with == Auto || with == "" {
		chosen = detectDecoder(data, 0)
	}
	switch chosen {
	case HBasePBUF:
		return decodeHBase(data, p)
	case Protobuf:
		return decodeProtobufAt(data, p)
	}
	return Data(data, with)
}

// decodeAt is Data at a nesting depth (inside a gzip or a queue item).
func decodeAt(data []byte, with Decoder, depth int) Result {
	if data == nil {
		return Result{Decoder: Null, Note: "no data (null)" + decodeNoDataNote(with)}
	}
	if len(data) == 0 {
		return Result{Decoder: Empty, Note: "no data (0 bytes)" + decodeNoDataNote(with)}
	}
	var unknown string
	switch with {
	case Auto, "":
		with = detectDecoder(data, depth)
	case Text, JSON, Hex, Gzip, CuratorQueue, Int32, Int64, Protobuf, HBasePBUF:
	default:
		auto := detectDecoder(data, depth)
		unknown = fmt.Sprintf("unknown decoder %q, chose %s", with, auto)
		with = auto
	}
	d := decodeWith(data, with, depth)
	d.Note = joinNotes(unknown, d.Note)
	return d
}

// decodeNoDataNote is what asking for a decoder of no data adds to the note.
func decodeNoDataNote(with Decoder) string {
	if with == Int64 {
		return "; Curator's DistributedAtomicLong reads no data as 0"
	}
	return ""
}

// decodeWith applies one decoder, falling back to hex when it does not fit.
func decodeWith(data []byte, with Decoder, depth int) Result {
	switch with {
	case Text:
		return decodeText(data)
	case JSON:
		return decodeJSON(data)
	case Gzip:
		return decodeGzip(data, depth)
	case CuratorQueue:
		return decodeCuratorQueue(data, depth)
	case Protobuf:
		return decodeProtobuf(data, nil)
	case HBasePBUF:
		return decodeHBase(data, "")
	case Int32:
		if len(data) != 4 {
			return hexFallback(data, fmt.Sprintf("not an int32: %d bytes, want exactly 4", len(data)))
		}
		v := int32(binary.BigEndian.Uint32(data))
		return Result{Decoder: Int32, Text: strconv.FormatInt(int64(v), 10),
			Note: fmt.Sprintf("big-endian int32 (as Curator's SharedCount stores it), bytes 0x%08x", uint32(v))}
	case Int64:
		if len(data) != 8 {
			return hexFallback(data, fmt.Sprintf("not an int64: %d bytes, want exactly 8", len(data)))
		}
		v := int64(binary.BigEndian.Uint64(data))
		return Result{Decoder: Int64, Text: strconv.FormatInt(v, 10),
			Note: fmt.Sprintf("big-endian int64 (as Curator's DistributedAtomicLong stores it), bytes 0x%016x", uint64(v))}
	default:
		return Result{Decoder: Hex, Text: xxdDump(data, maxHex), Note: decodeHexNote(data)}
	}
}

// detectDecoder is Auto's choice (see Data).
func detectDecoder(data []byte, depth int) Decoder {
	switch {
	case len(data) == 0:
		return Empty
	case hasGzipMagic(data) && depth < maxDepth:
		return Gzip
	case isCuratorQueue(data) && depth < maxDepth:
		return CuratorQueue
	case isHBaseFrame(data):
		return HBasePBUF
	case looksLikeJSONDoc(data):
		return JSON
	case isPrintableText(data):
		return Text
	case len(data) == 4:
		return Int32
	case len(data) == 8:
		return Int64
	case isProtobuf(data):
		return Protobuf
	default:
		return Hex
	}
}

// hexFallback is the hex dump shown when the decoder asked for does not
// fit.
func hexFallback(data []byte, why string) Result {
	return Result{Decoder: Hex, Text: xxdDump(data, maxHex), Note: joinNotes(why, decodeHexNote(data))}
}

// decodeHexNote says when a hex dump does not show every byte.
func decodeHexNote(data []byte) string {
	if len(data) <= maxHex {
		return ""
	}
	return fmt.Sprintf("showing the first %d of %d bytes", maxHex, len(data))
}

// joinNotes joins the non-empty notes with "; ".
func joinNotes(notes ...string) string {
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
