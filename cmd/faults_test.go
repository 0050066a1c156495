package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestLocksWhileMembersDie runs zkx locks against a real 3-node ensemble
// while it is sick: with its leader killed, the survivors elect another
// and the whole answer comes; with two members paused there is no quorum,
// the last member refuses clients, and zkx locks ends within its --timeout
// with an error that says so.
func TestLocksWhileMembersDie(t *testing.T) {
	t.Parallel()
	e := zktest.Real(t, 3)
	connect := e.ConnectString()
	base := zktest.Path(t)
	holder := startContender(t, connect, func(s *recipes.Session, o recipes.Option) func(context.Context) error {
		return recipes.NewMutex(s, base+"/lock", o).Lock
	})

	leader := e.Leader(t)
	leader.Kill(t)
	out, _, err := run(t, "--server", connect, "locks", "-o", "json", "--timeout", "60s", base)
	var locks []recognize.Lock
	if err != nil || json.Unmarshal([]byte(out), &locks) != nil || len(locks) != 1 ||
		len(locks[0].Holders) != 1 || locks[0].Holders[0].Node != holder.node {
		t.Fatalf("zkx locks with the leader %v dead: %v\n%s", leader, err, out)
	}
	leader.Restart(t)
	e.WaitServing(t)

	var paused []*zktest.Member
	for _, m := range e.Members()[:2] {
		m.Pause(t)
		paused = append(paused, m)
	}
	defer func() {
		for _, m := range paused {
			m.Resume(t)
		}
	}()
	const timeout = time.Second
	begin := time.Now()
	_, _, err = run(t, "--server", connect, "locks", "--timeout", timeout.String(), base)
	took := time.Since(begin)
	if err == nil {
		t.Fatal("zkx locks without a quorum: no error")
	}
	if msg := err.Error(); !strings.Contains(msg, "--timeout "+timeout.String()+" reached") || !strings.Contains(msg, "no ZooKeeper session") {
		t.Errorf("zkx locks without a quorum: the error %q does not say that no server answered within --timeout", msg)
	}
	// Generous: the bound is about hanging, not speed.
	if took > timeout+10*time.Second {
		t.Errorf("zkx locks --timeout %v took %v without a quorum", timeout, took.Round(time.Millisecond))
	}
	t.Logf("without a quorum: %v after %v", err, took.Round(time.Millisecond))
}

// TestLocksTimeoutMidScan: a server stops answering in the middle of a
// scan (the embedded server holds one directory's listing back): zkx locks
// ends at its --timeout with what it found, marked as partial.
func TestLocksTimeoutMidScan(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	connect := srv.ConnectString()
	base := zktest.Path(t)
	for _, dir := range []string{"a", "b"} {
		startContender(t, connect, func(s *recipes.Session, o recipes.Option) func(context.Context) error {
			return recipes.NewMutex(s, base+"/"+dir, o).Lock
		})
	}
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Path == base+"/b" || slices.Contains(r.Paths, base+"/b") { // alone, or in a multiRead
			once.Do(func() { close(held); <-release })
		}
		return zkserver.Proceed
	})
	t.Cleanup(func() { close(release) }) // before the server's cleanup, which waits for the hook

	const timeout = 2 * time.Second
	out, _, err := run(t, "--server", connect, "locks", "-o", "json", "--timeout", timeout.String(), base)
	select {
	case <-held:
	default:
		t.Fatal("the scan never asked for the held directory")
	}
	var partial *partialError
	if !errors.As(err, &partial) || !strings.Contains(err.Error(), "--timeout 2s reached before the scan of "+base+" finished") {
		t.Fatalf("error %v, want a partial result ended by --timeout", err)
	}
	var locks []recognize.Lock
	if json.Unmarshal([]byte(out), &locks) != nil {
		t.Fatalf("partial output is not a JSON array:\n%s", out)
	}
	for _, l := range locks {
		if l.Path == base+"/b" {
			t.Errorf("the held directory was reported: %+v", l)
		}
	}
}

// TestTreeTimeoutMidWalk: a walk that --timeout ends after printing part
// of the tree is a partial result (exit 3), named as such, its JSON still
// an array; one that printed nothing is a plain failure.
func TestTreeTimeoutMidWalk(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	connect := srv.ConnectString()
	base := zktest.Path(t)
	c := zktest.Conn(t, connect)
	for _, p := range []string{base, base + "/a", base + "/b", base + "/b/deep"} {
		if _, err := c.Create(p, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Path == base+"/b" || slices.Contains(r.Paths, base+"/b") {
			once.Do(func() { close(held); <-release })
		}
		return zkserver.Proceed
	})
	t.Cleanup(func() { close(release) })

	// Both walks wait for the held listing (every request for it waits
	// in once.Do until the cleanup), so they run at once.
	var errFromB error
	var walking sync.WaitGroup
	walking.Go(func() { _, _, errFromB = run(t, "--server", connect, "tree", "--timeout", "2s", base+"/b") })
	out, _, err := run(t, "--server", connect, "tree", "-o", "json", "--timeout", "2s", base)
	walking.Wait()
	<-held
	var partial *partialError
	if !errors.As(err, &partial) || !strings.Contains(err.Error(), "--timeout 2s reached before the walk of "+base+" finished") {
		t.Fatalf("error %v, want a partial result ended by --timeout", err)
	}
	var rows []map[string]any
	if json.Unmarshal([]byte(out), &rows) != nil || len(rows) == 0 {
		t.Fatalf("partial output is not a JSON array of what was read:\n%s", out)
	}
	err = errFromB
	if err == nil || errors.As(err, &partial) || !strings.Contains(err.Error(), "--timeout 2s reached before the walk of "+base+"/b finished") {
		t.Errorf("a walk that printed nothing: %v, want a plain failure naming --timeout", err)
	}
}
