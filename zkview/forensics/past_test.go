package forensics

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// servedDigest is the tree digest of what a Past serves.
func servedDigest(p *Past) uint64 {
	var d uint64
	var walk func(path string)
	walk = func(path string) {
		n, ok := p.st.Get(path)
		if !ok {
			return
		}
		d += nodeDigest(path, n)
		for _, c := range p.st.Children(path) {
			if path == "/" {
				walk("/" + c)
			} else {
				walk(path + "/" + c)
			}
		}
	}
	walk("/")
	return d
}

// TestPastStepsThroughEveryTransaction opens the fixtures' past at the
// end of the logs (the newest snapshot, replayed), steps back through
// every transaction — across the older snapshots, which it rebuilds from
// — to the first snapshot, then forward to the end again; at every
// position the served tree is the tree after that transaction (its digest
// equals a plain replay's).
func TestPastStepsThroughEveryTransaction(t *testing.T) {
	t.Parallel()
	want := map[int64]uint64{}
	var zxids []int64
	_, info := replayAll(t, fixtureDir, func(s *Step, st *memStore) {
		want[s.Entry.Header.Zxid] = treeDigest(st)
		zxids = append(zxids, s.Entry.Header.Zxid)
	})
	want[info.file.Zxid] = info.digest
	p, err := OpenPast(fixtureDir, Moment{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if pos := p.Position(); pos.Zxid != zxids[len(zxids)-1] {
		t.Fatalf("at the end: zxid 0x%x, the last logged is 0x%x", pos.Zxid, zxids[len(zxids)-1])
	}
	check := func(pos Position) {
		t.Helper()
		if got := servedDigest(p); got != want[pos.Zxid] {
			t.Fatalf("at 0x%x (%v): served digest 0x%x, replayed 0x%x", pos.Zxid, pos.Txn, got, want[pos.Zxid])
		}
	}
	check(p.Position())
	visited := 0
	for {
		pos, err := p.Step(true, "")
		if errors.Is(err, ErrNoMore) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		check(pos)
		visited++
	}
	if pos := p.Position(); pos.Zxid != info.file.Zxid || pos.Txn != nil || visited != len(zxids) {
		t.Errorf("stopped at 0x%x after %d steps back; want the first snapshot 0x%x after %d", pos.Zxid, visited, info.file.Zxid, len(zxids))
	}
	for {
		pos, err := p.Step(false, "")
		if errors.Is(err, ErrNoMore) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		check(pos)
	}
	if pos := p.Position(); pos.Zxid != zxids[len(zxids)-1] {
		t.Errorf("forward again: stopped at 0x%x", pos.Zxid)
	}
	// No transaction after the last touches anything: the position stays.
	if pos, err := p.Step(false, "/pm"); !errors.Is(err, ErrNoMore) || pos.Zxid != zxids[len(zxids)-1] {
		t.Errorf("past the end: %v at 0x%x", err, pos.Zxid)
	}
	if pr := p.Problems(); pr.Count() != 0 {
		t.Errorf("problems: %v", pr.List)
	}
}

// TestPastAtATime opens the past at a time: the state after the last
// transaction logged at or before it.
func TestPastAtATime(t *testing.T) {
	t.Parallel()
	var times []int64
	var zxids []int64
	replayAll(t, fixtureDir, func(s *Step, _ *memStore) {
		times = append(times, s.Entry.Header.Time)
		zxids = append(zxids, s.Entry.Header.Zxid)
	})
	i := len(times) / 2
	for i+1 < len(times) && times[i+1] == times[i] {
		i++ // the last of the transactions of that millisecond
	}
	p, err := OpenPast(fixtureDir, Moment{Time: time.UnixMilli(times[i])})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if pos := p.Position(); pos.Zxid != zxids[i] || pos.Time.UnixMilli() != times[i] {
		t.Errorf("at %v: zxid 0x%x, want 0x%x", time.UnixMilli(times[i]), pos.Zxid, zxids[i])
	}
	if _, err := OpenPast(fixtureDir, Moment{Time: time.UnixMilli(times[0] - 3600_000)}); err == nil {
		t.Error("opened an hour before the first transaction")
	}
}

// TestPastAtASnapshotsZxid opens the past at the zxid a snapshot was
// taken at: the moment's own transaction is told (it is replayed from an
// earlier snapshot), and the tree is the one after it.
func TestPastAtASnapshotsZxid(t *testing.T) {
	t.Parallel()
	want := map[int64]uint64{}
	replayAll(t, fixtureDir, func(s *Step, st *memStore) { want[s.Entry.Header.Zxid] = treeDigest(st) })
	arch, err := OpenArchive(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, snap := range arch.Dir.Snapshots {
		if snap.Zxid == 0 {
			continue
		}
		p, err := OpenPast(fixtureDir, Moment{Zxid: snap.Zxid})
		if err != nil {
			t.Fatal(err)
		}
		pos := p.Position()
		if pos.Zxid != snap.Zxid || pos.Txn == nil || pos.Txn.Zxid != snap.Zxid || servedDigest(p) != want[snap.Zxid] {
			t.Errorf("at %s's zxid: position %+v", snap.Path, pos)
		}
		p.Close()
		checked++
	}
	if checked < 2 {
		t.Errorf("the fixtures have %d snapshots after the first", checked)
	}
}

// TestPastListensNowhere: the past is served to its reader in process,
// not on a TCP port another local user could reach (they would read what
// the data directory's permissions deny them); a client still reads it
// whole, four-letter words included.
func TestPastListensNowhere(t *testing.T) {
	t.Parallel()
	before, err := zktest.ListeningTCP(os.Getpid())
	if err != nil {
		t.Skipf("no /proc to read sockets from: %v", err)
	}
	p, err := OpenPast(fixtureDir, Moment{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	after, err := zktest.ListeningTCP(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if len(after) > len(before) {
		t.Errorf("the past listens on TCP: %v (before it opened: %v)", after, before)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := p.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if children, _, err := c.Children(ctx, "/"); err != nil || !slices.Contains(children, "pm") {
		t.Errorf("the past's root through its in-process connection: %v %v", children, err)
	}
	snap, err := introspect.Ask(ctx, connstr.ConnectString{Servers: []string{p.Name()}}, introspect.Options{Timeout: 5 * time.Second, Dial: p.Dial})
	if err != nil || len(snap.Members) != 1 || snap.Members[0].Stats == nil {
		t.Errorf("srvr through the in-process connection: %+v %v", snap, err)
	}
}
