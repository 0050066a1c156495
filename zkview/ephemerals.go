package zkview

import (
	"context"
	"sort"
)

// EphemeralOwners walks root and collects its ephemeral nodes by owning
// session, each list sorted: what the tree itself says of the sessions
// when the servers will not list them (cons and dump refused). nodes is
// how many nodes were read. A walk that ends early (ctx, a failed read)
// returns what it found with the error.
func EphemeralOwners(ctx context.Context, r Reader, root string) (owners map[int64][]string, nodes int, err error) {
	owners = map[int64][]string{}
	err = Walk(ctx, r, root, WalkOptions{}, func(n WalkNode) error {
		nodes++
		if n.Stat != nil && n.Stat.EphemeralOwner != 0 {
			owners[n.Stat.EphemeralOwner] = append(owners[n.Stat.EphemeralOwner], n.Path)
		}
		return nil
	})
	for _, paths := range owners {
		sort.Strings(paths)
	}
	return owners, nodes, err
}
