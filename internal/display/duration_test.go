package display

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d          time.Duration
		want       string
		nextChange time.Duration
	}{
		{-time.Second, "0s", time.Second},
		{1500 * time.Millisecond, "1s", 500 * time.Millisecond},
		{95 * time.Second, "1m35s", time.Second},
		{10*time.Minute + 30*time.Second, "10m", 30 * time.Second},
		{2*time.Hour + 3*time.Minute, "2h03m", time.Minute},
		{50 * time.Hour, "2d02h", time.Hour},
		{200 * 24 * time.Hour, "200d", time.Hour},
	} {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
		if got := DurationStep(tc.d); got != tc.nextChange {
			t.Errorf("DurationStep(%v) = %v, want %v", tc.d, got, tc.nextChange)
		}
	}
}
