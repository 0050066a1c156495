package syslayout

import "encoding/binary"

// PB builds a protocol buffer message, field by field, as protobuf-java's
// CodedOutputStream writes it: a tag (field number << 3 | wire type), then
// a varint or a length-delimited value.
type PB []byte

// Varint appends a varint field (int32, int64, uint, bool, enum).
func (m PB) Varint(num int, v uint64) PB {
	m = binary.AppendUvarint(m, uint64(num)<<3)
	return binary.AppendUvarint(m, v)
}

// Int appends a signed int32/int64 field (negative values take ten bytes).
func (m PB) Int(num int, v int64) PB { return m.Varint(num, uint64(v)) }

// Bytes appends a length-delimited field.
func (m PB) Bytes(num int, b []byte) PB {
	m = binary.AppendUvarint(m, uint64(num)<<3|2)
	m = binary.AppendUvarint(m, uint64(len(b)))
	return append(m, b...)
}

// String appends a string field.
func (m PB) String(num int, s string) PB { return m.Bytes(num, []byte(s)) }

// Message appends a nested message field.
func (m PB) Message(num int, sub PB) PB { return m.Bytes(num, sub) }

// HBaseValue frames a message as HBase writes its znodes' data: the
// metadata RecoverableZooKeeper prepends (hbase-zookeeper ZKMetadata.java:
// the magic 0xFF, a big-endian int32 length, the writer's id "pid@host"
// and 8 salt bytes), then "PBUF" (ProtobufUtil.PB_MAGIC), then the message.
func HBaseValue(id string, msg PB) []byte {
	salt := []byte{0x5a, 0x4b, 0x58, 0x2d, 0x73, 0x61, 0x6c, 0x74} // random in HBase; fixed here
	out := []byte{0xFF}
	out = binary.BigEndian.AppendUint32(out, uint32(len(id)+len(salt)))
	out = append(out, id...)
	out = append(out, salt...)
	out = append(out, "PBUF"...)
	return append(out, msg...)
}
