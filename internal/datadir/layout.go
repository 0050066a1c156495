package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// versionDir is the folder ZooKeeper keeps its files in under dataDir
// (FileTxnSnapLog.version + VERSION).
const versionDir = "version-2"

// Kind is what a file of the data directory holds.
type Kind int

const (
	// Log is a transaction log, log.<zxid>.
	Log Kind = iota
	// Snapshot is a snapshot, snapshot.<zxid> with an optional .gz or
	// .snappy suffix naming its compression.
	Snapshot
)

// File is one log or snapshot of a data directory.
type File struct {
	Path string
	Kind Kind
	// Zxid is the zxid in the file's name: a log's first transaction, the
	// last transaction a snapshot had seen when it began (it is fuzzy: it
	// may hold later ones too).
	Zxid int64
	// Size is the file's size in bytes (a log is preallocated and padded
	// with zeros, so this is more than its transactions take).
	Size int64
}

// Dir is a data directory's logs and snapshots, each list sorted by zxid.
type Dir struct {
	// Path is the folder the files are in: DIR/version-2, or DIR itself
	// when it is a version-2 folder or holds the files directly.
	Path      string
	Logs      []File
	Snapshots []File
	// Skipped are the files named as logs or snapshots that are not
	// regular files (a named pipe would block their reader forever): each
	// a *fileread.NotRegularError, for the caller to warn of.
	Skipped []error
}

// ErrNoFiles reports a directory with neither logs nor snapshots.
var ErrNoFiles = errors.New("no transaction logs (log.*) or snapshots (snapshot.*)")

// Open lists the logs and snapshots of a ZooKeeper data directory. dir
// may be dataDir (the files are in its version-2 folder), the version-2
// folder itself, or any folder holding log.* and snapshot.* files.
func Open(dir string) (Dir, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return Dir{}, err
	}
	if !fi.IsDir() {
		return Dir{}, fmt.Errorf("%s: not a directory", dir)
	}
	if sub := filepath.Join(dir, versionDir); isDir(sub) {
		dir = sub
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Dir{}, err
	}
	d := Dir{Path: dir}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		kind, zxid, ok := Parse(e.Name())
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := os.Stat(path) // a link to a file is read as the file
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed by a purge while we listed (or a dangling link)
			}
			return Dir{}, err
		}
		if err := fileread.Check(path, info.Mode()); err != nil {
			d.Skipped = append(d.Skipped, err)
			continue
		}
		f := File{Path: path, Kind: kind, Zxid: zxid, Size: info.Size()}
		if kind == Log {
			d.Logs = append(d.Logs, f)
		} else {
			d.Snapshots = append(d.Snapshots, f)
		}
	}
	sortFiles(d.Logs)
	sortFiles(d.Snapshots)
	if len(d.Logs) == 0 && len(d.Snapshots) == 0 {
		return d, fmt.Errorf("%s: %w", dir, ErrNoFiles)
	}
	return d, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func sortFiles(fs []File) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Zxid != fs[j].Zxid {
			return fs[i].Zxid < fs[j].Zxid
		}
		return fs[i].Path < fs[j].Path
	})
}

// Parse tells a log or a snapshot by its name and reads the zxid in it,
// as Util.getZxidFromName does: the prefix, a dot, hex digits, and for a
// snapshot an optional compression suffix. Other names (log.1.tmp,
// snapshot.x, acceptedEpoch) are not ZooKeeper's files.
func Parse(name string) (Kind, int64, bool) {
	prefix, rest, ok := strings.Cut(name, ".")
	if !ok {
		return 0, 0, false
	}
	var kind Kind
	switch prefix {
	case "log":
		kind = Log
	case "snapshot":
		kind = Snapshot
		for _, suffix := range []string{".gz", ".snappy"} {
			rest = strings.TrimSuffix(rest, suffix)
		}
	default:
		return 0, 0, false
	}
	if rest == "" || len(rest) > 16 {
		return 0, 0, false
	}
	z, err := strconv.ParseUint(rest, 16, 64)
	if err != nil {
		return 0, 0, false
	}
	return kind, int64(z), true
}

// SnapshotAtOrBefore returns the newest snapshot whose zxid is at most
// zxid, the one to start from to rebuild the tree as it was at zxid;
// ok is false when every snapshot is newer.
func (d Dir) SnapshotAtOrBefore(zxid int64) (File, bool) {
	for i := len(d.Snapshots) - 1; i >= 0; i-- {
		if d.Snapshots[i].Zxid <= zxid {
			return d.Snapshots[i], true
		}
	}
	return File{}, false
}

// LogsFrom returns the logs that may hold transactions from zxid on: the
// newest log starting at or before zxid and every later one, as
// FileTxnIterator chooses them.
func (d Dir) LogsFrom(zxid int64) []File {
	first := 0
	for i, f := range d.Logs {
		if f.Zxid <= zxid {
			first = i
		}
	}
	return d.Logs[first:]
}
