package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// largest reads the largest of the fixtures' compressed snapshots whose
// names match pattern.
func largest(t testing.TB, pattern string) []byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(fixtures, "snapshots", pattern))
	best, size := "", int64(-1)
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Size() > size {
			best, size = p, fi.Size()
		}
	}
	if best == "" {
		t.Fatalf("no fixture snapshot %s", pattern)
	}
	b, err := os.ReadFile(best)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newestPlain is the last snapshot of the fixtures' data directory.
func newestPlain(t testing.TB) []byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(fixtures, "datadir", "version-2", "snapshot.*"))
	if len(paths) == 0 {
		t.Fatal("no fixture snapshots")
	}
	best, size := "", 0
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && int(fi.Size()) > size {
			best, size = p, int(fi.Size())
		}
	}
	b, err := os.ReadFile(best)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readSnapshot reads a whole snapshot and returns the nodes read and the
// first error (nil when it ended well).
func readSnapshot(t *testing.T, b []byte) (int, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), "test.snap")
	if err != nil {
		return 0, err
	}
	for n := 0; ; n++ {
		if n > len(b) {
			t.Fatal("the reader did not end")
		}
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// errDamaged stands for any of the errors of damaged bytes.
var errDamaged = errors.New("corrupt, bad length, checksum mismatch or truncated")

func TestDamagedSnapshots(t *testing.T) {
	t.Parallel()
	plain := newestPlain(t)
	good, err := readSnapshot(t, plain)
	if err != nil || good < 8 {
		t.Fatalf("the fixture reads %d nodes, %v", good, err)
	}
	data := bytes.Index(plain, []byte("post-mortem"))
	if data < 0 {
		t.Fatal("no data of /pm in the fixture")
	}
	gz := largest(t, "snapshot.*.gz")
	sn := largest(t, "snapshot.*.snappy")
	log := fixture(t, filepath.Join("datadir", "version-2"), "log.1")
	mutate := func(b []byte, f func(b []byte)) []byte {
		c := append([]byte{}, b...)
		f(c)
		return c
	}
	cases := []struct {
		name string
		file []byte
		want error
	}{
		{"empty", nil, ErrEmpty},
		{"zeros", make([]byte, 1024), ErrBadMagic},
		{"a transaction log", log, ErrBadMagic},
		{"cut in the header", plain[:9], ErrTruncated},
		{"cut in the ACL cache", plain[:40], ErrTruncated},
		{"cut in the nodes", plain[:len(plain)/2], ErrTruncated},
		{"cut before the seal", plain[:bytes.LastIndex(plain, []byte("\x00\x00\x00\x01/"))-16], ErrTruncated},
		{"a byte of data flipped", mutate(plain, func(b []byte) { b[data+3] ^= 0x20 }), ErrChecksum},
		{"a data length out of bounds", mutate(plain, func(b []byte) {
			binary.BigEndian.PutUint32(b[data-4:], 0x7ffffff0)
		}), ErrBadLength},
		{"the seal without its slash", mutate(plain, func(b []byte) {
			i := bytes.LastIndex(b, []byte("\x00\x00\x00\x01/"))
			b[i+4] = 'x'
		}), ErrCorrupt},
		{"gzip cut short", gz[:len(gz)-30], ErrTruncated},
		// A damaged compressed stream may still inflate, to garbage: which
		// check catches it first depends on the byte.
		{"gzip damaged", mutate(gz, func(b []byte) { b[len(b)/2] ^= 0xff }), errDamaged},
		{"snappy cut short", sn[:len(sn)-40], ErrTruncated},
		{"snappy block damaged", mutate(sn, func(b []byte) { b[20] ^= 0xff; b[21] ^= 0xff }), errDamaged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readSnapshot(t, c.file)
			var se *Error
			ok := errors.Is(err, c.want)
			if c.want == errDamaged {
				ok = errors.Is(err, ErrCorrupt) || errors.Is(err, ErrBadLength) || errors.Is(err, ErrChecksum) || errors.Is(err, ErrTruncated)
			}
			if !ok || !errors.As(err, &se) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if se.File != "test.snap" || !strings.Contains(err.Error(), "offset") {
				t.Errorf("error %q does not name the file and the offset", err)
			}
		})
	}
}
