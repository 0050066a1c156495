package transfer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/zkx-dev/zkx/zkview"
)

// Source yields records in preorder (parents first); Next returns io.EOF
// after the last.
type Source interface {
	Root() string
	Next() (Record, error)
}

// maxLine bounds one line of an export: a node's data (at most ZooKeeper's
// 1 MiB) in base64 and again as text, with room to spare.
const maxLine = 8 << 20

// fileSource reads an export file.
type fileSource struct {
	sc   *bufio.Scanner
	root string
	line int
	seen map[string]bool // the paths read: a path twice, or before its parent, is not an export
}

// bom is the byte order mark an editor may put before UTF-8 text.
var bom = []byte("\xef\xbb\xbf")

// ReadFile opens an export for reading: it reads and checks the header.
// Each record is checked as it is read (see Next).
func ReadFile(r io.Reader) (Source, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	s := &fileSource{sc: sc, seen: map[string]bool{}}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read the export: %w", err)
		}
		return nil, fmt.Errorf("the export is empty (no header line)")
	}
	s.line = 1
	var h Header
	if err := json.Unmarshal(bytes.TrimPrefix(sc.Bytes(), bom), &h); err != nil || h.Format == 0 {
		return nil, fmt.Errorf("line 1 is not a zkx export header (a file from zkx export starts {\"zkx_export\":1,…})")
	}
	if h.Format > FormatVersion {
		return nil, fmt.Errorf("export format %d is newer than this zkx reads (%d): use a newer zkx", h.Format, FormatVersion)
	}
	root, err := zkview.CheckPath(h.Root)
	if err != nil || root != h.Root {
		return nil, fmt.Errorf("line 1: export root %q is not a znode path", h.Root)
	}
	s.root = root
	return s, nil
}

func (s *fileSource) Root() string { return s.root }

// Next reads the next record and refuses what zkx export never writes: a
// line that is not a record, a path that is not a znode's or not under
// the root, a path twice, a node before its parent, a readable node
// without an ACL (ZooKeeper refuses to create one), a permission that is
// not one of cdrwa.
func (s *fileSource) Next() (Record, error) {
	for s.sc.Scan() {
		s.line++
		if len(s.sc.Bytes()) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(s.sc.Bytes(), &r); err != nil {
			return r, fmt.Errorf("line %d: %w", s.line, err)
		}
		if err := s.check(&r); err != nil {
			return r, fmt.Errorf("line %d: %w", s.line, err)
		}
		return r, nil
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Record{}, fmt.Errorf("line %d: longer than %d MiB: not a zkx export line", s.line+1, maxLine>>20)
		}
		return Record{}, fmt.Errorf("read the export: %w", err)
	}
	return Record{}, io.EOF
}

func (s *fileSource) check(r *Record) error {
	if clean, err := zkview.CheckPath(r.Path); err != nil || clean != r.Path {
		return fmt.Errorf("path %q is not a znode path", r.Path)
	}
	if !under(r.Path, s.root) {
		return fmt.Errorf("%s is not under the export's root %s", r.Path, s.root)
	}
	if s.seen[r.Path] {
		return fmt.Errorf("%s appears a second time", r.Path)
	}
	if parent := path.Dir(r.Path); r.Path != s.root && !s.seen[parent] {
		return fmt.Errorf("%s comes before its parent %s (an export lists parents first, from its root)", r.Path, parent)
	}
	if r.Error == "" {
		if len(r.ACL) == 0 {
			return fmt.Errorf("%s has no ACL (\"acl\": [] or none): ZooKeeper refuses to create a node without one (InvalidACL)", r.Path)
		}
		for _, a := range r.ACL {
			if _, err := zkview.ParsePerms(a.Perms); err != nil {
				return fmt.Errorf("%s: ACL %s:%s: %w", r.Path, a.Scheme, a.ID, err)
			}
		}
	}
	s.seen[r.Path] = true
	return nil
}

// under reports whether p is root or below it.
func under(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// Check reads an export through to its end as Import would, so that a
// bad line is found before anything is written; it returns how many
// records the export holds.
func Check(r io.Reader) (int, error) {
	src, err := ReadFile(r)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		if _, err := src.Next(); errors.Is(err, io.EOF) {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n++
	}
}

// walkSource walks a live subtree as records (copy, move).
type walkSource struct {
	root   string
	recs   chan Record
	errc   chan error
	cancel context.CancelFunc
}

// WalkSource reads root from r as Export would, for Import to write
// elsewhere; Close it when done.
func WalkSource(ctx context.Context, r zkview.Reader, root string) *walkSource {
	ctx, cancel := context.WithCancel(ctx)
	s := &walkSource{root: root, recs: make(chan Record, 1024), errc: make(chan error, 1), cancel: cancel}
	go func() {
		defer close(s.recs)
		s.errc <- zkview.Walk(ctx, r, root, zkview.WalkOptions{Data: true, ACL: true}, func(n zkview.WalkNode) error {
			select {
			case s.recs <- recordOf(n):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return s
}

func (s *walkSource) Root() string { return s.root }

func (s *walkSource) Next() (Record, error) {
	r, ok := <-s.recs
	if ok {
		return r, nil
	}
	if err := <-s.errc; err != nil {
		s.errc <- err
		return Record{}, err
	}
	s.errc <- nil
	return Record{}, io.EOF
}

// Close stops the walk.
func (s *walkSource) Close() { s.cancel() }
