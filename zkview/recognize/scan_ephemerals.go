package recognize

import (
	"context"
	"errors"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/zkx-dev/zkx/zkview"
)

// Where a Result came from (Result.FoundBy).
const (
	FoundByWalk       = "walk"
	FoundByEphemerals = "ephemerals"
)

// EphemeralList gives every ephemeral node of the ensemble, as the
// servers' dump lists them (paths as the Reader names them). Ephemerals
// may block until the servers have answered; ok is false when none would
// give the list.
type EphemeralList interface {
	Ephemerals() (paths []string, ok bool)
}

// ScanContended finds the recipes whose members are ephemeral nodes —
// locks, elections, double barriers, and locks held as one node — under
// root. It starts the walk of Scan and, when list gives every ephemeral
// node before the walk ends, stops the walk and recognises only the
// directories those nodes are in: on a tree of a million znodes with a
// few hundred contenders, seconds instead of a walk of every node. Queues
// and barriers, whose nodes are persistent, are not looked for then
// (res.Queues and res.Barriers are empty; res.FoundBy says which way was
// taken). A walk that ends first but could not read every node waits for
// the list: read from the ephemerals' directories alone, the result may be
// whole. A nil list is Scan.
func ScanContended(ctx context.Context, r zkview.Reader, root string, opts Options, list EphemeralList) (Result, error) {
	if list == nil {
		return Scan(ctx, r, root, opts)
	}
	walkCtx, stopWalk := context.WithCancel(ctx)
	defer stopWalk()
	type walked struct {
		res Result
		err error
	}
	done := make(chan walked, 1)
	go func() {
		res, err := Scan(walkCtx, r, root, opts)
		done <- walked{res, err}
	}()
	type answer struct {
		paths []string
		ok    bool
	}
	listed := make(chan answer, 1)
	go func() {
		paths, ok := list.Ephemerals()
		listed <- answer{paths, ok}
	}()
	fromList := func(a answer) (Result, error) {
		stopWalk()
		<-done // its goroutines end with it
		return FromEphemerals(ctx, r, root, a.paths, opts)
	}
	for {
		select {
		case w := <-done:
			if w.err == nil {
				return w.res, nil
			}
			// A partial walk (a node it could not read): the list, when
			// it comes, may show that nothing was missed there.
			select {
			case a := <-listed:
				if a.ok {
					done <- w
					return fromList(a)
				}
			case <-ctx.Done():
			}
			return w.res, w.err
		case a := <-listed:
			if a.ok {
				return fromList(a)
			}
			listed = nil // no list: the walk it is
		}
	}
}

// FromEphemerals recognises the directories that hold the given
// ephemeral nodes (and such a node itself, when it is named like a lock
// or a leader) under root, each once, as Dir does: a component found this
// way (a Curator semaphore's locks/) gives its recipe. Recipes are in
// path order.
func FromEphemerals(ctx context.Context, r zkview.Reader, root string, ephemerals []string, opts Options) (Result, error) {
	rc := newRecognizer(r, opts)
	opts = rc.opts
	dirs := ephemeralDirs(root, ephemerals)
	found := make([]Recipe, len(dirs))
	errs := make([]error, len(dirs))
	busy := make(chan struct{}, opts.Concurrency)
	var wg sync.WaitGroup
	var visitMu sync.Mutex // Visit is called as from one goroutine, as Scan does
	for i, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case busy <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-busy }()
			children, stat, err := r.Children(ctx, dir)
			if err != nil {
				errs[i] = err
				return
			}
			if opts.Visit != nil {
				visitMu.Lock()
				opts.Visit(zkview.WalkNode{Path: dir, Stat: stat, Children: children})
				visitMu.Unlock()
			}
			found[i], errs[i] = rc.recognizePath(ctx, dir, stat, children, true)
		}()
	}
	wg.Wait()
	res := emptyResult()
	res.FoundBy = FoundByEphemerals
	seen := map[string]bool{}
	var readErr []error
	for i, r := range found {
		if err := errs[i]; err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				res.Partial = true
				return res, err
			}
			if !zkview.IsNoNode(err) { // gone since the dump: nothing to find
				readErr = append(readErr, err)
			}
			continue
		}
		if r == nil || seen[r.Info().Path] || !within(root, r.Info().Path) {
			continue
		}
		seen[r.Info().Path] = true
		r.addTo(&res)
	}
	if len(readErr) > 0 {
		res.Partial = true
		return res, scanError(root, readErr)
	}
	return res, nil
}

// ephemeralDirs are the directories to recognise for ephemerals under
// root: each one's parent, and the node itself when it may be a lock held
// as one node; sorted, once each.
func ephemeralDirs(root string, ephemerals []string) []string {
	set := map[string]bool{}
	for _, e := range ephemerals {
		if !within(root, e) {
			continue
		}
		if EphemeralNodeName(path.Base(e)) {
			set[e] = true
		}
		if parent := path.Dir(e); within(root, parent) {
			set[parent] = true
		}
	}
	dirs := make([]string, 0, len(set))
	for d := range set {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	return root == "/" || p == root || strings.HasPrefix(p, root+"/")
}
