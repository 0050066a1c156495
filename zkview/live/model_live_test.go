package live

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestModelUnderChurn: a lock whose queue turns over thousands of times
// (contenders created and deleted as fast as the server takes them), on a
// real Tree: the Model recognises it a bounded number of times — at most
// once per RecognizeEvery over the churn, not once per change — and once
// the churn stops it holds the lock as a fresh recognition sees it.
func TestModelUnderChurn(t *testing.T) {
	connect := zktest.Embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client, err := zkview.Dial(ctx, connect)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	writer := zktest.Conn(t, connect)
	base := zktest.Path(t)
	dir := base + "/lock"
	if _, err := writer.Create(base, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := writer.Create(dir+"/lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	tree := zkview.NewTree(client, 10*time.Millisecond)
	defer tree.Close()
	var recognitions atomic.Int64
	m := New(Config{
		Recognize: func(ctx context.Context, d string, o recognize.Options) (recognize.Recipe, error) {
			recognitions.Add(1)
			return recognize.Dir(ctx, client, d, o)
		},
		Tree: tree,
	})
	defer m.Close()
	go m.Feed(ctx, tree.Updates())
	first, err := recognize.Dir(ctx, client, dir, recognize.Options{})
	if err != nil || first == nil {
		t.Fatalf("the lock: %v %v", first, err)
	}
	m.Set(Found{Recipes: []recognize.Recipe{first}})
	waitModel(t, m, func() bool { _, ok := tree.Get(dir); return ok && len(m.Followed()) == 1 })

	start := time.Now()
	before := recognitions.Load()
	const turns = 3000
	for i := range turns {
		// A contender joins at the back, the holder leaves.
		if _, err := writer.Create(dir+"/lock-", []byte(fmt.Sprint(i)), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		children, _, err := writer.Children(dir)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(children)
		if err := writer.Delete(dir+"/"+children[0], -1); err != nil {
			t.Fatal(err)
		}
	}
	want, err := recognize.Dir(ctx, client, dir, recognize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitModel(t, m, func() bool { return sameLineup(m.Snapshot().Entries[dir].Recipe, want) })
	elapsed := time.Since(start)
	n := recognitions.Load() - before
	bound := int64(elapsed/RecognizeEvery) + 2
	t.Logf("%d changes in %s: %d recognitions (bound %d)", 2*turns, elapsed.Round(time.Millisecond), n, bound)
	if n > bound {
		t.Errorf("%d recognitions over %s of churn, more than %d: not bounded by RecognizeEvery", n, elapsed, bound)
	}
}

// sameLineup reports whether two recognitions of a lock place the same
// nodes the same way.
func sameLineup(a, b recognize.Recipe) bool {
	if a == nil || b == nil {
		return a == b
	}
	pa, pb := a.Lineup(), b.Lineup()
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if pa[i].Contender.Node != pb[i].Contender.Node || pa[i].Role != pb[i].Role {
			return false
		}
	}
	return true
}

// waitModel polls cond until it holds, with a deadline: the Model's work
// runs in the background.
func waitModel(t *testing.T, m *Model, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out; the model holds %+v", m.Snapshot())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
