package lockstats

import (
	"testing"
	"time"
)

// TestHistogramQuantiles: quantiles land within the histogram's 6% of the
// truth, and Reset forgets.
func TestHistogramQuantiles(t *testing.T) {
	t.Parallel()
	var h Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	if h.Count() != 1000 {
		t.Fatalf("count %d, want 1000", h.Count())
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {0, time.Millisecond}} {
		got := h.Quantile(tc.q)
		if off := float64(got-tc.want) / float64(tc.want); off < -0.065 || off > 0.065 {
			t.Errorf("q%v = %v, want %v within 6%%", tc.q, got, tc.want)
		}
	}
	h.Reset()
	if h.Count() != 0 || h.Quantile(0.5) != 0 {
		t.Fatalf("after Reset: count %d, median %v", h.Count(), h.Quantile(0.5))
	}
}

// TestStatsHandoff: an acquisition counts as a handoff only when a release
// happened while it waited.
func TestStatsHandoff(t *testing.T) {
	t.Parallel()
	st := NewStats()
	st.MarkAcquired(time.Time{}) // did not wait
	waited := time.Now()
	st.MarkReleased()
	st.MarkAcquired(waited)
	st.MarkAcquired(time.Now().Add(time.Hour)) // waited since after the last release
	st.CountRead()
	st.CountCreate()
	st.CountDelete()
	st.CountNotification()
	got := st.Snapshot()
	want := Snapshot{Acquisitions: 3, Handoffs: 1, Reads: 1, Creates: 1, Deletes: 1, Notifications: 1}
	got.HandoffP50, got.HandoffP99 = 0, 0 // durations vary; the counts do not
	if got != want {
		t.Fatalf("snapshot %+v, want %+v", got, want)
	}
	st.Reset()
	if got := st.Snapshot(); got != (Snapshot{}) {
		t.Fatalf("after Reset: %+v", got)
	}
}
