package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Protocol buffers without a schema: the wire format alone says each
// field's number and wire type (varint, 64-bit, length-delimited, 32-bit);
// whether a length-delimited field is a string, bytes or a nested message
// is guessed (see guessBytes). Where the message is known (a schema from
// schemas.go) fields get their names and types instead.

// The wire types (groups, 3 and 4, are long deprecated and not read).
const (
	pbVarint  = 0
	pbFixed64 = 1
	pbBytes   = 2
	pbFixed32 = 5
)

// pbMaxDepth bounds the nesting a decoder follows.
const pbMaxDepth = 8

// PBField is one field of a protocol buffer message as its wire format
// gives it. Num is the field number; for Wire pbVarint Varint holds the
// value, for 64- and 32-bit fields Fixed, for length-delimited fields
// Bytes.
type PBField struct {
	Num    int
	Wire   int
	Varint uint64
	Fixed  uint64
	Bytes  []byte
}

// PBMessage is a message's fields in wire order.
type PBMessage []PBField

var errPBTruncated = errors.New("truncated")

// ParseProtobuf reads a whole protocol buffer message; an error when the
// data is not one (a bad tag, a field running past the end, a group).
func ParseProtobuf(data []byte) (PBMessage, error) {
	var msg PBMessage
	for off := 0; off < len(data); {
		tag, n := binary.Uvarint(data[off:])
		if n <= 0 {
			return nil, fmt.Errorf("offset %d: bad tag varint", off)
		}
		off += n
		num, wire := tag>>3, int(tag&7)
		if num == 0 || num > 1<<29-1 {
			return nil, fmt.Errorf("offset %d: field number %d out of range", off-n, num)
		}
		f := PBField{Num: int(num), Wire: wire}
		switch wire {
		case pbVarint:
			v, n := binary.Uvarint(data[off:])
			if n <= 0 {
				return nil, fmt.Errorf("field %d: %w varint", num, errPBTruncated)
			}
			f.Varint, off = v, off+n
		case pbFixed64:
			if len(data)-off < 8 {
				return nil, fmt.Errorf("field %d: %w 64-bit value", num, errPBTruncated)
			}
			f.Fixed, off = binary.LittleEndian.Uint64(data[off:]), off+8
		case pbFixed32:
			if len(data)-off < 4 {
				return nil, fmt.Errorf("field %d: %w 32-bit value", num, errPBTruncated)
			}
			f.Fixed, off = uint64(binary.LittleEndian.Uint32(data[off:])), off+4
		case pbBytes:
			size, n := binary.Uvarint(data[off:])
			if n <= 0 || size > uint64(len(data)-off-n) {
				return nil, fmt.Errorf("field %d: length runs past the end", num)
			}
			off += n
			f.Bytes, off = data[off:off+int(size):off+int(size)], off+int(size)
		default:
			return nil, fmt.Errorf("field %d: wire type %d is not read", num, wire)
		}
		msg = append(msg, f)
	}
	return msg, nil
}

// field returns the last occurrence of a field (the protobuf rule for a
// repeated singular field).
func (m PBMessage) field(num int) (PBField, bool) {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i].Num == num {
			return m[i], true
		}
	}
	return PBField{}, false
}

// String returns a length-delimited field as text.
func (m PBMessage) String(num int) (string, bool) {
	f, ok := m.field(num)
	if !ok || f.Wire != pbBytes {
		return "", false
	}
	return string(f.Bytes), true
}

// Uint returns a varint field.
func (m PBMessage) Uint(num int) (uint64, bool) {
	f, ok := m.field(num)
	if !ok || f.Wire != pbVarint {
		return 0, false
	}
	return f.Varint, true
}

// Message returns a nested message field.
func (m PBMessage) Message(num int) (PBMessage, bool) {
	f, ok := m.field(num)
	if !ok || f.Wire != pbBytes {
		return nil, false
	}
	sub, err := ParseProtobuf(f.Bytes)
	return sub, err == nil
}

// Messages returns every occurrence of a repeated message field.
func (m PBMessage) Messages(num int) []PBMessage {
	var out []PBMessage
	for _, f := range m {
		if f.Num == num && f.Wire == pbBytes {
			if sub, err := ParseProtobuf(f.Bytes); err == nil {
				out = append(out, sub)
			}
		}
	}
	return out
}

// isProtobuf is Auto's test for a message with no framing of its own: it
// parses to its end, with small field numbers (a schema numbers from 1,
// rarely past a few hundred) and at least one field that reads as text or
// a nested message, so that arbitrary bytes that happen to parse are left
// to the hex dump.
func isProtobuf(data []byte) bool {
	if len(data) < 2 {
		return false
	}
	msg, err := ParseProtobuf(data)
	if err != nil || len(msg) == 0 {
		return false
	}
	telling := false
	for _, f := range msg {
		if f.Num > 1000 {
			return false
		}
		if f.Wire == pbBytes && len(f.Bytes) > 0 {
			if k, _ := guessBytes(f.Bytes, 1); k != pbGuessBytes {
				telling = true
			}
		}
	}
	return telling
}

// How a length-delimited field without a schema is shown.
const (
	pbGuessString = iota
	pbGuessMessage
	pbGuessBytes
)

// guessBytes says what a length-delimited field most likely holds: text
// when it is printable (and does not start with a control character, as a
// nested message's first tag usually is), else a message when it parses as
// one, else text when printable after all, else bytes.
func guessBytes(b []byte, depth int) (int, PBMessage) {
	printable := isPrintableText(b) && utf8.Valid(b)
	if printable && (len(b) == 0 || b[0] >= 0x20) {
		return pbGuessString, nil
	}
	if depth < pbMaxDepth {
		if sub, err := ParseProtobuf(b); err == nil && len(sub) > 0 {
			return pbGuessMessage, sub
		}
	}
	if printable {
		return pbGuessString, nil
	}
	return pbGuessBytes, nil
}

// pbWriter renders a message as indented "name: value" lines, bounded.
type pbWriter struct {
	text strings.Builder
}

func (w *pbWriter) line(indent int, s string) {
	if w.text.Len() >= maxText {
		return
	}
	if w.text.Len() > 0 {
		w.text.WriteByte('\n')
	}
	w.text.WriteString(strings.Repeat("  ", indent))
	w.text.WriteString(s)
}

// message writes msg's fields, named by schema when one is given (nil:
// field numbers and guessed types).
func (w *pbWriter) message(msg PBMessage, schema *pbSchema, indent int) {
	for _, f := range msg {
		var spec pbFieldSpec
		name := strconv.Itoa(f.Num)
		if schema != nil {
			if s, ok := schema.fields[f.Num]; ok {
				spec, name = s, s.name
			}
		}
		w.field(f, spec, name, indent)
	}
}

func (w *pbWriter) field(f PBField, spec pbFieldSpec, name string, indent int) {
	switch f.Wire {
	case pbVarint:
		w.line(indent, name+": "+pbVarintText(f.Varint, spec))
		return
	case pbFixed64:
		if spec.kind == pbDouble {
			w.line(indent, name+": "+strconv.FormatFloat(math.Float64frombits(f.Fixed), 'g', -1, 64))
			return
		}
		w.line(indent, fmt.Sprintf("%s: %d (64-bit 0x%016x)", name, int64(f.Fixed), f.Fixed))
		return
	case pbFixed32:
		if spec.kind == pbFloat {
			w.line(indent, name+": "+strconv.FormatFloat(float64(math.Float32frombits(uint32(f.Fixed))), 'g', -1, 32))
			return
		}
		w.line(indent, fmt.Sprintf("%s: %d (32-bit 0x%08x)", name, int32(f.Fixed), f.Fixed))
		return
	}
	// Length-delimited: what the schema says, else a guess.
	switch spec.kind {
	case pbString:
		w.line(indent, name+": "+quoteText(f.Bytes))
		return
	case pbRawBytes:
		w.line(indent, name+": "+bytesText(f.Bytes))
		return
	case pbMsg:
		if sub, err := ParseProtobuf(f.Bytes); err == nil && indent < pbMaxDepth {
			w.line(indent, name+" {")
			w.message(sub, spec.msg, indent+1)
			w.line(indent, "}")
			return
		}
	}
	kind, sub := guessBytes(f.Bytes, indent+1)
	switch kind {
	case pbGuessMessage:
		w.line(indent, name+" {")
		w.message(sub, nil, indent+1)
		w.line(indent, "}")
	case pbGuessString:
		w.line(indent, name+": "+quoteText(f.Bytes))
	default:
		w.line(indent, name+": "+bytesText(f.Bytes))
	}
}

// pbVarintText shows a varint as its schema type says: a bool, an enum's
// name, a signed int; without one, as unsigned, and as signed too when it
// is a negative int64.
func pbVarintText(v uint64, spec pbFieldSpec) string {
	switch spec.kind {
	case pbBool:
		return strconv.FormatBool(v != 0)
	case pbEnum:
		if n, ok := spec.enum[int(v)]; ok {
			return n
		}
		return strconv.FormatUint(v, 10)
	case pbInt:
		return strconv.FormatInt(int64(v), 10)
	case pbUint:
		return strconv.FormatUint(v, 10)
	}
	if int64(v) < 0 {
		return fmt.Sprintf("%d (as int64: %d)", v, int64(v))
	}
	return strconv.FormatUint(v, 10)
}

// quoteText shows a string field on one line, escaped.
func quoteText(b []byte) string {
	s, _ := escapeTextBounded(b, false, 4096)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// bytesText shows a bytes field as hex, the first 64 bytes.
func bytesText(b []byte) string {
	const show = 64
	s := fmt.Sprintf("%x", b[:min(len(b), show)])
	if len(b) > show {
		s += fmt.Sprintf("… (%d bytes)", len(b))
	}
	return "0x" + s
}

// decodeProtobuf shows data as a protocol buffer message, named by schema
// when one is given, or falls back to hex.
func decodeProtobuf(data []byte, schema *pbSchema) Result {
	msg, err := ParseProtobuf(data)
	if err != nil {
		return hexFallback(data, "not a protocol buffer message: "+err.Error())
	}
	var w pbWriter
	w.message(msg, schema, 0)
	note := fmt.Sprintf("protocol buffer, %d fields, no schema: field numbers and guessed types", len(msg))
	if schema != nil {
		note = "protocol buffer " + schema.name + " (" + schema.source + ")"
	}
	return Result{Decoder: Protobuf, Text: w.text.String(), Note: note}
}

// pbCompact shows a message on one line for summaries: "1:\"rs1\" 2:16000
// 3{1:\"a\"}", strings cut at 40 bytes, at most 300 bytes in all.
func pbCompact(msg PBMessage, depth int) string {
	var b strings.Builder
	for i, f := range msg {
		if b.Len() > 300 {
			b.WriteString(" …")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(f.Num))
		switch f.Wire {
		case pbVarint:
			b.WriteString(":" + strconv.FormatUint(f.Varint, 10))
		case pbFixed64, pbFixed32:
			b.WriteString(":" + strconv.FormatUint(f.Fixed, 10))
		default:
			kind, sub := guessBytes(f.Bytes, depth+1)
			switch kind {
			case pbGuessMessage:
				b.WriteString("{" + pbCompact(sub, depth+1) + "}")
			case pbGuessString:
				s, _ := escapeTextBounded(f.Bytes[:min(len(f.Bytes), 40)], false, 160)
				b.WriteString(`:"` + s + `"`)
			default:
				b.WriteString(fmt.Sprintf(":<%d bytes>", len(f.Bytes)))
			}
		}
	}
	return b.String()
}
