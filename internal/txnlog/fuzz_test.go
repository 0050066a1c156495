package txnlog

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the log reader: it must never panic,
// must end (each Next makes progress), and every problem must be an
// *Error with an offset inside the input.
func FuzzReader(f *testing.F) {
	orig, entries := fixtureLog(f)
	f.Add(orig[:entries[4].Offset])
	f.Add(orig[:entries[2].Offset+9])
	broken := append([]byte{}, orig[:entries[6].Offset]...)
	broken[entries[3].Offset+20] ^= 1
	f.Add(broken)
	f.Add([]byte("ZKLG\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x05hello"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), "")
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("open error %v is not an *Error", err)
			}
			return
		}
		for i := 0; ; i++ {
			if i > len(b)+2 {
				t.Fatalf("no end after %d calls on %d bytes", i, len(b))
			}
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var le *Error
			if err != nil && (!errors.As(err, &le) || le.Offset < 0 || le.Offset > int64(len(b))) {
				t.Fatalf("error %v: not an *Error with an offset in the input", err)
			}
		}
	})
}
