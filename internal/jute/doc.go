// Package jute encodes and decodes the binary records of ZooKeeper's wire
// protocol, as declared in ZooKeeper's zookeeper.jute: big-endian integers,
// length-prefixed byte buffers and UTF-8 strings (length -1 for null), and
// count-prefixed vectors.
//
// The Decoder never panics on malformed input: the first error sticks, every
// later read returns a zero value, and Err reports what went wrong. Lengths are
// checked against the bytes that remain before anything is allocated, so a
// hostile length cannot make the decoder allocate more than its input.
//
// Both the embedded server (internal/zkserver) and the raw test client used by
// the conformance suite speak through this package; the real ZooKeeper server
// on the other end of the conformance suite keeps the two honest.
package jute
