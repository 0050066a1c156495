package edit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
)

// Session is one node being edited: the data and version read, and the
// file the editor works on. Close removes the file.
type Session struct {
	Path   string
	Format Format
	// Base is the data the edit started from and Version its version:
	// the write is refused when the node's version is another.
	Base    []byte
	Version int32
	// File is the temporary file the editor opens.
	File string
}

// Begin reads path and writes its data to a temporary file for the
// editor. Binary data is refused (ErrBinary).
func Begin(ctx context.Context, c *zkview.Client, p string) (*Session, error) {
	data, st, err := c.Get(ctx, p)
	if err != nil {
		return nil, err
	}
	f, err := FormatOf(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	s := &Session{Path: p, Format: f, Base: data, Version: st.Version}
	if err := s.writeFile(data); err != nil {
		return nil, err
	}
	return s, nil
}

// writeFile (re)writes the editor's file, named for the node so that an
// editor picks the right syntax.
func (s *Session) writeFile(data []byte) error {
	if s.File == "" {
		name := strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || r < ' ' {
				return '_'
			}
			return r
		}, path.Base(s.Path))
		ext := ".txt"
		if s.Format == JSON {
			ext = ".json"
		}
		f, err := os.CreateTemp("", "zkx-edit-*-"+truncateName(name)+ext)
		if err != nil {
			return fmt.Errorf("a file for the editor: %w", err)
		}
		s.File = f.Name()
		f.Close()
	}
	if err := os.WriteFile(s.File, data, 0o600); err != nil {
		return fmt.Errorf("a file for the editor: %w", err)
	}
	return nil
}

func truncateName(s string) string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// Outcome is what came back from the editor.
type Outcome int

const (
	// Unchanged: the file holds what was read; nothing to write.
	Unchanged Outcome = iota
	// Invalid: the data was JSON and the file is not (Err says where).
	Invalid
	// Ready: the file holds new data to write.
	Ready
)

// Result reads the editor's file and says what to do with it: data is
// what it holds, err a *SyntaxError when Invalid (or a read failure).
func (s *Session) Result() (Outcome, []byte, error) {
	data, err := os.ReadFile(s.File)
	if err != nil {
		return Unchanged, nil, fmt.Errorf("read back %s: %w", s.File, err)
	}
	if bytes.Equal(data, s.Base) {
		return Unchanged, data, nil
	}
	if err := Check(s.Format, data); err != nil {
		return Invalid, data, err
	}
	return Ready, data, nil
}

// Conflict is a write refused because the node changed since it was read:
// what it holds now, and what changed from the data the edit started from.
type Conflict struct {
	Current        []byte
	CurrentVersion int32
	// Changes are the lines that changed from Base to Current.
	Changes []DiffLine
	// Deleted is set when the node is gone.
	Deleted bool
}

// Save writes data if the node is still at Version. When it is not, it
// reads the node again and returns the Conflict (and no error).
func (s *Session) Save(ctx context.Context, c *zkview.Client, data []byte) (*zk.Stat, *Conflict, error) {
	w, err := c.Writer()
	if err != nil {
		return nil, nil, err
	}
	st, err := w.Set(ctx, s.Path, data, s.Version)
	switch {
	case err == nil:
		return st, nil, nil
	case zkview.IsNoNode(err):
		return nil, &Conflict{Deleted: true}, nil
	case !zkview.IsBadVersion(err):
		return nil, nil, err
	}
	current, cst, err := c.Get(ctx, s.Path)
	if zkview.IsNoNode(err) {
		return nil, &Conflict{Deleted: true}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return nil, &Conflict{Current: current, CurrentVersion: cst.Version, Changes: Lines(string(s.Base), string(current))}, nil
}

// Adopt makes the node's current data the base of the edit: the next Save
// is conditional on its version (overwriting what changed, knowingly).
func (s *Session) Adopt(c *Conflict) { s.Base, s.Version = c.Current, c.CurrentVersion }

// Close removes the editor's file.
func (s *Session) Close() {
	if s.File != "" {
		os.Remove(s.File)
	}
}
