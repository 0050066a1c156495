package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// benchLockDirs is how many lock directories BenchmarkLocksCommand scans:
// the target is `zkx locks` over 1,000 in at most 2 s on real
// ZooKeeper.
const benchLockDirs = 1000

// BenchmarkLocksCommand times `zkx locks BASE -o json` over 1,000
// Curator-layout lock directories, each with a holder and a waiter (two
// sessions), on $ZK_SERVERS or, unset, the shared real ZooKeeper of the
// test binary. Everything it creates is deleted afterwards. "inprocess"
// runs the command in the test binary; "binary" runs the zkx executable
// named by $ZKX_BENCH_BIN (process start included), when set. Every
// iteration is a whole command: connect, introspect, scan, print. See
// scripts/bench-locks-scan.sh, or run
//
//	ZK_SERVERS=127.0.0.1:2181 go test -run '^$' -bench LocksCommand -benchtime 1x -count 5 .
func BenchmarkLocksCommand(b *testing.B) {
	connect := os.Getenv("ZK_SERVERS")
	if connect == "" {
		connect = zktest.Shared(b)
	}
	base := zktest.Path(b)
	zktest.LockDirs(b, connect, base, benchLockDirs)
	args := []string{"--server", connect, "locks", base, "-o", "json"}
	check := func(b *testing.B, out []byte) {
		var locks []recognize.Lock
		if err := json.Unmarshal(out, &locks); err != nil {
			b.Fatalf("zkx locks: %v", err)
		}
		if len(locks) != benchLockDirs {
			b.Fatalf("zkx locks found %d locks, want %d", len(locks), benchLockDirs)
		}
		for _, l := range locks {
			if len(l.Holders) != 1 || len(l.Waiters) != 1 {
				b.Fatalf("lock %s: %d holders, %d waiters", l.Path, len(l.Holders), len(l.Waiters))
			}
		}
	}
	b.Run("inprocess", func(b *testing.B) {
		var out, errs bytes.Buffer
		for b.Loop() {
			out.Reset()
			errs.Reset()
			root := newRootCommand()
			root.SetOut(&out)
			root.SetErr(&errs)
			root.SetArgs(args)
			if err := root.Execute(); err != nil {
				b.Fatalf("zkx locks: %v\n%s", err, errs.String())
			}
		}
		check(b, out.Bytes())
		b.ReportMetric(benchLockDirs, "locks/op")
	})
	bin := os.Getenv("ZKX_BENCH_BIN")
	if bin == "" {
		return
	}
	b.Run("binary", func(b *testing.B) {
		var out []byte
		for b.Loop() {
			cmd := exec.Command(bin, args...)
			var errs bytes.Buffer
			cmd.Stderr = &errs
			var err error
			if out, err = cmd.Output(); err != nil {
				b.Fatalf("%s locks: %v\n%s", bin, err, errs.String())
			}
		}
		check(b, out)
		b.ReportMetric(benchLockDirs, "locks/op")
	})
}
