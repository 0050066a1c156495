package forensics

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/zkx-dev/zkx/internal/datadir"
	"github.com/zkx-dev/zkx/internal/snapshot"
	"github.com/zkx-dev/zkx/internal/txnlog"
)

// Archive is a data directory opened for reading: its logs and snapshots.
type Archive struct {
	Dir datadir.Dir
}

// OpenArchive opens a ZooKeeper data directory (dataDir, or its version-2
// folder).
func OpenArchive(path string) (*Archive, error) {
	d, err := datadir.Open(path)
	if err != nil {
		return nil, err
	}
	return &Archive{Dir: d}, nil
}

// logPaths are the paths of the logs that may hold transactions after
// zxid.
func (a *Archive) logPaths(after int64) []string {
	var out []string
	for _, f := range a.Dir.LogsFrom(after + 1) {
		out = append(out, f.Path)
	}
	return out
}

// maxProblems bounds the problems kept; more are only counted.
const maxProblems = 100

// Problems are what a reading went on past: damaged log entries, a
// snapshot that could not be read, a node whose ACL the cache lacks.
type Problems struct {
	List    []error
	Dropped int
}

func (p *Problems) add(err error) {
	if len(p.List) < maxProblems {
		p.List = append(p.List, err)
	} else {
		p.Dropped++
	}
}

// Count is how many problems there were.
func (p *Problems) Count() int { return len(p.List) + p.Dropped }

// snapshotInfo is what loading a snapshot learnt.
type snapshotInfo struct {
	file datadir.File
	// digestZxid is the zxid of the digest the snapshot carries: from
	// there on its state is whole (0: it carries none).
	digestZxid int64
	nodes      int
	sessions   map[int64]int32
	// latest is the latest ctime or mtime of its nodes: roughly when it
	// was taken.
	latest int64
	// digest is the tree digest of what was loaded (see nodeDigest).
	digest uint64
	// ahead: the tree loaded is not the one of the digest the snapshot
	// carries — it holds changes after the digest's zxid (ZooKeeper
	// records a transaction as processed after applying it, and a
	// snapshot written meanwhile holds the change but not its zxid's
	// digest). It is whole again from wholeFrom, the first replayed
	// transaction whose logged digest is the replay's (0 until found).
	ahead     bool
	wholeFrom int64
}

// consistentFrom is the first zxid at which the snapshot, with the logs
// replayed, is the tree as it was: for a snapshot ahead of its digest,
// not before the replay found it (math.MaxInt64 until then).
func (s snapshotInfo) consistentFrom() int64 {
	switch {
	case s.ahead && s.wholeFrom == 0:
		return math.MaxInt64
	case s.ahead:
		return s.wholeFrom
	}
	return max(s.file.Zxid, s.digestZxid)
}

// loadSnapshot loads a snapshot into st, only the nodes keep keeps (nil:
// all).
func loadSnapshot(st Store, f datadir.File, keep func(string) bool, problems *Problems) (snapshotInfo, error) {
	info := snapshotInfo{file: f, sessions: map[int64]int32{}}
	r, err := snapshot.Open(f.Path)
	if err != nil {
		return info, err
	}
	defer r.Close()
	for _, s := range r.Sessions() {
		info.sessions[s.ID] = s.TimeoutMs
	}
	// The snapshot is read on a goroutine of its own, a batch of nodes at
	// a time, while the store takes the previous batch: on a machine with
	// two cores the read and the tree's building overlap.
	batches := make(chan []pathNode, 4)
	free := make(chan []pathNode, 6) // batches taken, for the reader to fill again
	stop := make(chan struct{})
	var readErr error
	missingACL := 0
	go func() {
		defer close(batches)
		batch := make([]pathNode, 0, snapshotBatch)
		for {
			n, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				readErr = err
				return
			}
			if keep != nil && !keep(n.Path) {
				continue
			}
			acl, ok := r.ACL(n.ACL)
			if !ok {
				missingACL++
			}
			info.nodes++
			info.latest = max(info.latest, n.Stat.Mtime, n.Stat.Ctime)
			node := Node{Data: n.Data, ACL: acl, Stat: n.Stat}
			info.digest += nodeDigest(n.Path, node)
			if batch = append(batch, pathNode{n.Path, node}); len(batch) == snapshotBatch {
				select {
				case batches <- batch:
				case <-stop:
					return
				}
				select {
				case batch = <-free:
				default:
					batch = make([]pathNode, 0, snapshotBatch)
				}
			}
		}
		if len(batch) > 0 {
			select {
			case batches <- batch:
			case <-stop:
			}
		}
	}()
	err = st.Load(func(yield func(string, Node) bool) {
		for batch := range batches {
			for _, pn := range batch {
				if !yield(pn.path, pn.node) {
					return
				}
			}
			clear(batch)
			select {
			case free <- batch[:0]:
			default:
			}
		}
	}, nodesAbout(f), info.sessions, f.Zxid)
	close(stop)
	for range batches { // the reader has ended when batches is closed
	}
	if readErr != nil {
		return info, readErr
	}
	if err != nil {
		return info, fmt.Errorf("%s: %w", f.Path, err)
	}
	if missingACL > 0 {
		problems.add(fmt.Errorf("%s: %d nodes name an ACL the snapshot's ACL cache lacks (shown with no ACL)", f.Path, missingACL))
	}
	if d := r.Digest(); d != nil {
		info.digestZxid = d.Zxid
		// Only a whole tree's digest says anything (a history loads a part).
		info.ahead = keep == nil && d.Zxid > 0 && uint64(d.Digest) != info.digest
	}
	return info, nil
}

// snapshotBatch is how many nodes go from the snapshot's reader to the
// store at a time.
const snapshotBatch = 4096

type pathNode struct {
	path string
	node Node
}

// nodesAbout guesses a snapshot's node count from its size, to size maps
// once: a node takes some 60 to 200 bytes on disk (less when compressed),
// and a map sized too small only grows as it would have anyway.
func nodesAbout(f datadir.File) int {
	return int(min(f.Size/100, 64<<20))
}

// loadSnapshotFor loads the newest snapshot whose state, replayed, is
// whole at zxid (every snapshot when zxid < 0): at or before it, with its
// digest's zxid at or before it. A snapshot that cannot be read is noted
// and an older one tried, as ZooKeeper's FileSnap does.
func (a *Archive) loadSnapshotFor(st Store, zxid int64, keep func(string) bool, problems *Problems) (snapshotInfo, error) {
	snaps := a.Dir.Snapshots
	for i := len(snaps) - 1; i >= 0; i-- {
		f := snaps[i]
		if zxid >= 0 && f.Zxid > zxid {
			continue
		}
		info, err := loadSnapshot(st, f, keep, problems)
		if err != nil {
			problems.add(fmt.Errorf("snapshot skipped: %w", err))
			continue
		}
		if zxid >= 0 && info.consistentFrom() > zxid {
			continue // taken while 0x…-0x… were written: not whole yet at zxid
		}
		return info, nil
	}
	if len(snaps) == 0 {
		return snapshotInfo{}, fmt.Errorf("%s has no snapshot: the tree cannot be rebuilt from logs alone", a.Dir.Path)
	}
	if zxid >= 0 {
		return snapshotInfo{}, fmt.Errorf("no readable snapshot of %s is whole at zxid 0x%x (the oldest is %s)", a.Dir.Path, zxid, snaps[0].Path)
	}
	return snapshotInfo{}, fmt.Errorf("no snapshot of %s could be read", a.Dir.Path)
}

// Resolve finds the zxid of a moment: the last transaction at or before
// it. For a zxid moment, that zxid when the logs hold it (or the last one
// before it); for a time, the last transaction logged at or before it.
// ok is false when the logs hold nothing at or before the moment.
func (a *Archive) Resolve(m Moment, problems *Problems) (zxid int64, at int64, ok bool) {
	f := txnlog.OpenFiles(a.logPaths(-1))
	defer f.Close()
	for {
		e, err := f.Next()
		if errors.Is(err, io.EOF) {
			return zxid, at, ok
		}
		if err != nil {
			problems.add(err)
			continue
		}
		if m.after(e.Header.Zxid, e.Header.Time) {
			if m.Zxid != 0 {
				continue // zxids only grow, but a log may start before the last one ends
			}
			return zxid, at, ok
		}
		if e.Header.Zxid > zxid {
			zxid, at, ok = e.Header.Zxid, e.Header.Time, true
		}
	}
}

// FirstTime returns the time of the first logged transaction, the day a
// time of day (ParseMoment) falls on.
func (a *Archive) FirstTime() (int64, bool) {
	f := txnlog.OpenFiles(a.logPaths(-1))
	defer f.Close()
	for {
		e, err := f.Next()
		if errors.Is(err, io.EOF) {
			return 0, false
		}
		if err == nil {
			return e.Header.Time, true
		}
	}
}
