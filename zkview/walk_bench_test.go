package zkview

import (
	"context"
	"os"
	"testing"
)

// BenchmarkWalkBig walks ZKX_BENCH_TREE (host:port/path, e.g. a tree made by
// shared/anchors/populate) when set: the engine of `zkx tree`.
func BenchmarkWalkBig(b *testing.B) {
	target := os.Getenv("ZKX_BENCH_TREE")
	if target == "" {
		b.Skip("set ZKX_BENCH_TREE=host:port/path to walk an existing tree")
	}
	server, root := target, "/"
	for i := range target {
		if target[i] == '/' {
			server, root = target[:i], target[i:]
			break
		}
	}
	ctx := context.Background()
	p, err := DialPool(ctx, server, 12)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for b.Loop() {
		n := 0
		if err := Walk(ctx, p, root, WalkOptions{Concurrency: 192}, func(WalkNode) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n), "nodes")
	}
}
