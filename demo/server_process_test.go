package demo

import (
	"testing"
	"time"
)

func TestProcStatCPU(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stat string
		want time.Duration
	}{
		// pid (comm) state ppid … utime=field 14, stime=field 15; the name may hold spaces and parentheses.
		{"4242 (zkx serve (x)) S 1 4242 4242 0 -1 4194560 500 0 0 0 150 25 0 0 20 0 8 0 100 0", 1750 * time.Millisecond},
		{"4242 (zkx) S 1", -1},
		{"garbage", -1},
	} {
		if got := procStatCPU(tc.stat); got != tc.want {
			t.Errorf("procStatCPU(%q) = %v, want %v", tc.stat, got, tc.want)
		}
	}
}
