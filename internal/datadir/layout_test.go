package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		kind Kind
		zxid int64
		ok   bool
	}{
		{"log.1", Log, 1, true},
		{"log.1e", Log, 0x1e, true},
		{"snapshot.0", Snapshot, 0, true},
		{"snapshot.3b", Snapshot, 0x3b, true},
		{"snapshot.100000001.gz", Snapshot, 0x100000001, true},
		{"snapshot.1f.snappy", Snapshot, 0x1f, true},
		{"log.1.gz", 0, 0, false},
		{"snapshot.x", 0, 0, false},
		{"snapshot.", 0, 0, false},
		{"acceptedEpoch", 0, 0, false},
		{"log.10000000000000000", 0, 0, false},
		{"myid", 0, 0, false},
	}
	for _, c := range cases {
		kind, zxid, ok := Parse(c.name)
		if ok != c.ok || (ok && (kind != c.kind || zxid != c.zxid)) {
			t.Errorf("Parse(%q) = %v, %#x, %v; want %v, %#x, %v", c.name, kind, zxid, ok, c.kind, c.zxid, c.ok)
		}
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v2 := filepath.Join(dir, "version-2")
	if err := os.Mkdir(v2, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"log.1", "log.20", "log.a", "snapshot.0", "snapshot.1f.gz", "snapshot.9", "currentEpoch", "log.20.tmp"} {
		if err := os.WriteFile(filepath.Join(v2, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, at := range []string{dir, v2} {
		d, err := Open(at)
		if err != nil {
			t.Fatal(err)
		}
		if d.Path != v2 {
			t.Errorf("Open(%s).Path = %s, want %s", at, d.Path, v2)
		}
		var logs, snaps []int64
		for _, f := range d.Logs {
			logs = append(logs, f.Zxid)
		}
		for _, f := range d.Snapshots {
			snaps = append(snaps, f.Zxid)
		}
		if len(logs) != 3 || logs[0] != 1 || logs[1] != 0xa || logs[2] != 0x20 {
			t.Errorf("logs %v, want 1, a, 20 in order", logs)
		}
		if len(snaps) != 3 || snaps[0] != 0 || snaps[1] != 9 || snaps[2] != 0x1f {
			t.Errorf("snapshots %v, want 0, 9, 1f in order", snaps)
		}
		if s, ok := d.SnapshotAtOrBefore(0x1e); !ok || s.Zxid != 9 {
			t.Errorf("snapshot at or before 0x1e: %v %v, want 9", s, ok)
		}
		if _, ok := d.SnapshotAtOrBefore(-1); ok {
			t.Error("a snapshot before every snapshot")
		}
		if from := d.LogsFrom(0xb); len(from) != 2 || from[0].Zxid != 0xa {
			t.Errorf("logs from 0xb: %v, want a and 20", from)
		}
		if from := d.LogsFrom(0); len(from) != 3 {
			t.Errorf("logs from 0: %v, want all three", from)
		}
	}
	empty := t.TempDir()
	if _, err := Open(empty); !errors.Is(err, ErrNoFiles) {
		t.Errorf("empty directory: %v, want ErrNoFiles", err)
	}
	if _, err := Open(filepath.Join(v2, "log.1")); err == nil {
		t.Error("a file opened as a data directory")
	}
}

// A directory whose only log is a named pipe has no files zkx reads, and
// its error says which were passed over and why.
func TestOpenNamesWhatItPassedOver(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "log.1")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if !errors.Is(err, ErrNoFiles) || !strings.Contains(err.Error(), "passed over: "+pipe+": not a regular file (a named pipe)") {
		t.Fatalf("Open(a directory holding only a named pipe log.1) = %v", err)
	}
}
