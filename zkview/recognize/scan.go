package recognize

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/zkx-dev/zkx/zkview"
)

// Result is every recipe Scan recognised, by kind, each list in the
// walk's order (depth-first, children by name).
type Result struct {
	Locks     []Lock     `json:"locks"`
	Elections []Election `json:"elections"`
	Queues    []Queue    `json:"queues"`
	Barriers  []Barrier  `json:"barriers"`
	// Groups are membership directories, systems' and libraries' (see
	// Group).
	Groups     []Group       `json:"groups"`
	Partitions []Partitioner `json:"partitions"`
	Leases     []Lease       `json:"leases"`
	Counters   []Counter     `json:"counters"`
	TTLNodes   []TTLNode     `json:"ttl_nodes"`
	// Partial is set when part of the tree was not read: the scan was
	// cancelled, or some nodes could not be read (Scan's error says which).
	Partial bool `json:"partial,omitempty"`
	// FoundBy is how the recipes were found: FoundByWalk (every node
	// under the root listed) or FoundByEphemerals (only the directories of
	// the ephemeral nodes the servers list; see ScanContended).
	FoundBy string `json:"-"`
}

// All returns every recipe of the result, kind by kind, pointing into its
// lists.
func (res *Result) All() []Recipe {
	all := make([]Recipe, 0, res.Len())
	for i := range res.Locks {
		all = append(all, &res.Locks[i])
	}
	for i := range res.Elections {
		all = append(all, &res.Elections[i])
	}
	for i := range res.Queues {
		all = append(all, &res.Queues[i])
	}
	for i := range res.Barriers {
		all = append(all, &res.Barriers[i])
	}
	for i := range res.Groups {
		all = append(all, &res.Groups[i])
	}
	for i := range res.Partitions {
		all = append(all, &res.Partitions[i])
	}
	for i := range res.Leases {
		all = append(all, &res.Leases[i])
	}
	for i := range res.Counters {
		all = append(all, &res.Counters[i])
	}
	for i := range res.TTLNodes {
		all = append(all, &res.TTLNodes[i])
	}
	return all
}

// Len is how many recipes the result holds, of every class.
func (res *Result) Len() int {
	return len(res.Locks) + len(res.Elections) + len(res.Queues) + len(res.Barriers) + len(res.Groups) +
		len(res.Partitions) + len(res.Leases) + len(res.Counters) + len(res.TTLNodes)
}

// emptyResult has every list empty, not nil (JSON [] rather than null).
func emptyResult() Result {
	return Result{Locks: []Lock{}, Elections: []Election{}, Queues: []Queue{}, Barriers: []Barrier{}, Groups: []Group{},
		Partitions: []Partitioner{}, Leases: []Lease{}, Counters: []Counter{}, TTLNodes: []TTLNode{}}
}

// recScanErrors bounds the read errors Scan's error lists.
const recScanErrors = 10

// Scan walks root and its descendants and recognises every recipe among
// them, as Dir does for one directory. Listings are pipelined by
// Walk and the recipes' nodes read in parallel, at most opts.Concurrency
// reads of each kind in flight. The members of a recognised recipe are not
// listed themselves (they have no children).
//
// Scan goes on past nodes it cannot read (no permission, gone) and then
// returns what it found with Partial set and an error naming them; when ctx
// ends it returns what it found so far, Partial, and ctx's error.
func Scan(ctx context.Context, r zkview.Reader, root string, opts Options) (Result, error) {
	rc := newRecognizer(r, opts)
	opts = rc.opts
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		slots   []*scanSlot
		wg      sync.WaitGroup
		busy    = make(chan struct{}, opts.Concurrency) // directories being recognised
		readErr []error
		skip    bool
		// Kazoo semaphores: "<p>" beside "<p>-__lock__", seen in their
		// parent's listing.
		kazooSem     = map[string]bool{}
		kazooSemLock = map[string]bool{}
		// A multi-lease's numbered slots, seen in its listing: each is
		// recognised with it.
		leaseSlots = map[string]bool{}
		// A partitioner's party/, seen in its listing.
		parties = map[string]bool{}
		// Directories no layout claims, by how many children they have,
		// and how many of those the walk found ephemeral: a group whose
		// members name themselves (Curator's GroupMember) when all are.
		plainDirs    = map[string]int{}
		ephemeralsIn = map[string]int{}
		// Siblings a naming convention looks for, by directory, from
		// its parent's listing (dirHint.siblings).
		nearby = map[string][]string{}
	)
	visit := func(n zkview.WalkNode) error {
		skip = false
		if opts.Visit != nil {
			opts.Visit(n)
		}
		if n.Err != nil {
			if n.Depth == 0 {
				return n.Err
			}
			readErr = append(readErr, n.Err)
			return nil
		}
		for _, c := range n.Children {
			if base, ok := strings.CutSuffix(c, kazooSemaphoreLock); ok && base != "" && containsSorted(n.Children, base) {
				kazooSem[zkview.ChildPath(n.Path, base)] = true
				kazooSemLock[zkview.ChildPath(n.Path, c)] = true
			}
		}
		if n.Depth > 0 && n.Stat != nil && n.Stat.EphemeralOwner != 0 {
			ephemeralsIn[path.Dir(n.Path)]++
		}
		d := newListedDir(n.Path, n.Stat, n.Children)
		skip = d.walkLeaves()
		if kazooSemLock[n.Path] {
			return nil // recognised with its semaphore
		}
		if d.isMultiLeaseCandidate() {
			for _, c := range n.Children {
				leaseSlots[zkview.ChildPath(n.Path, c)] = true
			}
		}
		if leaseSlots[n.Path] && (d.isLease() || d.allOf(kindKazooLock)) {
			return nil // recognised with its multi-lease
		}
		if d.isPartitioner() {
			parties[zkview.ChildPath(n.Path, "party")] = true
		}
		if parties[n.Path] {
			return nil // a partitioner's party: recognised with it
		}
		for _, c := range n.Children {
			if near := conventionSiblings(n.Children, c); len(near) > 0 {
				nearby[zkview.ChildPath(n.Path, c)] = near
			}
		}
		h := dirHint{kazooSemaphore: kazooSem[n.Path], siblings: nearby[n.Path], siblingsKnown: n.Depth > 0}
		delete(nearby, n.Path)
		if n.Depth > 0 && !h.kazooSemaphore && !d.candidate() {
			if d.allForeign() && len(d.names) <= recGroupMembers {
				plainDirs[n.Path] = len(d.names)
			}
			return nil
		}
		s := &scanSlot{}
		slots = append(slots, s)
		select {
		case busy <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-busy }()
			if n.Depth == 0 {
				// The root's surroundings were not listed: look around.
				s.recipe, s.err = rc.recognizePath(ctx, n.Path, n.Stat, n.Children, false)
			} else {
				if s.recipe, s.err = rc.recognize(ctx, d, h); s.recipe != nil {
					settle(s.recipe)
				}
			}
		}()
		return nil
	}
	walkErr := zkview.Walk(ctx, r, root, zkview.WalkOptions{
		Concurrency: opts.Concurrency,
		Skip:        func(zkview.WalkNode) bool { return skip },
	}, visit)
	wg.Wait()
	if walkErr == nil {
		slots = append(slots, rc.ephemeralGroups(ctx, plainDirs, ephemeralsIn)...)
	}

	res := emptyResult()
	res.FoundBy = FoundByWalk
	seen := map[string]bool{} // a component recognised as its recipe, met again
	for _, s := range slots {
		if s.recipe != nil && !seen[s.recipe.Info().Path] {
			seen[s.recipe.Info().Path] = true
			s.recipe.addTo(&res)
		}
		if s.err != nil && !zkview.IsNoNode(s.err) {
			readErr = append(readErr, s.err)
		}
	}
	rc.joinInFlight(&res)
	if walkErr != nil {
		res.Partial = true
		return res, fmt.Errorf("scan %s: %w", root, walkErr)
	}
	if len(readErr) > 0 {
		res.Partial = true
		return res, scanError(root, readErr)
	}
	return res, nil
}

// scanError names the nodes a scan could not read, the first few of them.
func scanError(root string, errs []error) error {
	shown := errs[:min(len(errs), recScanErrors)]
	err := errors.Join(shown...)
	if more := len(errs) - len(shown); more > 0 {
		err = fmt.Errorf("%w\nand %d more", err, more)
	}
	nodes := "nodes"
	if len(errs) == 1 {
		nodes = "node"
	}
	return fmt.Errorf("scan %s: %d %s could not be read:\n%w", root, len(errs), nodes, err)
}

// containsSorted reports whether the sorted list holds s.
func containsSorted(list []string, s string) bool {
	lo, hi := 0, len(list)
	for lo < hi {
		m := (lo + hi) / 2
		if list[m] < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(list) && list[lo] == s
}

// scanSlot is one directory Scan recognised: what it is, or why it could
// not tell.
type scanSlot struct {
	recipe Recipe
	err    error
}

// ephemeralGroups recognises, after a walk, the directories no layout
// claimed whose children the walk found all ephemeral, as groups (see
// ephemeralGroup), in path order.
func (rc *recognizer) ephemeralGroups(ctx context.Context, plainDirs, ephemeralsIn map[string]int) []*scanSlot {
	var dirs []string
	for dir, n := range plainDirs {
		if n > 0 && ephemeralsIn[dir] == n {
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	out := make([]*scanSlot, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		out[i] = &scanSlot{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			children, stat, err := rc.list(ctx, dir)
			if err != nil || stat == nil {
				out[i].err = err
				return
			}
			r, err := rc.ephemeralGroup(ctx, newListedDir(dir, stat, children))
			if r != nil {
				tagByPath(r)
				settle(r)
			}
			out[i].recipe, out[i].err = r, err
		}()
	}
	wg.Wait()
	return out
}
