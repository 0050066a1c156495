package live

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// fakeWorld answers a Model as a server would, from fields the test sets,
// on a clock the test moves; the Model's work runs at once and its timers
// when the test says.
type fakeWorld struct {
	now        time.Time
	recipes    map[string]recognize.Recipe
	errs       map[string]error
	pzxid      map[string]int64
	expanded   map[string]int
	recognized []string
	asked      int
	held       []heldTimer
}

type heldTimer struct {
	after time.Duration
	fire  func()
}

func newFakeWorld() *fakeWorld {
	return &fakeWorld{now: time.Unix(1_700_000_000, 0), recipes: map[string]recognize.Recipe{}, errs: map[string]error{},
		pzxid: map[string]int64{}, expanded: map[string]int{}}
}

func (w *fakeWorld) config() Config {
	return Config{
		Recognize: func(_ context.Context, dir string, _ recognize.Options) (recognize.Recipe, error) {
			w.recognized = append(w.recognized, dir)
			return w.recipes[dir], w.errs[dir]
		},
		Introspect: func(context.Context) (*introspect.Snapshot, error) {
			w.asked++
			return &introspect.Snapshot{At: w.now}, nil
		},
		Tree:  w,
		Now:   func() time.Time { return w.now },
		Pace:  func() time.Time { return w.now },
		Go:    func(f func()) { f() },
		After: func(d time.Duration, f func()) { w.held = append(w.held, heldTimer{d, f}) },
	}
}

func (w *fakeWorld) Expand(dir string)   { w.expanded[dir]++ }
func (w *fakeWorld) Collapse(dir string) { w.expanded[dir]-- }
func (w *fakeWorld) Get(path string) (zkview.NodeState, bool) {
	pz, ok := w.pzxid[path]
	if !ok {
		return zkview.NodeState{Path: path}, false
	}
	return zkview.NodeState{Path: path, Stat: &zk.Stat{Pzxid: pz}, ChildrenLoaded: true}, true
}

// change moves dir's Pzxid, as a child coming or going does.
func (w *fakeWorld) change(dir string) { w.pzxid[dir]++ }

// runHeld runs the timers held so far.
func (w *fakeWorld) runHeld() {
	held := w.held
	w.held = nil
	for _, h := range held {
		h.fire()
	}
}

func lockWith(path string, holders ...string) *recognize.Lock {
	l := &recognize.Lock{Path: path, Recipe: "mutex", Format: "curator"}
	for _, h := range holders {
		l.Holders = append(l.Holders, recognize.Contender{Node: h, Format: "curator"})
	}
	return l
}

func holderOf(e Entry) string {
	l, ok := e.Recipe.(*recognize.Lock)
	if !ok || len(l.Holders) == 0 {
		return ""
	}
	return l.Holders[0].Node
}

// TestModelRecognizesAtItsPace: a recipe whose directory keeps changing is
// recognised at once after a quiet moment, then at most once per
// RecognizeEvery however many changes come; the last change is always
// read, so the Model ends on the recipe as it is.
func TestModelRecognizesAtItsPace(t *testing.T) {
	w := newFakeWorld()
	cfg := w.config()
	cfg.Introspect = nil // no tables: only recognitions
	m := New(cfg)
	defer m.Close()
	w.recipes["/l"] = lockWith("/l", "lock-1")
	w.pzxid["/l"] = 1
	m.Set(Found{Recipes: []recognize.Recipe{w.recipes["/l"]}, Pzxid: map[string]int64{"/l": 1}})
	if len(w.recognized) != 0 {
		t.Fatalf("a recipe unchanged since its scan was read again")
	}
	if w.expanded["/l"] != 1 {
		t.Fatalf("the recipe's directory is expanded %d times", w.expanded["/l"])
	}
	for i := 2; i <= 100; i++ {
		w.recipes["/l"] = lockWith("/l", fmt.Sprintf("lock-%d", i))
		w.change("/l")
		m.TreeChanged([]string{"/l", "/elsewhere"})
	}
	if len(w.recognized) != 1 {
		t.Fatalf("%d recognitions for 99 changes in no time, want 1 and the rest put off", len(w.recognized))
	}
	if len(w.held) != 1 || w.held[0].after != RecognizeEvery {
		t.Fatalf("timers %v, want one for the next recognition", w.held)
	}
	w.now = w.now.Add(RecognizeEvery)
	w.runHeld()
	if len(w.recognized) != 2 {
		t.Fatalf("%d recognitions, want 2", len(w.recognized))
	}
	if got := holderOf(m.Snapshot().Entries["/l"]); got != "lock-100" {
		t.Errorf("holder %q after the changes stopped, want lock-100", got)
	}
	// A report of the directory without a move of its Pzxid reads nothing.
	m.TreeChanged([]string{"/l"})
	if len(w.recognized) != 2 {
		t.Errorf("a report without a change read the recipe again")
	}
}

// TestModelGoneAndEmptied: a listed recipe whose directory is gone drops
// out and its directories are let go; one that is no longer a recipe shows
// emptied; a followed directory (Follow) stays, gone.
func TestModelGoneAndEmptied(t *testing.T) {
	w := newFakeWorld()
	cfg := w.config()
	cfg.Accept = func(path string, r recognize.Recipe) bool { return r.Info().Path == path }
	m := New(cfg)
	defer m.Close()
	a, b := lockWith("/a", "lock-1"), lockWith("/b", "lock-1")
	w.pzxid["/a"], w.pzxid["/b"] = 1, 1
	m.Set(Found{Recipes: []recognize.Recipe{a, b}, Pzxid: map[string]int64{"/a": 1, "/b": 1}})
	w.errs["/a"] = &zkview.PathError{Op: "children", Path: "/a", Err: zk.ErrNoNode}
	w.recipes["/b"] = nil
	w.change("/a")
	w.change("/b")
	m.TreeChanged([]string{"/a", "/b"})
	s := m.Snapshot()
	if !slices.Equal(s.Order, []string{"/b"}) || w.expanded["/a"] != 0 {
		t.Errorf("order %v, /a expanded %d: a gone recipe stays", s.Order, w.expanded["/a"])
	}
	if e := s.Entries["/b"]; e.Recipe == nil || holderOf(e) != "" {
		t.Errorf("/b not shown emptied: %+v", e)
	}

	w.errs["/c"] = &zkview.PathError{Op: "children", Path: "/c", Err: zk.ErrNoNode}
	m.Follow("/c")
	if e := m.Snapshot().Entries["/c"]; !e.Gone || !e.Loaded || w.expanded["/c"] != 1 {
		t.Errorf("a followed directory gone: %+v, expanded %d", e, w.expanded["/c"])
	}
	m.Close()
	for dir, n := range w.expanded {
		if n != 0 {
			t.Errorf("%s still expanded %d times after Close", dir, n)
		}
	}
}

// TestInterimTables: until the servers are asked again, a changed recipe is
// read with the old tables taken optimistically: a session they do not list
// is not reported disconnected.
func TestInterimTables(t *testing.T) {
	in := &introspect.Snapshot{
		Members: []introspect.Member{{Addr: "zk1:2181", Mode: introspect.ModeStandalone,
			Connections: []introspect.Connection{{Client: "10.0.0.5:51234", SessionID: 0x1000000000000a1}}, Watches: &introspect.WatchTable{}}},
		Sessions: []introspect.Session{{ID: 0x1000000000000a1, Client: "10.0.0.5:51234", Server: "zk1:2181", Connected: true}},
	}
	base := in.Tables()
	if c, known := base.Connected(0x999); c || !known {
		t.Fatalf("base tables: connected %v known %v for an unknown session", c, known)
	}
	it := interimTables{base}
	if _, known := it.Connected(0x999); known {
		t.Error("interim tables say a session they do not list is disconnected")
	}
	if _, known := base.Watches(0x1000000000000a1, "/x"); !known {
		t.Fatal("base tables do not know the watches of a listed session")
	}
	if _, known := it.Watches(0x1000000000000a1, "/x"); known {
		t.Error("interim tables say a session does not watch")
	}
	if c, known := it.Connected(0x1000000000000a1); !c || !known {
		t.Errorf("interim tables lost a connected session: %v %v", c, known)
	}
}

// TestModelAskTables: the viewer's own timer asks the servers again and
// every recipe is read with the answer; a question out is not asked twice.
func TestModelAskTables(t *testing.T) {
	w := newFakeWorld()
	m := New(w.config())
	defer m.Close()
	m.Follow("/l")
	if w.asked != 1 {
		t.Fatalf("Follow asked the servers %d times", w.asked)
	}
	// The answer's recognition waits for the first's RecognizeEvery.
	w.now = w.now.Add(RecognizeEvery)
	w.runHeld()
	w.now = w.now.Add(RecognizeEvery)
	before := len(w.recognized)
	m.AskTables()
	if w.asked != 2 || len(w.recognized) != before+1 {
		t.Errorf("AskTables: asked %d, %d recognitions, want 2 and one more", w.asked, len(w.recognized)-before)
	}
	if s := m.Snapshot(); s.Tables == nil || !s.TablesAnswered.Equal(w.now) {
		t.Errorf("tables %v answered %v", s.Tables, s.TablesAnswered)
	}
}
