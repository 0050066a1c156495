package jute

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrShort reports a record that ends before all its fields were read.
var ErrShort = errors.New("jute: record truncated")

// Decoder reads jute primitives from a byte slice. The first error sticks.
type Decoder struct {
	buf []byte
	off int
	err error
}

// NewDecoder returns a Decoder reading b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

// Err returns the first error met, or nil.
func (d *Decoder) Err() error { return d.err }

// Remaining returns how many bytes are left unread.
func (d *Decoder) Remaining() int { return len(d.buf) - d.off }

// Offset returns how many bytes were consumed.
func (d *Decoder) Offset() int { return d.off }

// Fail records err as the decoder's error unless one is already there:
// a record built on top of the primitives (a vector of nested records)
// reports a problem the primitives cannot see.
func (d *Decoder) Fail(err error) { d.fail(err) }

func (d *Decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *Decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > d.Remaining() {
		d.fail(ErrShort)
		return nil
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b
}

// Skip passes over n bytes, failing as a read past the end does.
func (d *Decoder) Skip(n int) { d.take(n) }

// Int reads a 32-bit big-endian integer.
func (d *Decoder) Int() int32 {
	b := d.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

// Long reads a 64-bit big-endian integer.
func (d *Decoder) Long() int64 {
	b := d.take(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// Bool reads one byte; any non-zero value is true, as in Java's readBoolean.
func (d *Decoder) Bool() bool {
	b := d.take(1)
	return b != nil && b[0] != 0
}

// Buffer reads a length-prefixed byte buffer; a length of -1 is nil. The
// result is a copy, so it may outlive the packet.
func (d *Decoder) Buffer() []byte {
	n := d.Int()
	if d.err != nil || n == -1 {
		return nil
	}
	if n < -1 {
		d.fail(fmt.Errorf("jute: negative buffer length %d", n))
		return nil
	}
	b := d.take(int(n))
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// String reads a length-prefixed UTF-8 string; -1 (null) reads as "".
// Invalid UTF-8 is replaced as Java's decoder does, with U+FFFD.
func (d *Decoder) String() string {
	n := d.Int()
	if d.err != nil || n == -1 {
		return ""
	}
	if n < -1 {
		d.fail(fmt.Errorf("jute: negative string length %d", n))
		return ""
	}
	b := d.take(int(n))
	if b == nil {
		return ""
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return toValidUTF8(b)
}

// toValidUTF8 replaces every invalid byte with U+FFFD, one per byte as Java's
// String(bytes, UTF_8) does for stray bytes.
func toValidUTF8(b []byte) string {
	out := make([]rune, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		out = append(out, r) // RuneError for an invalid byte, size 1
		b = b[size:]
	}
	return string(out)
}

// Count reads a vector length: -1 (null) reads as 0. minElem is the smallest
// encoded size of one element, used to reject counts the input cannot hold.
func (d *Decoder) Count(minElem int) int {
	n := d.Int()
	if d.err != nil || n == -1 {
		return 0
	}
	if n < -1 {
		d.fail(fmt.Errorf("jute: negative vector length %d", n))
		return 0
	}
	if minElem > 0 && int(n) > d.Remaining()/minElem {
		d.fail(ErrShort)
		return 0
	}
	return int(n)
}

// Strings reads a vector of strings; null reads as nil.
func (d *Decoder) Strings() []string {
	n := d.Count(4)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.String())
	}
	return out
}

// Encoder appends jute primitives to a growing buffer.
type Encoder struct {
	buf []byte
}

// NewEncoder returns an Encoder that appends to b (which may be nil).
func NewEncoder(b []byte) *Encoder { return &Encoder{buf: b} }

// Bytes returns the encoded bytes.
func (e *Encoder) Bytes() []byte { return e.buf }

// Len returns how many bytes were encoded.
func (e *Encoder) Len() int { return len(e.buf) }

// Int appends a 32-bit big-endian integer.
func (e *Encoder) Int(v int32) { e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(v)) }

// Long appends a 64-bit big-endian integer.
func (e *Encoder) Long(v int64) { e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(v)) }

// Bool appends one byte, 1 for true.
func (e *Encoder) Bool(v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Buffer appends a length-prefixed buffer; nil is written as -1.
func (e *Encoder) Buffer(b []byte) {
	if b == nil {
		e.Int(-1)
		return
	}
	e.Int(int32(len(b)))
	e.buf = append(e.buf, b...)
}

// String appends a length-prefixed UTF-8 string.
func (e *Encoder) String(s string) {
	e.Int(int32(len(s)))
	e.buf = append(e.buf, s...)
}

// Strings appends a vector of strings; nil is written as an empty vector,
// which is what ZooKeeper's server sends for an empty list.
func (e *Encoder) Strings(ss []string) {
	e.Int(int32(len(ss)))
	for _, s := range ss {
		e.String(s)
	}
}
