package lockstats

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Stats counts what lock recipes do, cheaply enough to leave on: atomic
// counters and a fixed histogram, no locks. Mutexes given the same Stats
// (Instruments.Stats) add up, and their handoff latency is measured from
// one holder's release to the next holder's acquisition.
//
// Notifications counts the watch events that woke a waiter (the events a
// release causes); Reads the getChildren and getData calls; Creates every
// create attempt (for Spin, one per poll).
type Stats struct {
	acquisitions  atomic.Uint64
	notifications atomic.Uint64
	reads         atomic.Uint64
	creates       atomic.Uint64
	deletes       atomic.Uint64
	lastRelease   atomic.Int64 // unix nanos of the last release
	handoffs      histogram
}

// NewStats returns zeroed counters to share between recipes.
func NewStats() *Stats { return &Stats{} }

// Snapshot is a copy of the counters at one moment.
type Snapshot struct {
	Acquisitions  uint64
	Notifications uint64
	Reads         uint64
	Creates       uint64
	Deletes       uint64
	Handoffs      uint64        // acquisitions that waited for a release
	HandoffP50    time.Duration // release → next acquisition, median
	HandoffP99    time.Duration
}

// Snapshot copies the counters.
func (st *Stats) Snapshot() Snapshot {
	return Snapshot{
		Acquisitions:  st.acquisitions.Load(),
		Notifications: st.notifications.Load(),
		Reads:         st.reads.Load(),
		Creates:       st.creates.Load(),
		Deletes:       st.deletes.Load(),
		Handoffs:      st.handoffs.count(),
		HandoffP50:    st.handoffs.quantile(0.50),
		HandoffP99:    st.handoffs.quantile(0.99),
	}
}

// Reset zeroes the counters.
func (st *Stats) Reset() {
	for _, c := range []*atomic.Uint64{&st.acquisitions, &st.notifications, &st.reads, &st.creates, &st.deletes} {
		c.Store(0)
	}
	st.lastRelease.Store(0)
	st.handoffs.reset()
}

// The counting, by the recipes and by lock implementations beside them
// (zkx demo's Redis lane), so that their figures mean the same.

// CountCreate counts one attempt to create a node (for a Redis lock, a
// SET NX).
func (st *Stats) CountCreate() { st.creates.Add(1) }

// CountRead counts one getChildren, getData or exists call.
func (st *Stats) CountRead() { st.reads.Add(1) }

// CountDelete counts one delete.
func (st *Stats) CountDelete() { st.deletes.Add(1) }

// CountNotification counts one watch event that woke a waiter.
func (st *Stats) CountNotification() { st.notifications.Add(1) }

// MarkReleased stamps a release, just before the delete goes out.
func (st *Stats) MarkReleased() { st.lastRelease.Store(time.Now().UnixNano()) }

// MarkAcquired counts an acquisition. waitedSince is when the acquirer
// started waiting, or zero if it did not wait: a handoff is only measured
// when a release happened while it waited.
func (st *Stats) MarkAcquired(waitedSince time.Time) {
	st.acquisitions.Add(1)
	if waitedSince.IsZero() {
		return
	}
	if rel := st.lastRelease.Load(); rel >= waitedSince.UnixNano() {
		st.handoffs.record(time.Duration(time.Now().UnixNano() - rel))
	}
}

// Histogram records durations for quantiles (within about 6%), lock-free.
type Histogram struct{ buckets histogram }

// Record adds one duration.
func (h *Histogram) Record(d time.Duration) { h.buckets.record(d) }

// Count is how many durations were recorded.
func (h *Histogram) Count() uint64 { return h.buckets.count() }

// Quantile returns the q-quantile (0 ≤ q ≤ 1), zero when empty.
func (h *Histogram) Quantile(q float64) time.Duration { return h.buckets.quantile(q) }

// Reset forgets every duration.
func (h *Histogram) Reset() { h.buckets.reset() }

// histogram is log-linear: 16 buckets per power of two of nanoseconds, so a
// quantile is within about 6% of the truth.
type histogram struct {
	buckets [64 * 16]atomic.Uint64
}

func bucketOf(d time.Duration) int {
	n := uint64(d)
	if n < 16 {
		return int(n)
	}
	exp := bits.Len64(n) - 1 // n is in [2^exp, 2^(exp+1))
	mantissa := (n >> (exp - 4)) & 15
	return exp*16 + int(mantissa)
}

// bucketValue is a representative duration of a bucket: its midpoint.
func bucketValue(b int) time.Duration {
	if b < 16 {
		return time.Duration(b)
	}
	exp, mantissa := b/16, uint64(b%16)
	low := (16 + mantissa) << (exp - 4)
	width := uint64(1) << (exp - 4)
	return time.Duration(low + width/2)
}

func (h *histogram) record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.buckets[bucketOf(d)].Add(1)
}

func (h *histogram) count() uint64 {
	var n uint64
	for i := range h.buckets {
		n += h.buckets[i].Load()
	}
	return n
}

func (h *histogram) quantile(q float64) time.Duration {
	total := h.count()
	if total == 0 {
		return 0
	}
	rank := uint64(q * float64(total))
	if rank >= total {
		rank = total - 1
	}
	var seen uint64
	for i := range h.buckets {
		seen += h.buckets[i].Load()
		if seen > rank {
			return bucketValue(i)
		}
	}
	return bucketValue(len(h.buckets) - 1)
}

func (h *histogram) reset() {
	for i := range h.buckets {
		h.buckets[i].Store(0)
	}
}
