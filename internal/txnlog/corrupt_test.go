package txnlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureLog returns the bytes of the first log of the post-mortem
// fixtures and its entries.
func fixtureLog(t testing.TB) ([]byte, []Entry) {
	t.Helper()
	path := filepath.Join(fixtures, "datadir", "version-2", "log.1")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(b), "")
	if err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	if len(entries) < 10 {
		t.Fatalf("the fixture log has %d entries; the tests need 10", len(entries))
	}
	return b, entries
}

// outcome is what a reader made of a file: the zxids it read, and its
// errors in order, by sentinel and offset.
type outcome struct {
	zxids  []int64
	errs   []error
	offset []int64
}

func readOutcome(t *testing.T, b []byte) (outcome, error) {
	t.Helper()
	var o outcome
	r, err := NewReader(bytes.NewReader(b), "test.log")
	if err != nil {
		return o, err
	}
	for i := 0; i < len(b)+10; i++ {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return o, nil
		}
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if le.File != "test.log" || !strings.Contains(err.Error(), "offset") {
				t.Errorf("error %q does not name the file and the offset", err)
			}
			o.errs = append(o.errs, le.Err)
			o.offset = append(o.offset, le.Offset)
			continue
		}
		o.zxids = append(o.zxids, e.Header.Zxid)
	}
	t.Fatal("the reader did not end")
	return o, nil
}

func zxidsOf(entries []Entry) []int64 {
	out := make([]int64, len(entries))
	for i, e := range entries {
		out[i] = e.Header.Zxid
	}
	return out
}

func without(z []int64, i int) []int64 {
	return append(append([]int64{}, z[:i]...), z[i+1:]...)
}

func TestDamagedLogs(t *testing.T) {
	t.Parallel()
	orig, entries := fixtureLog(t)
	all := zxidsOf(entries)
	k := 5 // the entry the damage is done to
	e := entries[k]
	end := int(entries[len(entries)-1].Offset) + frameSize + entries[len(entries)-1].Size + 1
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, orig...)) }
	resum := func(b []byte, e Entry) {
		body := b[e.Offset+frameSize : int(e.Offset)+frameSize+e.Size]
		binary.BigEndian.PutUint64(b[e.Offset:], uint64(adler32.Checksum(body)))
	}
	cases := []struct {
		name    string
		file    []byte
		openErr error
		zxids   []int64
		errs    []error
		offsets []int64
	}{
		{name: "empty", file: nil, openErr: ErrEmpty},
		{name: "cut in the header", file: orig[:10], openErr: ErrTruncated},
		{name: "zeros", file: make([]byte, 4096), openErr: ErrBadMagic},
		{name: "a snapshot", file: []byte("ZKSN\x00\x00\x00\x02\xff\xff\xff\xff\xff\xff\xff\xff"), openErr: ErrBadMagic},
		{name: "header only", file: orig[:fileHeaderSize], zxids: nil},
		{name: "zero padded (as written)", file: orig, zxids: all},
		{name: "no padding", file: orig[:end], zxids: all},
		{name: "a few zeros of padding", file: orig[:end+5], zxids: all},
		{name: "cut inside an entry", file: orig[:e.Offset+20], zxids: all[:k],
			errs: []error{ErrTruncated}, offsets: []int64{e.Offset}},
		{name: "cut inside a frame", file: orig[:e.Offset+6], zxids: all[:k],
			errs: []error{ErrTruncated}, offsets: []int64{e.Offset}},
		{name: "a byte flipped in an entry", file: mutate(func(b []byte) []byte {
			b[e.Offset+frameSize+headerSize+2] ^= 0x40
			return b
		}), zxids: without(all, k), errs: []error{ErrChecksum}, offsets: []int64{e.Offset}},
		{name: "no end-of-record byte", file: mutate(func(b []byte) []byte {
			b[int(e.Offset)+frameSize+e.Size] = 'X'
			return b
		}), zxids: without(all, k), errs: []error{ErrBadEnd}, offsets: []int64{e.Offset}},
		{name: "a length out of bounds", file: mutate(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[e.Offset+8:], 0x7fffffff)
			return b
		}), zxids: without(all, k), errs: []error{ErrBadLength}, offsets: []int64{e.Offset}},
		{name: "a negative length", file: mutate(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[e.Offset+8:], 0xfffffff0)
			return b
		}), zxids: without(all, k), errs: []error{ErrBadLength}, offsets: []int64{e.Offset}},
		{name: "an unknown type, checksum right", file: mutate(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[e.Offset+frameSize+headerSize-4:], 77)
			resum(b, e)
			return b
		}), zxids: without(all, k), errs: []error{ErrBadRecord}, offsets: []int64{e.Offset}},
		{name: "garbage between entries", file: mutate(func(b []byte) []byte {
			junk := []byte("\x00\x00\x00\x01garbage that is no entry")
			return append(append(append([]byte{}, b[:e.Offset]...), junk...), b[e.Offset:]...)
		}), zxids: all, errs: []error{ErrBadLength}, offsets: []int64{e.Offset}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := readOutcome(t, c.file)
			if c.openErr != nil {
				var le *Error
				if !errors.Is(err, c.openErr) || !errors.As(err, &le) || le.Offset != 0 {
					t.Fatalf("open: %v, want %v at offset 0", err, c.openErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if !equal(o.zxids, c.zxids) {
				t.Errorf("read zxids %v, want %v", o.zxids, c.zxids)
			}
			if len(o.errs) != len(c.errs) {
				t.Fatalf("errors %v at %v, want %v at %v", o.errs, o.offset, c.errs, c.offsets)
			}
			for i := range c.errs {
				if o.errs[i] != c.errs[i] || o.offset[i] != c.offsets[i] {
					t.Errorf("error %d: %v at %d, want %v at %d", i, o.errs[i], o.offset[i], c.errs[i], c.offsets[i])
				}
			}
		})
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFilesGoOnPastABrokenFile reads two logs, the first cut short: the
// second is read in full after the first's error.
func TestFilesGoOnPastABrokenFile(t *testing.T) {
	t.Parallel()
	orig, entries := fixtureLog(t)
	dir := t.TempDir()
	first, second := filepath.Join(dir, "log.1"), filepath.Join(dir, "log.2")
	if err := os.WriteFile(first, orig[:entries[3].Offset+8], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	f := OpenFiles([]string{first, second, filepath.Join(dir, "log.missing")})
	defer f.Close()
	var n, truncated, missing int
	for {
		_, err := f.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		switch {
		case errors.Is(err, ErrTruncated):
			truncated++
		case errors.Is(err, os.ErrNotExist):
			missing++
		case err != nil:
			t.Fatal(err)
		default:
			n++
		}
	}
	if n != 3+len(entries) || truncated != 1 || missing != 1 {
		t.Errorf("read %d entries, %d truncated, %d missing; want %d, 1, 1", n, truncated, missing, 3+len(entries))
	}
}

// TestSkipUntil passes over entries by their zxids: Next goes on with the
// first later one, and a broken frame on the way stops the skipping where
// Next reports it.
func TestSkipUntil(t *testing.T) {
	t.Parallel()
	orig, entries := fixtureLog(t)
	k := 6
	r, err := NewReader(bytes.NewReader(orig), "")
	if err != nil {
		t.Fatal(err)
	}
	r.SkipUntil(entries[k].Header.Zxid)
	if e, err := r.Next(); err != nil || e.Header.Zxid != entries[k+1].Header.Zxid {
		t.Errorf("after skipping to 0x%x: %v, zxid 0x%x", entries[k].Header.Zxid, err, e.Header.Zxid)
	}
	broken := append([]byte{}, orig...)
	broken[int(entries[3].Offset)+frameSize+entries[3].Size] = 'X'
	r, err = NewReader(bytes.NewReader(broken), "")
	if err != nil {
		t.Fatal(err)
	}
	r.SkipUntil(entries[k].Header.Zxid)
	if _, err := r.Next(); !errors.Is(err, ErrBadEnd) {
		t.Errorf("skipping over a broken frame: %v, want it reported", err)
	}
	if e, err := r.Next(); err != nil || e.Header.Zxid != entries[4].Header.Zxid {
		t.Errorf("after the broken frame: %v, zxid 0x%x", err, e.Header.Zxid)
	}
}
