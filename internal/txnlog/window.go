package txnlog

import (
	"errors"
	"io"
)

// windowStart is the window's first size; it doubles only as bytes
// arrive, so a hostile length in a short file allocates no more than
// about twice the file.
const windowStart = 256 << 10

// window is a sliding view of a stream: the bytes from the current file
// offset on, read as they are needed.
type window struct {
	src        io.Reader
	buf        []byte
	start, end int   // unread bytes are buf[start:end]
	off        int64 // file offset of buf[start]
	eof        bool
	err        error // a read error other than EOF
}

func newWindow(r io.Reader) *window { return &window{src: r} }

// avail is how many bytes are buffered.
func (w *window) avail() int { return w.end - w.start }

// fill makes at least n bytes available; false when the stream ends (or
// fails, see w.err) first.
func (w *window) fill(n int) bool {
	for w.avail() < n {
		if w.eof || w.err != nil {
			return false
		}
		if w.start > 0 && len(w.buf)-w.end < len(w.buf)/2 {
			copy(w.buf, w.buf[w.start:w.end])
			w.end -= w.start
			w.start = 0
		}
		if w.end == len(w.buf) {
			size := max(2*len(w.buf), windowStart)
			buf := make([]byte, size)
			w.end = copy(buf, w.buf[w.start:w.end])
			w.start = 0
			w.buf = buf
		}
		m, err := w.src.Read(w.buf[w.end:])
		w.end += m
		switch {
		case errors.Is(err, io.EOF):
			w.eof = true
		case err != nil:
			w.err = err
		}
	}
	return true
}

// peek returns the next n bytes, which fill made available; they stay
// valid until the next fill.
func (w *window) peek(n int) []byte { return w.buf[w.start : w.start+n] }

// skip consumes n available bytes.
func (w *window) skip(n int) {
	w.start += n
	w.off += int64(n)
}
