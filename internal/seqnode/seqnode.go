// Package seqnode reads the sequence numbers ZooKeeper appends to the
// names of sequential nodes. One reading for the recipes that write such
// nodes and for the recogniser that judges them by those recipes' rule.
package seqnode

import (
	"strconv"
	"strings"
)

// After returns the sequence number after the last marker in name. The
// server writes it as %010d of a signed 32-bit counter, so after a wrap it
// is negative ("-2147483648"); fewer than ten characters, or anything but
// digits after an optional leading minus, is not a sequence number.
func After(name, marker string) (int32, bool) {
	i := strings.LastIndex(name, marker)
	if i < 0 {
		return 0, false
	}
	digits := name[i+len(marker):]
	if len(digits) < 10 {
		return 0, false
	}
	for j, r := range digits {
		if (r < '0' || r > '9') && !(j == 0 && r == '-') {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}
