package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// DiffKind is how a node differs between the two sides.
type DiffKind string

const (
	// Added is a node only on side B.
	Added DiffKind = "added"
	// Removed is a node only on side A.
	Removed DiffKind = "removed"
	// Changed is a node on both sides whose data, ACL or ephemerality
	// differ (Difference.What).
	Changed DiffKind = "changed"
	// Unreadable is a node that could not be read on a side (its record
	// carries the error): the comparison of it is unknown.
	Unreadable DiffKind = "unreadable"
)

// What of a node changed.
const (
	WhatData      = "data"
	WhatACL       = "acl"
	WhatEphemeral = "ephemeral"
)

// Difference is one node that differs: Path is under both roots ("/" for
// the roots themselves), A and B its records on each side (nil where it
// is absent).
type Difference struct {
	Path string
	Kind DiffKind
	What []string
	A, B *Record
}

// DiffOptions tunes Diff.
type DiffOptions struct {
	// Ignore are globs of nodes left out of the comparison, with their
	// subtrees: a glob without "/" matches a node's name ("lock-*"), one
	// with "/" its path under the roots ("/app/*/locks"), where "**"
	// stands for any number of levels.
	Ignore []string
}

// DiffStats counts what a comparison saw.
type DiffStats struct {
	NodesA, NodesB int // records read on each side, ignored ones left out
	Ignored        int // nodes left out on either side, subtrees included
	Added, Removed int
	Changed        int
	Unreadable     int
}

// Same reports whether the two sides were found equal.
func (s DiffStats) Same() bool { return s.Added+s.Removed+s.Changed+s.Unreadable == 0 }

// Diff compares two subtrees, each a stream of records in preorder with
// children in byte order — a walk (WalkSource) or an export file, as zkx
// export writes them — and calls each for every node that differs, in
// that order. It merges the two streams as comm does: neither tree is
// held, only the node each side is at. A stream out of that order is an
// error (a file not written by zkx export). ZooKeeper's own /zookeeper is
// left out when a root is "/".
func Diff(ctx context.Context, a, b Source, opts DiffOptions, each func(Difference) error) (DiffStats, error) {
	var st DiffStats
	for _, g := range opts.Ignore {
		if _, err := path.Match(strings.ReplaceAll(g, "**", "*"), ""); err != nil {
			return st, fmt.Errorf("--ignore %q: %w", g, err)
		}
	}
	ra := &diffReader{src: a, ignore: opts.Ignore, side: "A", count: &st.NodesA, ignored: &st.Ignored}
	rb := &diffReader{src: b, ignore: opts.Ignore, side: "B", count: &st.NodesB, ignored: &st.Ignored}
	if err := ra.advance(); err != nil {
		return st, err
	}
	if err := rb.advance(); err != nil {
		return st, err
	}
	for ra.cur != nil || rb.cur != nil {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		var d *Difference
		var err error
		switch c := compareRel(ra, rb); {
		case c < 0:
			d = &Difference{Path: ra.rel, Kind: Removed, A: ra.cur}
			err = ra.advance()
		case c > 0:
			d = &Difference{Path: rb.rel, Kind: Added, B: rb.cur}
			err = rb.advance()
		default:
			d = compareRecords(ra.rel, ra.cur, rb.cur)
			if err = ra.advance(); err == nil {
				err = rb.advance()
			}
		}
		if d != nil {
			switch d.Kind {
			case Added:
				st.Added++
			case Removed:
				st.Removed++
			case Changed:
				st.Changed++
			case Unreadable:
				st.Unreadable++
			}
			if cerr := each(*d); cerr != nil {
				return st, cerr
			}
		}
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

// compareRel orders the two sides' current nodes; a side at its end sorts
// last.
func compareRel(a, b *diffReader) int {
	switch {
	case a.cur == nil:
		return 1
	case b.cur == nil:
		return -1
	}
	return comparePreorder(a.parts, b.parts)
}

// comparePreorder orders paths (as component lists) as a preorder walk
// with children in byte order visits them: an ancestor before its
// descendants, siblings by name.
func comparePreorder(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// compareRecords says how a node present on both sides differs (nil:
// not at all). Null data and empty data compare equal.
func compareRecords(rel string, a, b *Record) *Difference {
	if a.Error != "" || b.Error != "" {
		return &Difference{Path: rel, Kind: Unreadable, A: a, B: b}
	}
	var what []string
	if !bytes.Equal(a.Data, b.Data) {
		what = append(what, WhatData)
	}
	if !sameACL(a.ACL, b.ACL) {
		what = append(what, WhatACL)
	}
	if a.Ephemeral() != b.Ephemeral() {
		what = append(what, WhatEphemeral)
	}
	if len(what) == 0 {
		return nil
	}
	return &Difference{Path: rel, Kind: Changed, What: what, A: a, B: b}
}

// sameACL compares ACLs as sets of entries (ZooKeeper keeps them in the
// order given, which means nothing to a check).
func sameACL(a, b []ACL) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(acl []ACL) []string {
		out := make([]string, len(acl))
		for i, e := range acl {
			out[i] = e.Scheme + ":" + e.ID + ":" + e.Perms
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

// diffReader is one side of a comparison: the current record, its path
// under the root, and the check that the stream is in preorder.
type diffReader struct {
	src     Source
	ignore  []string
	side    string
	count   *int
	ignored *int

	cur       *Record
	rel       string
	parts     []string
	skipUnder string // a subtree being left out ("" for none)
}

// advance moves to the next record not left out; cur is nil at the end.
func (r *diffReader) advance() error {
	for {
		rec, err := r.src.Next()
		if errors.Is(err, io.EOF) {
			r.cur = nil
			return nil
		}
		if err != nil {
			return fmt.Errorf("side %s: %w", r.side, err)
		}
		rel, err := relPath(r.src.Root(), rec.Path)
		if err != nil {
			return fmt.Errorf("side %s: %w", r.side, err)
		}
		parts := splitRel(rel)
		if r.cur != nil || r.rel != "" {
			if comparePreorder(r.parts, parts) >= 0 {
				return fmt.Errorf("side %s is not in preorder with sorted children (%s after %s): compare a subtree or a file zkx export wrote", r.side, rec.Path, r.prevPath())
			}
		}
		r.rel, r.parts = rel, parts
		if r.skipUnder != "" && (rel == r.skipUnder || strings.HasPrefix(rel, r.skipUnder+"/") || r.skipUnder == "/") {
			*r.ignored++
			continue
		}
		r.skipUnder = ""
		if r.leftOut(rel) {
			r.skipUnder = rel
			*r.ignored++
			continue
		}
		r.cur = &rec
		*r.count++
		return nil
	}
}

func (r *diffReader) prevPath() string {
	if r.cur != nil {
		return r.cur.Path
	}
	return r.rel
}

// leftOut reports whether a node is ignored: ZooKeeper's own subtree
// under a root of "/", or a node an --ignore glob matches.
func (r *diffReader) leftOut(rel string) bool {
	if r.src.Root() == "/" && rel == "/zookeeper" {
		return true
	}
	for _, g := range r.ignore {
		if matchGlob(g, rel) {
			return true
		}
	}
	return false
}

// relPath is p under root: "/" for root itself.
func relPath(root, p string) (string, error) {
	if root == "/" {
		return p, nil
	}
	if p == root {
		return "/", nil
	}
	if rest, ok := strings.CutPrefix(p, root+"/"); ok {
		return "/" + rest, nil
	}
	return "", fmt.Errorf("%s is not under the root %s", p, root)
}

func splitRel(rel string) []string {
	if rel == "/" {
		return nil
	}
	return strings.Split(rel[1:], "/")
}

// matchGlob matches a glob against a node: its name when the glob has no
// "/", else its path under the root, "**" matching any number of levels.
func matchGlob(glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(rel))
		return rel != "/" && ok
	}
	return matchParts(splitRel("/"+strings.TrimPrefix(glob, "/")), splitRel(rel))
}

func matchParts(glob, parts []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			for i := 0; i <= len(parts); i++ {
				if matchParts(glob[1:], parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], parts[0]); !ok {
			return false
		}
		glob, parts = glob[1:], parts[1:]
	}
	return len(parts) == 0
}
