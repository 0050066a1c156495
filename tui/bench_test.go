package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// Benchmarks for the explorer's speed (figures in docs/benchmarks.md): the
// first frame after the session connects, opening a node with 100,000
// children, and what a frame costs with 1,000 against 100,000 children on
// screen. Run with, e.g.:
//
//	go test ./tui -run '^$' -bench . -benchtime 5x
//	ZKX_REAL_ZK=required go test ./tui -run '^$' -bench . -benchtime 5x   # on real ZooKeeper (the test kit starts it)
//
// Tests assert no timings; the figures are in docs/benchmarks.md.

// benchServer is the shared real ZooKeeper when ZKX_REAL_ZK=required,
// else the embedded server.
func benchServer(b *testing.B) string {
	if zktest.RequireReal() {
		return zktest.Shared(b)
	}
	return zktest.Embedded(b)
}

// manyChildren creates dir with n children, a thousand per multi.
func manyChildren(b testing.TB, connect, dir string, n int) {
	b.Helper()
	conn := zktest.Conn(b, connect)
	if _, err := conn.Create(dir, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 1000 {
		var ops []any
		for j := i; j < min(i+1000, n); j++ {
			ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("%s/child-%06d", dir, j), Acl: zk.WorldACL(zk.PermAll)})
		}
		if _, err := conn.Multi(ops...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFirstFrame(b *testing.B) {
	connect := benchServer(b)
	for b.Loop() {
		b.StopTimer()
		app := newTestApp(b, connect, false) // the session connects here
		b.StartTimer()
		d := newDriver(b, app, 120, 40)
		d.waitFor("the root's children", func(s string) bool { return strings.Contains(s, "zookeeper") })
		b.StopTimer()
		app.Close()
		app.shared.Client.Close()
		b.StartTimer()
	}
}

// BenchmarkOpen100k is expanding a node with 100,000 children until its
// first rows are on screen.
func BenchmarkOpen100k(b *testing.B) {
	connect := benchServer(b)
	dir := zktest.Path(b)
	manyChildren(b, connect, dir, 100_000)
	for b.Loop() {
		b.StopTimer()
		app := newTestApp(b, connect, false)
		d := newDriver(b, app, 120, 40)
		d.waitText("zookeeper")
		b.StartTimer()
		d.key(":")
		d.typeText("cd " + dir + "/child-000000")
		d.key("enter")
		d.waitFor("the children", func(s string) bool { return strings.Contains(s, "child-000030") })
		b.StopTimer()
		app.Close()
		app.shared.Client.Close()
		b.StartTimer()
	}
}

// BenchmarkFrame is one frame (View) of the tree page with the cursor in
// the middle of an expanded node of 1,000 or 100,000 children.
func BenchmarkFrame(b *testing.B) {
	connect := benchServer(b)
	for _, n := range []int{1_000, 100_000} {
		dir := zktest.Path(b) + fmt.Sprintf("-%d", n)
		manyChildren(b, connect, dir, n)
		b.Run(fmt.Sprintf("children=%d", n), func(b *testing.B) {
			app := newTestApp(b, connect, false)
			defer app.shared.Client.Close()
			defer app.Close()
			d := newDriver(b, app, 120, 40)
			d.waitText("zookeeper")
			mid := fmt.Sprintf("%s/child-%06d", dir, n/2)
			d.key(":")
			d.typeText("cd " + mid)
			d.key("enter")
			d.waitText(fmt.Sprintf("child-%06d", n/2))
			d.settle()
			for b.Loop() {
				_ = app.render()
			}
		})
	}
}
