package zkview

import (
	"container/heap"
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/go-zookeeper/zk"
)

// WalkNode is one node met by Walk.
type WalkNode struct {
	Path     string
	Depth    int      // 0 for the walk's root
	Stat     *zk.Stat // nil when Err is set
	Children []string // sorted names
	Err      error    // the listing failed (e.g. NoAuth); the walk goes on
	// Data is the node's data, when WalkOptions.Data asked for it.
	Data []byte
	// ACL is the node's ACL, when WalkOptions.ACL asked for it; ACLErr
	// says why it could not be read (the walk goes on).
	ACL    []zk.ACL
	ACLErr error
}

// WalkOptions tunes Walk.
type WalkOptions struct {
	// Concurrency is how many listings may be in flight (default 64).
	Concurrency int
	// MaxDepth stops descending below this depth (0: no limit).
	MaxDepth int
	// Skip, when it returns true for a node, keeps Walk from descending into
	// its children (the node itself is still visited).
	Skip func(WalkNode) bool
	// Data reads each node's data too (find --data, export). A batched
	// reader has it from the listing's request; others read it apart.
	Data bool
	// ACL reads each node's ACL too (export), beside the listing.
	ACL bool
}

// Walk visits root and its descendants in depth-first preorder, calling
// visit for each, while listings run ahead in parallel: nodes nearer the
// front of the preorder are listed first, so output streams without the
// walk holding the tree. A node that vanishes between its parent's listing
// and its own is left out. An error from visit or ctx stops the walk.
func Walk(ctx context.Context, r Reader, root string, opts WalkOptions, visit func(WalkNode) error) error {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 64
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &walker{ctx: ctx, reader: r, opts: opts, work: make(chan struct{}, 1)}
	for i := 0; i < opts.Concurrency; i++ {
		go w.worker()
	}
	defer w.stop()
	return w.visit(w.fetch(root, nil), 0, opts, visit)
}

// listing is a pending or finished listing of one node.
type listing struct {
	path     string
	order    []int // position in the preorder: the child indices from the root
	done     chan struct{}
	children []string
	stat     *zk.Stat
	err      error
	data     []byte
	hasData  bool
	acl      []zk.ACL
	aclErr   error
}

type walker struct {
	ctx     context.Context
	reader  Reader
	opts    WalkOptions
	mu      sync.Mutex
	pending listingHeap
	stopped bool
	work    chan struct{} // signals workers that pending is not empty
}

func (w *walker) fetch(path string, order []int) *listing {
	l := &listing{path: path, order: order, done: make(chan struct{})}
	w.mu.Lock()
	heap.Push(&w.pending, l)
	w.mu.Unlock()
	select {
	case w.work <- struct{}{}:
	default:
	}
	return l
}

func (w *walker) worker() {
	for {
		w.mu.Lock()
		for w.pending.Len() == 0 && !w.stopped {
			w.mu.Unlock()
			select {
			case <-w.work:
			case <-w.ctx.Done():
				return
			}
			w.mu.Lock()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		n := 1
		batch, batched := w.reader.(BatchReader)
		if batched {
			n = batch.BatchSize()
		}
		ls := make([]*listing, 0, n)
		for len(ls) < n && w.pending.Len() > 0 {
			ls = append(ls, heap.Pop(&w.pending).(*listing)) // the earliest in the preorder
		}
		more := w.pending.Len() > 0
		w.mu.Unlock()
		if more {
			select {
			case w.work <- struct{}{}: // wake another worker for the rest
			default:
			}
		}
		if batched {
			paths := make([]string, len(ls))
			for i, l := range ls {
				paths[i] = l.path
			}
			for i, got := range batch.ListBatch(w.ctx, paths) {
				ls[i].children, ls[i].stat, ls[i].err = got.Children, got.Stat, got.Err
				ls[i].data, ls[i].hasData = got.Data, got.Err == nil
			}
		} else {
			ls[0].children, ls[0].stat, ls[0].err = w.reader.Children(w.ctx, ls[0].path)
		}
		w.readExtras(ls)
		for _, l := range ls {
			sort.Strings(l.children)
			close(l.done)
		}
	}
}

// readExtras reads what the options ask beyond the listings: data a
// listing did not bring, and ACLs, all at once (ACLs cannot be part of a
// multiRead; a batch reader takes them in one exchange).
func (w *walker) readExtras(ls []*listing) {
	batchACLs, batched := w.reader.(ACLBatchReader)
	if w.opts.ACL && batched {
		w.readACLs(batchACLs, ls)
	}
	acls, _ := w.reader.(ACLReader)
	var wg sync.WaitGroup
	for _, l := range ls {
		if l.err != nil {
			continue
		}
		if w.opts.Data && !l.hasData {
			wg.Add(1)
			go func() {
				defer wg.Done()
				data, _, err := w.reader.Get(w.ctx, l.path)
				l.data, l.hasData = data, err == nil
				if err != nil && !IsNoNode(err) {
					l.err = err
				}
			}()
		}
		if w.opts.ACL && !batched {
			if acls == nil {
				l.aclErr = fmt.Errorf("this reader cannot read ACLs")
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				l.acl, _, l.aclErr = acls.ACL(w.ctx, l.path)
			}()
		}
	}
	wg.Wait()
}

// readACLs reads the ACLs of the listed nodes in one exchange.
func (w *walker) readACLs(r ACLBatchReader, ls []*listing) {
	var listed []*listing
	var paths []string
	for _, l := range ls {
		if l.err == nil {
			listed = append(listed, l)
			paths = append(paths, l.path)
		}
	}
	if len(paths) == 0 {
		return
	}
	for i, got := range r.ACLs(w.ctx, paths) {
		listed[i].acl, listed[i].aclErr = got.ACL, got.Err
	}
}

func (w *walker) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

func (w *walker) visit(l *listing, depth int, opts WalkOptions, visit func(WalkNode) error) error {
	select {
	case <-l.done:
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	if IsNoNode(l.err) && depth > 0 {
		return nil // gone since its parent was listed
	}
	n := WalkNode{Path: l.path, Depth: depth, Stat: l.stat, Children: l.children, Err: l.err, ACL: l.acl, ACLErr: l.aclErr}
	if w.opts.Data {
		n.Data = l.data
	}
	if err := visit(n); err != nil {
		return err
	}
	if l.err != nil || (opts.MaxDepth > 0 && depth >= opts.MaxDepth) || (opts.Skip != nil && opts.Skip(n)) {
		return nil
	}
	// Start every child's listing; the heap lists the earliest first.
	next := make([]*listing, len(l.children))
	for i, name := range l.children {
		order := append(append(make([]int, 0, len(l.order)+1), l.order...), i)
		next[i] = w.fetch(ChildPath(l.path, name), order)
	}
	for _, child := range next {
		if err := w.visit(child, depth+1, opts, visit); err != nil {
			return err
		}
	}
	return nil
}

// listingHeap orders pending listings by their place in the preorder.
type listingHeap []*listing

func (h listingHeap) Len() int { return len(h) }
func (h listingHeap) Less(i, j int) bool {
	a, b := h[i].order, h[j].order
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}
func (h listingHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *listingHeap) Push(x any)   { *h = append(*h, x.(*listing)) }
func (h *listingHeap) Pop() any {
	old := *h
	l := old[len(old)-1]
	*h = old[:len(old)-1]
	return l
}
