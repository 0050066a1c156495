package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
}

// ReadFile opens an export for reading: it reads and checks the header.
func ReadFile(r io.Reader) (Source, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	s := &fileSource{sc: sc}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read the export: %w", err)
		}
		return nil, fmt.Errorf("the export is empty (no header line)")
	}
	s.line = 1
	var h Header
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Format == 0 {
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
		if clean, err := zkview.CheckPath(r.Path); err != nil || clean != r.Path {
			return r, fmt.Errorf("line %d: path %q is not a znode path", s.line, r.Path)
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
