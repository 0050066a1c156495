package forensics

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/zkx-dev/zkx/internal/txnlog"
)

// fixtures is the project's testdata/postmortem: the data directory a
// real ZooKeeper left after the post-mortem scenario.
var fixtures = filepath.Join("..", "..", "testdata", "postmortem")

var fixtureDir = filepath.Join(fixtures, "datadir")

// treeDigest sums every node's digest, as ZooKeeper's NodeHashMapImpl does.
func treeDigest(m *memStore) uint64 {
	var d uint64
	for p, n := range m.nodes {
		d += nodeDigest(p, n.Node)
	}
	return d
}

// replayAll loads the oldest snapshot of dir into a memStore and replays
// every later transaction, calling each with its step.
func replayAll(t *testing.T, dir string, each func(*Step, *memStore)) (*memStore, snapshotInfo) {
	t.Helper()
	arch, err := OpenArchive(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := newMemStore()
	var problems Problems
	info, err := loadSnapshot(st, arch.Dir.Snapshots[0], nil, &problems)
	if err != nil {
		t.Fatal(err)
	}
	ap := newApplier(st, nil)
	f := txnlog.OpenFiles(arch.logPaths(info.file.Zxid))
	defer f.Close()
	for {
		e, err := f.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Header.Zxid <= info.file.Zxid {
			continue
		}
		each(ap.Apply(e), st)
	}
	return st, info
}

// TestReplayAgreesWithZooKeeperDigests replays the fixture logs from the
// first snapshot and, after every transaction, checks the rebuilt tree's
// digest against the one ZooKeeper logged with it: the replay changes
// each node exactly as DataTree.processTxn did (stats and data included).
func TestReplayAgreesWithZooKeeperDigests(t *testing.T) {
	t.Parallel()
	checked := 0
	st, info := replayAll(t, fixtureDir, func(s *Step, st *memStore) {
		if s.Entry.Digest == nil {
			return
		}
		if got, want := treeDigest(st), uint64(s.Entry.Digest.TreeDigest); got != want {
			t.Fatalf("after zxid 0x%x (%s): digest 0x%x, ZooKeeper logged 0x%x", s.Entry.Header.Zxid, Describe(s.Entry).Summary(), got, want)
		}
		checked++
	})
	if checked < 50 {
		t.Errorf("only %d transactions carried a digest", checked)
	}
	if treeDigest(st) == info.digest {
		t.Error("the replay changed nothing")
	}
}

// TestReplayFromEverySnapshotAgrees rebuilds the end state from each
// snapshot (later ones are fuzzy) and requires the same tree each time,
// node by node, as the replay from the first.
func TestReplayFromEverySnapshotAgrees(t *testing.T) {
	t.Parallel()
	arch, err := OpenArchive(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(arch.Dir.Snapshots) < 3 {
		t.Fatalf("the fixtures have %d snapshots; the test needs 3", len(arch.Dir.Snapshots))
	}
	var want *memStore
	for i, snap := range arch.Dir.Snapshots {
		st := newMemStore()
		var problems Problems
		info, err := loadSnapshot(st, snap, nil, &problems)
		if err != nil {
			t.Fatal(err)
		}
		ap := newApplier(st, nil)
		f := txnlog.OpenFiles(arch.logPaths(info.file.Zxid))
		for {
			e, err := f.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Header.Zxid > info.file.Zxid {
				ap.Apply(e)
			}
		}
		f.Close()
		if i == 0 {
			want = st
			continue
		}
		if len(st.nodes) != len(want.nodes) {
			t.Errorf("from %s: %d nodes, from the first snapshot %d", filepath.Base(snap.Path), len(st.nodes), len(want.nodes))
		}
		for p, w := range want.nodes {
			g, ok := st.nodes[p]
			if !ok {
				t.Errorf("from %s: no %s", filepath.Base(snap.Path), p)
				continue
			}
			if g.Stat != w.Stat || string(g.Data) != string(w.Data) || len(g.children) != len(w.children) {
				t.Errorf("from %s: %s is %+v %q, from the first snapshot %+v %q", filepath.Base(snap.Path), p, g.Stat, g.Data, w.Stat, w.Data)
			}
		}
	}
}

// TestUndoRestoresEveryStep replays the fixture logs, then undoes every
// step, last first, checking after each undo that the tree's digest is
// the one before the step.
func TestUndoRestoresEveryStep(t *testing.T) {
	t.Parallel()
	var steps []*Step
	var digests []uint64
	var ap *applier
	st, info := replayAll(t, fixtureDir, func(s *Step, st *memStore) {
		digests = append(digests, treeDigest(st)-s.digestDelta())
		steps = append(steps, s)
	})
	ap = newApplier(st, nil)
	for i := len(steps) - 1; i >= 0; i-- {
		if err := ap.Undo(steps[i]); err != nil {
			t.Fatal(err)
		}
		if got := treeDigest(st); got != digests[i] {
			t.Fatalf("undoing zxid 0x%x: digest 0x%x, before it 0x%x", steps[i].Entry.Header.Zxid, got, digests[i])
		}
	}
	if got := treeDigest(st); got != info.digest {
		t.Errorf("after undoing everything: digest 0x%x, the snapshot's 0x%x", got, info.digest)
	}
}
