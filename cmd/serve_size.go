package cmd

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag holding a number of bytes, written 256MiB, 1GiB,
// 512KiB or in bytes.
type byteSize int64

var sizeUnits = []struct {
	suffix string
	bytes  int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

func (b *byteSize) Set(s string) error {
	text := strings.TrimSpace(s)
	unit := int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(text, u.suffix); ok {
			text, unit = strings.TrimSpace(rest), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/unit {
		return fmt.Errorf("%q is not a size (write it as 256MiB, 1GiB, 512KiB, or in bytes)", s)
	}
	*b = byteSize(n * unit)
	return nil
}

func (b *byteSize) String() string {
	for _, u := range sizeUnits[:3] {
		if *b != 0 && int64(*b)%u.bytes == 0 {
			return strconv.FormatInt(int64(*b)/u.bytes, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Type() string { return "size" }
