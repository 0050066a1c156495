package snapshot

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the snapshot reader, plain and
// behind gzip and snappy headers: it must never panic, must end, and every
// problem must be an *Error.
func FuzzReader(f *testing.F) {
	f.Add(newestPlain(f)[:300])
	f.Add(largest(f, "snapshot.*.gz"))
	f.Add(largest(f, "snapshot.*.snappy"))
	f.Add([]byte("ZKSN\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01/"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), "")
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("open error %v is not an *Error", err)
			}
			return
		}
		for i := 0; ; i++ {
			if i > len(b)+1 {
				t.Fatalf("no end after %d nodes of %d bytes", i, len(b))
			}
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var se *Error
				if !errors.As(err, &se) {
					t.Fatalf("error %v is not an *Error", err)
				}
				return
			}
		}
	})
}
