package recipes

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/go-zookeeper/zk"
)

// ErrMemberTaken is returned by GroupMember.Join when another session's
// node already stands for the member id.
var ErrMemberTaken = errors.New("recipes: member id taken by another session")

// Member is one member of a Party or of a GroupMember's group: an
// ephemeral node in the group's directory.
type Member struct {
	// Name is the node's name: a group member's id, a party member's
	// random name.
	Name string
	// Data is the node's data: a party member's identifier, a group
	// member's payload.
	Data []byte
	// Session is the session that owns the node (0 for a persistent node,
	// which neither library writes).
	Session int64
}

// createMember creates dir/name as an ephemeral node holding data and
// reports whether it is ours: created now, or found owned by our session
// (a create whose answer was lost). A node of another session is
// ErrMemberTaken. A missing dir is made by makeDir.
func (s *Session) createMember(ctx context.Context, dir, name string, data []byte, opts options, makeDir func(context.Context, string, []zk.ACL) error) error {
	path := joinPath(dir, name)
	for {
		got, err := s.createProtected(ctx, dir, name, data, opts.acl, zk.FlagEphemeral, opts.stats)
		switch {
		case err == nil && got == name:
			return nil
		case err == nil:
			// After a lost answer createProtected looks for a node of ours
			// starting with name, and may find another member of this
			// session ("ab" for "a"): create ours again, which says
			// whether it exists.
			continue
		case errors.Is(err, zk.ErrNodeExists):
			st, err := retry(ctx, s, func() (*zk.Stat, error) {
				_, st, err := s.conn.Exists(path)
				return st, err
			})
			switch {
			case err != nil:
				return fmt.Errorf("join %s: %w", path, err)
			case st == nil:
				continue // gone meanwhile: create it again
			case st.EphemeralOwner != s.id:
				return fmt.Errorf("%w: %s belongs to session 0x%x", ErrMemberTaken, path, st.EphemeralOwner)
			}
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if err := makeDir(ctx, dir, opts.acl); err != nil {
				return err
			}
		default:
			return fmt.Errorf("join %s: %w", path, err)
		}
	}
}

// readMembers lists the children of dir that keep says are members, with
// their data and owners, in name order; children deleted meanwhile are
// left out. A missing dir has no members.
func (s *Session) readMembers(ctx context.Context, dir string, keep func(name string) bool) ([]Member, error) {
	names, err := retry(ctx, s, func() ([]string, error) {
		c, _, err := s.conn.Children(dir)
		return c, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return []Member{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list members of %s: %w", dir, err)
	}
	sort.Strings(names)
	out := make([]Member, 0, len(names))
	for _, name := range names {
		if !keep(name) {
			continue
		}
		type node struct {
			data []byte
			stat *zk.Stat
		}
		n, err := retry(ctx, s, func() (node, error) {
			data, st, err := s.conn.Get(joinPath(dir, name))
			return node{data, st}, err
		})
		switch {
		case errors.Is(err, zk.ErrNoNode):
			continue // left meanwhile
		case err != nil:
			return nil, fmt.Errorf("read member %s: %w", joinPath(dir, name), err)
		}
		out = append(out, Member{Name: name, Data: n.data, Session: n.stat.EphemeralOwner})
	}
	return out, nil
}
