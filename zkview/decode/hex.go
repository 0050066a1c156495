package decode

import (
	"strconv"
	"strings"
)

// xxdDump formats data as xxd does: per 16 bytes an 8-digit hex offset,
// eight groups of two bytes in hex and the bytes as ASCII ('.' for anything
// not printable ASCII):
//
//	00000000: 0001 0001 0100 0000 0c68 656c 6c6f 2c20  .........hello,
//
// It shows at most limit bytes, then a line "… N more bytes".
func xxdDump(data []byte, limit int) string {
	const digits = "0123456789abcdef"
	shown := data
	if limit > 0 && len(shown) > limit {
		shown = shown[:limit]
	}
	var b strings.Builder
	lines := (len(shown) + 15) / 16
	b.Grow(lines*68 + 32)
	var line [68]byte
	for off := 0; off < len(shown); off += 16 {
		row := shown[off:min(off+16, len(shown))]
		for i := range line {
			line[i] = ' '
		}
		o := uint32(off)
		for i := 7; i >= 0; i-- {
			line[i] = digits[o&0x0f]
			o >>= 4
		}
		line[8] = ':'
		for i, c := range row {
			pos := 10 + (i/2)*5 + (i%2)*2
			line[pos] = digits[c>>4]
			line[pos+1] = digits[c&0x0f]
			if c >= 0x20 && c < 0x7f {
				line[51+i] = c
			} else {
				line[51+i] = '.'
			}
		}
		if off > 0 {
			b.WriteByte('\n')
		}
		b.Write(line[:51+len(row)])
	}
	if rest := len(data) - len(shown); rest > 0 {
		b.WriteString("\n… ")
		b.WriteString(strconv.Itoa(rest))
		b.WriteString(" more bytes")
	}
	return b.String()
}
