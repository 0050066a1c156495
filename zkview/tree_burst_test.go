package zkview

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// readCounter counts, on the embedded server, the reads of chosen paths
// by every session but one (the writer's).
type readCounter struct {
	mu     sync.Mutex
	writer int64
	reads  map[string]int
}

func (rc *readCounter) hook(r zkserver.Request) zkserver.Fault {
	switch r.Op {
	case jute.OpGetData, jute.OpGetChildren, jute.OpGetChildren2, jute.OpExists:
		rc.mu.Lock()
		if r.SessionID != rc.writer {
			if _, ok := rc.reads[r.Path]; ok {
				rc.reads[r.Path]++
			}
		}
		rc.mu.Unlock()
	}
	return zkserver.Proceed
}

func (rc *readCounter) count(path string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.reads[path]
}

// TestTreeBurstExactAndBounded: thousands of changes below a node the Tree
// follows (children expanded, data watched) and below one it counts (a
// collapsed row) leave the Tree exact once they stop — the children, the
// count, and the history's totals equal to what the server's versions
// counted — while the Tree read each node a bounded number of times: at
// most once per ReadEvery (CountEvery for the count) over the burst, not
// once per event. With persistent watches and with one-shot ones.
func TestTreeBurstExactAndBounded(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		opts []TreeOption
	}{{"persistent", nil}, {"one-shot", []TreeOption{TreeOneShot()}}} {
		t.Run(mode.name, func(t *testing.T) {
			srv := zktest.EmbeddedServer(t, zkserver.Config{})
			c := dialTest(t, srv.ConnectString())
			writer := zktest.Conn(t, srv.ConnectString())
			base := zktest.Path(t)
			open, counted := base+"/open", base+"/counted"
			makeTree(t, c, base, "/open", "/counted")
			tr := NewTree(c, 10*time.Millisecond, mode.opts...)
			defer tr.Close()
			awaitWatchMode(t, tr)
			tr.Expand(open)
			tr.Watch(open)
			tr.Show([]string{counted})
			waitHistory(t, tr, open, func(h NodeHistory) bool { return !h.DataSince.IsZero() && !h.ChildrenSince.IsZero() })
			waitNode(t, tr, counted, func(NodeState) bool { return tr.Counted(counted) })
			waitNode(t, tr, counted, func(n NodeState) bool { return n.Stat != nil })
			before, _ := tr.Get(open)

			rc := &readCounter{writer: writer.SessionID(), reads: map[string]int{open: 0, counted: 0}}
			srv.SetFaultHook(rc.hook)
			defer srv.SetFaultHook(nil)
			start := time.Now()
			const workers, perWorker, keep = 4, 600, 8
			var wg sync.WaitGroup
			errs := make(chan error, 2*workers)
			for w := range workers {
				for _, dir := range []string{open, counted} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs <- churnChildren(writer, dir, w, perWorker, keep)
					}()
				}
			}
			const dataChanges = 500
			for i := 1; i <= dataChanges; i++ {
				if _, err := writer.Set(open, []byte(fmt.Sprint(i)), -1); err != nil {
					t.Fatal(err)
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}

			// Once the burst has stopped the Tree is exact.
			wantOpen, openStat, err := writer.Children(open)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(wantOpen)
			_, countedStat, err := writer.Exists(counted)
			if err != nil {
				t.Fatal(err)
			}
			waitNode(t, tr, open, func(n NodeState) bool {
				return slices.Equal(n.Children, wantOpen) && n.Stat.Cversion == openStat.Cversion && n.Stat.Version == openStat.Version &&
					string(n.Data) == fmt.Sprint(dataChanges)
			})
			waitNode(t, tr, counted, func(n NodeState) bool {
				return n.Stat != nil && n.Stat.NumChildren == countedStat.NumChildren && n.Stat.Cversion == countedStat.Cversion
			})
			elapsed := time.Since(start)
			h := tr.History(open)
			var childChanges, dataSeen int
			for _, e := range h.Entries {
				switch e.Kind {
				case ChangeChildren:
					childChanges += e.Changes
				case ChangeData:
					dataSeen += e.Changes
				}
			}
			childWant, dataWant := int(openStat.Cversion-before.Stat.Cversion), int(openStat.Version-before.Stat.Version)
			if total := childChanges + dataSeen + h.DroppedChanges; total != childWant+dataWant {
				t.Errorf("the history counts %d changes (%d of them in %d entries let go), the server %d", total, h.DroppedChanges, h.Dropped, childWant+dataWant)
			}
			if h.Dropped == 0 && childChanges != childWant {
				t.Errorf("the history counts %d changes of the children, the server %d", childChanges, childWant)
			}
			if h.Dropped == 0 && dataSeen != dataWant {
				t.Errorf("the history counts %d data changes, the server %d", dataSeen, dataWant)
			}
			if changes := int(openStat.Cversion-before.Stat.Cversion) + dataChanges; changes < 2000 {
				t.Fatalf("only %d changes: not a burst", changes)
			}

			// Reads: one per ReadEvery and side at most for the open node
			// (data and children, and for one-shot watches the exists that
			// follows a read that found nothing), one per CountEvery for the
			// counted one, over the whole burst, plus the first of each.
			sides := 2
			openBound := sides * (int(elapsed/ReadEvery) + 2)
			countBound := int(elapsed/CountEvery) + 2
			reads, countReads := rc.count(open), rc.count(counted)
			t.Logf("%s: %d changes in %s; %d reads of the open node (bound %d), %d of the counted one (bound %d)",
				mode.name, int(openStat.Cversion-before.Stat.Cversion)+dataChanges, elapsed.Round(time.Millisecond), reads, openBound, countReads, countBound)
			if reads > openBound {
				t.Errorf("%d reads of %s during the burst, more than %d: not bounded by the pace", reads, open, openBound)
			}
			if countReads > countBound {
				t.Errorf("%d reads of %s during the burst, more than %d: not bounded by the pace", countReads, counted, countBound)
			}
		})
	}
}

// churnChildren creates n children of dir named w<worker>-<i>, deleting the
// oldest once keep of them exist, and leaves keep of them.
func churnChildren(conn *zk.Conn, dir string, worker, n, keep int) error {
	var alive []string
	for i := range n {
		p := fmt.Sprintf("%s/w%d-%05d", dir, worker, i)
		if _, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
		alive = append(alive, p)
		if len(alive) > keep {
			if err := conn.Delete(alive[0], -1); err != nil {
				return fmt.Errorf("delete %s: %w", alive[0], err)
			}
			alive = alive[1:]
		}
	}
	return nil
}
