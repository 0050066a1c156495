package recognize

import (
	"context"
	"errors"
	"fmt"
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
	// Groups are systems' membership directories (see Group).
	Groups []Group `json:"groups"`
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
	all := make([]Recipe, 0, len(res.Locks)+len(res.Elections)+len(res.Queues)+len(res.Barriers)+len(res.Groups))
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
	return all
}

// emptyResult has every list empty, not nil (JSON [] rather than null).
func emptyResult() Result {
	return Result{Locks: []Lock{}, Elections: []Election{}, Queues: []Queue{}, Barriers: []Barrier{}, Groups: []Group{}}
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

	type slot struct {
		recipe Recipe
		err    error
	}
	var (
		slots   []*slot
		wg      sync.WaitGroup
		busy    = make(chan struct{}, opts.Concurrency) // directories being recognised
		readErr []error
		skip    bool
		// Kazoo semaphores: "<p>" beside "<p>-__lock__", seen in their
		// parent's listing.
		kazooSem     = map[string]bool{}
		kazooSemLock = map[string]bool{}
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
		d := newListedDir(n.Path, n.Stat, n.Children)
		skip = d.walkLeaves()
		if kazooSemLock[n.Path] {
			return nil // recognised with its semaphore
		}
		h := dirHint{kazooSemaphore: kazooSem[n.Path]}
		if n.Depth > 0 && !h.kazooSemaphore && !d.candidate() {
			return nil
		}
		s := &slot{}
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
