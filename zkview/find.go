package zkview

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// FindQuery is what `zkx find` and the explorer's find look for. Every
// condition set must hold; the zero query matches every node.
type FindQuery struct {
	// Name matches a node's name (the last path component).
	Name *NamePattern
	// Data matches somewhere in a node's data.
	Data *regexp.Regexp
	// Ephemeral keeps only nodes a session owns.
	Ephemeral bool
	// Owner keeps only nodes this session owns (0: any).
	Owner int64
	// Older keeps only nodes last modified more than this long before Now.
	Older time.Duration
	// Now is the clock Older counts from (default time.Now at Find).
	Now time.Time
}

// NamePattern is a shell glob ("lock-*") or, between slashes, a regular
// expression ("/^_c_.*-lock-/").
type NamePattern struct {
	text string
	glob string
	re   *regexp.Regexp
}

// ParseNamePattern reads a glob or a /regex/.
func ParseNamePattern(s string) (*NamePattern, error) {
	if s == "" {
		return nil, fmt.Errorf("empty name pattern")
	}
	if re, ok, err := parseSlashRegexp(s); ok {
		if err != nil {
			return nil, fmt.Errorf("name pattern %s: %w", s, err)
		}
		return &NamePattern{text: s, re: re}, nil
	}
	if _, err := path.Match(s, ""); err != nil {
		return nil, fmt.Errorf("name glob %q: %w", s, err)
	}
	return &NamePattern{text: s, glob: s}, nil
}

// ParseDataPattern reads --data: a /regex/ (the slashes may be left out).
func ParseDataPattern(s string) (*regexp.Regexp, error) {
	if re, ok, err := parseSlashRegexp(s); ok {
		if err != nil {
			return nil, fmt.Errorf("data pattern %s: %w", s, err)
		}
		return re, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("data pattern %q: %w", s, err)
	}
	return re, nil
}

// parseSlashRegexp compiles s when it is written /like this/.
func parseSlashRegexp(s string) (*regexp.Regexp, bool, error) {
	if len(s) < 2 || s[0] != '/' || s[len(s)-1] != '/' {
		return nil, false, nil
	}
	re, err := regexp.Compile(s[1 : len(s)-1])
	return re, true, err
}

// String gives the pattern as it was written.
func (p *NamePattern) String() string { return p.text }

// Match reports whether a node name matches.
func (p *NamePattern) Match(name string) bool {
	if p.re != nil {
		return p.re.MatchString(name)
	}
	ok, _ := path.Match(p.glob, name)
	return ok
}

// ParseOwner reads a session id as zkx prints it (0x1000a2b3c4d0001) or
// in decimal.
func ParseOwner(s string) (int64, error) {
	t := strings.TrimSpace(s)
	var (
		u   uint64
		err error
	)
	if h, ok := strings.CutPrefix(strings.ToLower(t), "0x"); ok {
		u, err = strconv.ParseUint(h, 16, 64)
	} else {
		var v int64
		v, err = strconv.ParseInt(t, 10, 64)
		u = uint64(v)
	}
	if err != nil || u == 0 {
		return 0, fmt.Errorf("session %q: want a session id such as 0x1000a2b3c4d0001", s)
	}
	return int64(u), nil
}

// NeedsData reports whether matching reads the nodes' data.
func (q FindQuery) NeedsData() bool { return q.Data != nil }

// Match reports whether a walked node meets every condition. A node that
// could not be read matches only a query on its name.
func (q FindQuery) Match(n WalkNode) bool {
	if q.Name != nil && !q.Name.Match(path.Base(n.Path)) {
		return false
	}
	if q.Data == nil && !q.Ephemeral && q.Owner == 0 && q.Older == 0 {
		return true
	}
	if n.Err != nil || n.Stat == nil {
		return false
	}
	owner := n.Stat.EphemeralOwner
	if q.Ephemeral && !IsSessionOwner(owner) {
		return false
	}
	if q.Owner != 0 && owner != q.Owner {
		return false
	}
	if q.Older > 0 && !time.UnixMilli(n.Stat.Mtime).Before(q.Now.Add(-q.Older)) {
		return false
	}
	if q.Data != nil && !q.Data.Match(n.Data) {
		return false
	}
	return true
}

// String describes the query for a title or a status line.
func (q FindQuery) String() string {
	var parts []string
	if q.Name != nil {
		parts = append(parts, "name "+q.Name.String())
	}
	if q.Data != nil {
		parts = append(parts, "data /"+q.Data.String()+"/")
	}
	if q.Ephemeral {
		parts = append(parts, "ephemeral")
	}
	if q.Owner != 0 {
		parts = append(parts, "owner "+fmt.Sprintf("0x%x", uint64(q.Owner)))
	}
	if q.Older > 0 {
		parts = append(parts, "older than "+q.Older.String())
	}
	if len(parts) == 0 {
		return "every node"
	}
	return strings.Join(parts, ", ")
}

// MissingRoot is the error of a walk whose root does not exist (the
// walk's first node), nil for any other node.
func MissingRoot(n WalkNode) error {
	if n.Depth == 0 && IsNoNode(n.Err) {
		return n.Err
	}
	return nil
}

// IsSessionOwner reports whether an ephemeralOwner is a session's (an
// ephemeral node), not 0 nor the markers of container and TTL nodes.
func IsSessionOwner(id int64) bool {
	u := uint64(id)
	return id != 0 && id != ownerContainer && !(u&ownerTTLMask == ownerTTLMask && u&ownerTTLTypeMask == 0)
}

// FindStats counts a find's progress.
type FindStats struct {
	Visited, Matched int
	// Unreadable counts the nodes that could not be listed: what is below
	// them was not searched. NoRead are those of them the server refused
	// for want of READ permission.
	Unreadable, NoRead int
}

// Find walks root (as Walk, listings in parallel, output in preorder) and
// calls found for each node the query matches; visited, when not nil, is
// called for every node walked (for progress, and to show the nodes that
// could not be read). A root that does not exist is an error.
func Find(ctx context.Context, r Reader, root string, q FindQuery, opts WalkOptions, visited func(WalkNode), found func(WalkNode) error) (FindStats, error) {
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	opts.Data = opts.Data || q.NeedsData()
	var st FindStats
	err := Walk(ctx, r, root, opts, func(n WalkNode) error {
		if err := MissingRoot(n); err != nil {
			return err
		}
		st.Visited++
		if n.Err != nil {
			st.Unreadable++
			if IsNoAuth(n.Err) {
				st.NoRead++
			}
		}
		if visited != nil {
			visited(n)
		}
		if !q.Match(n) {
			return nil
		}
		st.Matched++
		return found(n)
	})
	return st, err
}
