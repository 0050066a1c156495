package decode

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// hasGzipMagic reports whether data starts with gzip's magic and the deflate
// method byte (1f 8b 08).
func hasGzipMagic(data []byte) bool {
	return len(data) >= 3 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 0x08
}

// gunzipCapped inflates data, at most limit bytes of it; truncated says there was
// more. Concatenated gzip members are read as one stream, as gunzip does.
func gunzipCapped(data []byte, limit int) (out []byte, truncated bool, err error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, false, err
	}
	defer zr.Close()
	var buf bytes.Buffer
	buf.Grow(min(4*len(data), limit) + 512)
	n, err := io.Copy(&buf, io.LimitReader(zr, int64(limit)+1))
	if err != nil {
		return nil, false, err
	}
	if n > int64(limit) {
		return buf.Bytes()[:limit], true, nil
	}
	return buf.Bytes(), false, nil
}

// describeGzipError words a gunzip failure for a note.
func describeGzipError(err error) string {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated"
	case errors.Is(err, gzip.ErrChecksum):
		return "checksum mismatch"
	}
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "gzip: "), "flate: ")
}

// decodeGzip inflates data and decodes the result automatically; a corrupt
// or too deeply nested gzip falls back to hex.
func decodeGzip(data []byte, depth int) Result {
	if !hasGzipMagic(data) {
		return hexFallback(data, "not gzip: no gzip magic (1f 8b 08)")
	}
	if depth >= maxDepth {
		return hexFallback(data, fmt.Sprintf("gzip nested more than %d deep, not inflated", maxDepth))
	}
	inner, truncated, err := gunzipCapped(data, maxGunzip)
	if err != nil {
		return hexFallback(data, "corrupt gzip ("+describeGzipError(err)+")")
	}
	if inner == nil {
		inner = []byte{} // gzip of nothing is empty, not null
	}
	d := decodeAt(inner, Auto, depth+1)
	what := fmt.Sprintf("gzip: %d → %d bytes, %s", len(data), len(inner), d.Decoder)
	if truncated {
		what = fmt.Sprintf("gzip: %d bytes inflate to more than %d MiB; the first %d MiB shown as %s",
			len(data), maxGunzip>>20, maxGunzip>>20, d.Decoder)
	}
	return Result{Decoder: Gzip, Text: d.Text, Note: joinNotes(what, d.Note)}
}
