package decode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
)

// HBase's framing of its znodes' data: RecoverableZooKeeper prepends
// metadata to every value it writes (hbase-zookeeper ZKMetadata.java: the
// magic byte 0xFF, a big-endian int32 length, then that many bytes — the
// writer's id, "pid@host", and 8 random salt bytes), and the values are
// protocol buffers after the 4-byte magic "PBUF" (ProtobufUtil's
// PB_MAGIC; ZooKeeper.proto says so).
const (
	hbaseMetaMagic = 0xFF
	hbaseSaltLen   = 8
)

var hbasePBMagic = []byte("PBUF")

// HBaseFrame is a value in HBase's framing.
type HBaseFrame struct {
	// ID is the writer's identifier ("12345@rs1.example.com") without the
	// salt; empty when the value had no metadata.
	ID string
	// Message is what follows "PBUF": the protocol buffer.
	Message []byte
}

// ParseHBaseFrame reads HBase's metadata (when present) and the PBUF
// magic; ok is false when the data is not in that framing.
func ParseHBaseFrame(data []byte) (HBaseFrame, bool) {
	var f HBaseFrame
	rest := data
	if len(rest) > 0 && rest[0] == hbaseMetaMagic {
		if len(rest) < 5 {
			return f, false
		}
		n := int64(int32(binary.BigEndian.Uint32(rest[1:5])))
		if n < 0 || n > int64(len(rest)-5) {
			return f, false
		}
		id := rest[5 : 5+n]
		if len(id) >= hbaseSaltLen {
			id = id[:len(id)-hbaseSaltLen]
		}
		f.ID = string(id)
		rest = rest[5+n:]
	}
	if !bytes.HasPrefix(rest, hbasePBMagic) {
		return f, false
	}
	f.Message = rest[len(hbasePBMagic):]
	return f, true
}

// isHBaseFrame is Auto's test: the framing, and a message that parses.
func isHBaseFrame(data []byte) bool {
	f, ok := ParseHBaseFrame(data)
	if !ok {
		return false
	}
	_, err := ParseProtobuf(f.Message)
	return err == nil
}

// decodeHBase shows an HBase value: the writer's id, then the message,
// named when where it is says which (p; "" when unknown).
func decodeHBase(data []byte, p string) Result {
	f, ok := ParseHBaseFrame(data)
	if !ok {
		return hexFallback(data, "not HBase's framing (0xFF metadata and/or the PBUF magic)")
	}
	msg, err := ParseProtobuf(f.Message)
	if err != nil {
		return hexFallback(data, "HBase framing around a value that is no protocol buffer: "+err.Error())
	}
	schema := schemaFor(p, true, msg)
	var w pbWriter
	w.message(msg, schema, 0)
	var note []string
	if f.ID != "" {
		id, _ := escapeTextBounded([]byte(f.ID), false, 256)
		note = append(note, fmt.Sprintf("HBase value written by %s", id))
	} else {
		note = append(note, "HBase value without writer metadata")
	}
	if schema != nil {
		note = append(note, "PBUF "+schema.name+" ("+schema.source+")")
	} else {
		note = append(note, "PBUF protocol buffer, no schema for this node: field numbers and guessed types")
	}
	return Result{Decoder: HBasePBUF, Text: w.text.String(), Note: strings.Join(note, "; ")}
}

// decodeProtobufAt is decodeProtobuf with the message named by where the
// node is.
func decodeProtobufAt(data []byte, p string) Result {
	msg, err := ParseProtobuf(data)
	if err != nil {
		return hexFallback(data, "not a protocol buffer message: "+err.Error())
	}
	return decodeProtobuf(data, schemaFor(p, false, msg))
}
