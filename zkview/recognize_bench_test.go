package zkview

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/zktest"
)

// recBenchLocks is how many lock directories BenchmarkScanLocks scans, as
// `zkx locks /` over a busy ensemble would (the target is 2 s for 1,000).
const recBenchLocks = 1000

// recBenchState creates n Curator-layout lock directories under base, each
// with a holder (on one session) and a waiter (on another), with
// go-zookeeper's ephemeral sequential creates batched in multis.
func recBenchState(b *testing.B, connect, base string, n int) {
	b.Helper()
	holder, waiter := recConnTB(b, connect), recConnTB(b, connect)
	acl := zk.WorldACL(zk.PermAll)
	if _, err := holder.Create(base, nil, 0, acl); err != nil {
		b.Fatal(err)
	}
	const batch = 100
	for from := 0; from < n; from += batch {
		var dirs, waiters []any
		for i := from; i < min(from+batch, n); i++ {
			dir := fmt.Sprintf("%s/lock-dir-%04d", base, i)
			dirs = append(dirs,
				&zk.CreateRequest{Path: dir, Acl: acl},
				&zk.CreateRequest{Path: dir + "/_c_" + testUUID + "-lock-", Data: []byte("10.0.0.1"), Acl: acl, Flags: zk.FlagEphemeral | zk.FlagSequence})
			waiters = append(waiters,
				&zk.CreateRequest{Path: dir + "/_c_" + testUUID2 + "-lock-", Data: []byte("10.0.0.2"), Acl: acl, Flags: zk.FlagEphemeral | zk.FlagSequence})
		}
		if _, err := holder.Multi(dirs...); err != nil {
			b.Fatal(err)
		}
		if _, err := waiter.Multi(waiters...); err != nil {
			b.Fatal(err)
		}
	}
}

// recConnTB opens a go-zookeeper connection that ends with the test or
// benchmark.
func recConnTB(tb testing.TB, connect string) *zk.Conn {
	tb.Helper()
	conn, events, err := zk.Connect([]string{connect}, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(conn.Close)
	for ev := range events {
		if ev.State == zk.StateHasSession {
			break
		}
	}
	go func() {
		for range events {
		}
	}()
	return conn
}

// BenchmarkScanLocks times Scan over 1,000 lock directories on the shared
// real ZooKeeper: a walk listing the directories and a read of every lock
// node. Run with
//
//	go test ./zkview -run '^$' -bench ScanLocks -benchtime 10x
func BenchmarkScanLocks(b *testing.B) {
	connect := zktest.Shared(b)
	base := zktest.Path(b)
	recBenchState(b, connect, base, recBenchLocks)
	readers := map[string]Reader{"client": dialTest(b, connect)}
	pool, err := DialPool(context.Background(), connect, 4)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	readers["pool4"] = pool
	for _, name := range []string{"client", "pool4"} {
		r := readers[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				res, err := Scan(context.Background(), r, base, ScanOptions{})
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
