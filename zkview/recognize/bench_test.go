package recognize

import (
	"context"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
)

// recBenchLocks is how many lock directories BenchmarkScanLocks scans, as
// `zkx locks /` over a busy ensemble would (the target is 2 s for 1,000).
const recBenchLocks = 1000

// BenchmarkScanLocks times Scan over 1,000 lock directories on the shared
// real ZooKeeper: a walk listing the directories and a read of every lock
// node. Run with
//
//	go test ./zkview/recognize -run '^$' -bench ScanLocks -benchtime 10x
func BenchmarkScanLocks(b *testing.B) {
	connect := zktest.Shared(b)
	base := zktest.Path(b)
	zktest.LockDirs(b, connect, base, recBenchLocks)
	readers := map[string]zkview.Reader{"client": dialTest(b, connect)}
	pool, err := zkview.DialPool(context.Background(), connect, 4)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	readers["pool4"] = pool
	for _, name := range []string{"client", "pool4"} {
		r := readers[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				res, err := Scan(context.Background(), r, base, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Locks) != recBenchLocks {
					b.Fatalf("Scan found %d locks, want %d", len(res.Locks), recBenchLocks)
				}
				for _, l := range res.Locks {
					if len(l.Holders) != 1 || len(l.Waiters) != 1 {
						b.Fatalf("lock %s: %d holders, %d waiters", l.Path, len(l.Holders), len(l.Waiters))
					}
				}
			}
			b.ReportMetric(float64(recBenchLocks), "locks/op")
		})
	}
}
