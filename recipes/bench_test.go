package recipes

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// BenchmarkMutex measures lock handoffs with 10 contenders (own sessions)
// on the embedded server and on real ZooKeeper, for each waiting strategy.
// ns/op is the time per acquisition of the whole group; the custom metrics
// are per acquisition. For figures side by side with Curator, Kazoo and
// go-zookeeper's zk.Lock, use scripts/bench-locks.sh.
func BenchmarkMutex(b *testing.B) {
	servers := map[string]func(testing.TB) string{"embedded": zktest.Embedded, "real": zktest.Shared}
	strategies := []struct {
		name string
		opts []Option
	}{
		{"chain", nil},
		{"chain-textbook", []Option{WithLookahead(false)}},
		{"herd", []Option{withInstruments(lockstats.Instruments{Strategy: lockstats.Herd})}},
		{"spin", []Option{withInstruments(lockstats.Instruments{Strategy: lockstats.Spin, PollInterval: time.Millisecond})}},
	}
	for _, server := range []string{"embedded", "real"} {
		for _, st := range strategies {
			b.Run(server+"/"+st.name, func(b *testing.B) {
				benchmarkMutex(b, servers[server](b), 10, st.opts)
			})
		}
	}
}

func benchmarkMutex(b *testing.B, connect string, contenders int, opts []Option) {
	dir := zktest.Path(b)
	stats := lockstats.NewStats()
	mutexes := make([]*Mutex, contenders)
	for i := range mutexes {
		s, err := Dial([]string{connect})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		mutexes[i] = NewMutex(s, dir, append(opts, withInstruments(lockstats.Instruments{Stats: stats}))...)
	}
	var remaining atomic.Int64
	remaining.Store(int64(b.N))
	var inside, violations atomic.Int32
	ctx := context.Background()
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, m := range mutexes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for remaining.Add(-1) >= 0 {
				if err := m.Lock(ctx); err != nil {
					b.Error(err)
					return
				}
				if inside.Add(1) != 1 {
					violations.Add(1)
				}
				inside.Add(-1)
				if err := m.Unlock(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if violations.Load() != 0 {
		b.Fatalf("%d violations", violations.Load())
	}
	snap := stats.Snapshot()
	acq := float64(snap.Acquisitions)
	b.ReportMetric(float64(snap.HandoffP50.Microseconds())/1000, "handoff-p50-ms")
	b.ReportMetric(float64(snap.Notifications)/acq, "notifications/op")
	b.ReportMetric(float64(snap.Reads)/acq, "reads/op")
	b.ReportMetric(float64(snap.Creates)/acq, "creates/op")
}
