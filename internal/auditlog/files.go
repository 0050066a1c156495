package auditlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// Files lists the files to read for paths: a file is itself; a directory
// gives the files in it (not below it) whose names hold "audit" — the
// audit log and its rotated copies (zookeeper_audit.log, .1 … .N, dated,
// .gz) — or, when no name does, every file in it (a folder of server logs
// where the audit logger writes into the main log). Hidden files are left
// out, and so is what is not a regular file (a named pipe would block the
// reader), told to warn. The order does not matter: Log merges the files
// by time.
func Files(paths []string, warn func(error)) ([]string, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no audit log given")
	}
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("audit log %s: %w", p, unwrapPath(err))
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("audit log %s: %w", p, unwrapPath(err))
		}
		var all, audit []string
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || e.IsDir() {
				continue
			}
			path := filepath.Join(p, e.Name())
			if err := fileread.Check(path, e.Type()); err != nil && e.Type()&fs.ModeSymlink == 0 {
				if warn != nil {
					warn(err)
				}
				continue
			}
			all = append(all, path)
			if strings.Contains(strings.ToLower(e.Name()), "audit") {
				audit = append(audit, path)
			}
		}
		if len(audit) > 0 {
			all = audit
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("%s: no file in it", p)
		}
		sort.Strings(all)
		out = append(out, all...)
	}
	return out, nil
}

// unwrapPath drops the operation and path an *fs.PathError adds, for a
// message that names the path itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
