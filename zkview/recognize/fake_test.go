package recognize

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
)

// fakeTree is an in-memory tree that is a Reader, for recogniser unit tests.
type fakeTree struct {
	mu     sync.Mutex
	nodes  map[string]*fakeNode
	zxid   int64
	errs   map[string]error // path → error of every read
	reads  int
	listed map[string]int // path → Children calls
}

type fakeNode struct {
	data     []byte
	stat     zk.Stat
	children map[string]bool
}

// recEpoch is the creation time of the fake nodes that say none.
var recEpoch = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func newRecFake() *fakeTree {
	return &fakeTree{nodes: map[string]*fakeNode{"/": {children: map[string]bool{}}}, errs: map[string]error{}, listed: map[string]int{}}
}

// listedCount is how many listings the fake has answered.
func (f *fakeTree) listedCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.listed {
		n += c
	}
	return n
}

// fakeNodeOption sets up a fake node.
type fakeNodeOption func(*fakeNode)

// ephemeralOf makes the node ephemeral, owned by session s.
func ephemeralOf(s int64) fakeNodeOption { return func(n *fakeNode) { n.stat.EphemeralOwner = s } }

// createdAt sets the node's ctime.
func createdAt(t time.Time) fakeNodeOption { return func(n *fakeNode) { n.stat.Ctime = t.UnixMilli() } }

// add creates p (and its missing parents, persistent and empty) with data.
func (f *fakeTree) add(p, data string, opts ...fakeNodeOption) *fakeTree {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ensure(p)
	n := f.nodes[p]
	n.data = []byte(data)
	n.stat.DataLength = int32(len(data))
	for _, o := range opts {
		o(n)
	}
	return f
}

func (f *fakeTree) ensure(p string) {
	if _, ok := f.nodes[p]; ok || p == "/" {
		return
	}
	parent := p[:strings.LastIndexByte(p, '/')]
	if parent == "" {
		parent = "/"
	}
	f.ensure(parent)
	f.zxid++
	f.nodes[p] = &fakeNode{children: map[string]bool{}, stat: zk.Stat{Czxid: f.zxid, Mzxid: f.zxid, Pzxid: f.zxid, Ctime: recEpoch.UnixMilli()}}
	f.nodes[parent].children[p[strings.LastIndexByte(p, '/')+1:]] = true
	f.nodes[parent].stat.Pzxid = f.zxid
}

// remove deletes the leaf p, as a server does: its parent's Pzxid moves on.
func (f *fakeTree) remove(p string) *fakeTree {
	f.mu.Lock()
	defer f.mu.Unlock()
	parent := p[:strings.LastIndexByte(p, '/')]
	if parent == "" {
		parent = "/"
	}
	delete(f.nodes, p)
	delete(f.nodes[parent].children, p[strings.LastIndexByte(p, '/')+1:])
	f.zxid++
	f.nodes[parent].stat.Pzxid = f.zxid
	return f
}

func (f *fakeTree) Children(ctx context.Context, p string) ([]string, *zk.Stat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	f.listed[p]++
	if err := f.errs[p]; err != nil {
		return nil, nil, &zkview.PathError{Op: "list", Path: p, Err: err}
	}
	n, ok := f.nodes[p]
	if !ok {
		return nil, nil, &zkview.PathError{Op: "list", Path: p, Err: zk.ErrNoNode}
	}
	var out []string
	for c := range n.children {
		out = append(out, c)
	}
	// Unsorted on purpose (reverse), as a server may answer.
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	st := n.stat
	st.NumChildren = int32(len(out))
	return out, &st, nil
}

func (f *fakeTree) Get(ctx context.Context, p string) ([]byte, *zk.Stat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if err := f.errs[p]; err != nil {
		return nil, nil, &zkview.PathError{Op: "get", Path: p, Err: err}
	}
	n, ok := f.nodes[p]
	if !ok {
		return nil, nil, &zkview.PathError{Op: "get", Path: p, Err: zk.ErrNoNode}
	}
	st := n.stat
	st.NumChildren = int32(len(n.children))
	return append([]byte(nil), n.data...), &st, nil
}

// fixedTables is a ServerTables with fixed answers; what is not in a map is
// not known.
type fixedTables struct {
	addrs     map[int64]string
	connected map[int64]bool
	watches   map[int64]map[string]bool // session → path → watching
	heard     map[int64]zkview.Liveness
}

func (f fixedTables) LastHeard(s int64) (zkview.Liveness, bool) {
	l, ok := f.heard[s]
	return l, ok
}

func (f fixedTables) ClientAddress(s int64) (string, bool) {
	a, ok := f.addrs[s]
	return a, ok
}

func (f fixedTables) Connected(s int64) (bool, bool) {
	c, ok := f.connected[s]
	return c, ok
}

func (f fixedTables) Watchers(p string) ([]int64, bool) {
	var out []int64
	for s, w := range f.watches {
		if w[p] {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out, len(f.watches) > 0
}

func (f fixedTables) Watches(s int64, p string) (bool, bool) {
	w, ok := f.watches[s]
	if !ok {
		return false, false
	}
	return w[p], true
}

// recognizeT runs Dir and fails the test on an error. Times are
// measured to recEpoch unless opts say otherwise.
func recognizeT(t *testing.T, r zkview.Reader, p string, opts Options) Recipe {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = recEpoch
	}
	v, err := Dir(context.Background(), r, p, opts)
	if err != nil {
		t.Fatalf("Dir(%s): %v", p, err)
	}
	return v
}

// recAsLock requires v to be a *Lock.
func recAsLock(t *testing.T, v Recipe) *Lock {
	t.Helper()
	l, ok := v.(*Lock)
	if !ok {
		t.Fatalf("recognised %T %+v, want a *Lock", v, v)
	}
	return l
}

// recNodes lists contenders as "node>waits_for" (or "node" for holders).
func recNodes(cs []Contender) []string {
	out := []string{}
	for _, c := range cs {
		s := c.Node
		if c.Kind != "" {
			s = c.Kind + ":" + s
		}
		if c.WaitsFor != "" {
			s += ">" + c.WaitsFor
		}
		out = append(out, s)
	}
	return out
}

func recEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// recWantNodes compares contenders with "node>waits_for" strings.
func recWantNodes(t *testing.T, what string, got []Contender, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if g := recNodes(got); !recEqual(g, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, g, want)
	}
}

// recWantWarnings requires one warning containing each of want, and no other.
func recWantWarnings(t *testing.T, got []string, want ...string) {
	t.Helper()
	if got == nil {
		t.Errorf("warnings are nil, want a list (JSON [])")
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if !used[i] && strings.Contains(g, w) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("no warning containing %q in %q", w, got)
		}
	}
	for i, g := range got {
		if !used[i] {
			t.Errorf("unexpected warning %q", g)
		}
	}
}

// dialTest opens a zkview client for a test, closed when it ends.
func dialTest(t testing.TB, connect string) *zkview.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := zkview.Dial(ctx, connect)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
