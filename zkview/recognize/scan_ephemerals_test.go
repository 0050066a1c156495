package recognize

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// ephemeralsOf is an EphemeralList with a fixed answer; block, when set,
// holds the answer until closed.
type ephemeralsOf struct {
	paths []string
	ok    bool
	block chan struct{}
}

func (e ephemeralsOf) Ephemerals() ([]string, bool) {
	if e.block != nil {
		<-e.block
	}
	return e.paths, e.ok
}

// TestFromEphemeralsFindsWhatTheWalkFinds: locks, elections, semaphores
// (through a component) and a lock held as one node are found from the
// directories of the ephemeral nodes alone, as the walk finds them.
func TestFromEphemeralsFindsWhatTheWalkFinds(t *testing.T) {
	t.Parallel()
	f := recScanTree().add("/app/exclusive/lock", "", ephemeralOf(12))
	var ephemerals []string
	for p, n := range f.nodes {
		if n.stat.EphemeralOwner != 0 {
			ephemerals = append(ephemerals, p)
		}
	}
	opts := Options{Now: recEpoch}
	walked, err := Scan(context.Background(), f, "/", opts)
	if err != nil {
		t.Fatal(err)
	}
	listed := f.listedCount()
	found, err := FromEphemerals(context.Background(), f, "/", ephemerals, opts)
	if err != nil {
		t.Fatal(err)
	}
	if found.FoundBy != FoundByEphemerals || walked.FoundBy != FoundByWalk {
		t.Errorf("FoundBy %q / %q", found.FoundBy, walked.FoundBy)
	}
	if !reflect.DeepEqual(pathsOf(found, ClassLock), pathsOf(walked, ClassLock)) || !reflect.DeepEqual(pathsOf(found, ClassElection), pathsOf(walked, ClassElection)) {
		t.Errorf("from ephemerals: locks %v elections %v\nwalk: locks %v elections %v",
			pathsOf(found, ClassLock), pathsOf(found, ClassElection), pathsOf(walked, ClassLock), pathsOf(walked, ClassElection))
	}
	if len(found.Queues) != 0 {
		t.Errorf("queues found from ephemerals: %v", found.Queues)
	}
	if read := f.listedCount() - listed; read >= listed {
		t.Errorf("listed %d directories from the ephemerals, as many as the walk's %d", read, listed)
	}
	// Under a root, only what is under it.
	under, err := FromEphemerals(context.Background(), f, "/app/locks", ephemerals, opts)
	if err != nil || strings.Join(pathsOf(under, ClassLock), " ") != "/app/locks/orders /app/locks/rw" {
		t.Errorf("under /app/locks: %v %v", pathsOf(under, ClassLock), err)
	}
}

// TestScanContended takes the ephemerals when they come, and walks when
// the servers will not list them.
func TestScanContended(t *testing.T) {
	t.Parallel()
	f := recScanTree()
	// The walk of this small tree in memory may end before the list's
	// goroutine answers, and a whole walk is as good: held at the root
	// until it is called off, the walk lets the list come first.
	// The deadline ends a ScanContended that would wait for the walk.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := ScanContended(ctx, walkHeld{f}, "/", Options{Now: recEpoch},
		ephemeralsOf{paths: []string{"/app/locks/orders/" + curLock(3)}, ok: true})
	if err != nil || res.FoundBy != FoundByEphemerals || len(res.Locks) != 1 {
		t.Errorf("with the list: %s, %v, %v", res.FoundBy, pathsOf(res, ClassLock), err)
	}
	res, err = ScanContended(context.Background(), f, "/", Options{Now: recEpoch}, ephemeralsOf{ok: false})
	if err != nil || res.FoundBy != FoundByWalk || len(res.Queues) == 0 {
		t.Errorf("without the list: %s, %v", res.FoundBy, err)
	}
	never := ephemeralsOf{ok: true, block: make(chan struct{})}
	defer close(never.block)
	res, err = ScanContended(context.Background(), f, "/", Options{Now: recEpoch}, never)
	if err != nil || res.FoundBy != FoundByWalk {
		t.Errorf("a list that comes after the walk: %s, %v", res.FoundBy, err)
	}
}

// walkHeld is a fake tree whose root listing waits until its context
// ends: a walk from the root (ScanContended's, until the list stops it)
// cannot end first, and the reads under the root go on as the fake's.
type walkHeld struct{ *fakeTree }

func (w walkHeld) Children(ctx context.Context, p string) ([]string, *zk.Stat, error) {
	if p == "/" {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}
	return w.fakeTree.Children(ctx, p)
}

// pathsOf lists the paths of a result's recipes of a class.
func pathsOf(res Result, class string) []string {
	out := []string{}
	for _, r := range res.All() {
		if r.Info().Class == class {
			out = append(out, r.Info().Path)
		}
	}
	return out
}
