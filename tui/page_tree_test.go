package tui

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

var clientPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// goldenScreen compares a screen with testdata/<test>.golden, client
// ports (which differ every run) masked.
func goldenScreen(t *testing.T, screen string) {
	t.Helper()
	golden.RequireEqual(t, []byte(clientPort.ReplaceAllString(screen, "127.0.0.1:port")))
}

// arrangeGoldenState writes the nodes of the golden screens: JSON config,
// a Curator-layout lock with a holder and two waiters (each its own
// session, names fixed so screens repeat), and a qn- queue. hear has each
// contender's session ask the server something: the servers' tables then
// say it was heard from that moment (cons lresp is on the real clock,
// which golden screens cannot fix), as a live client's ping would.
func arrangeGoldenState(t *testing.T, connect string) (hear func(testing.TB)) {
	t.Helper()
	var contenders []*zk.Conn
	hear = func(tb testing.TB) {
		for _, s := range contenders {
			if _, _, err := s.Exists("/"); err != nil {
				tb.Fatal(err)
			}
		}
	}
	admin := zktest.Conn(t, connect)
	for _, p := range []string{"/app", "/app/locks", "/app/locks/orders", "/app/jobs"} {
		mustCreate(t, admin, p, "", 0)
	}
	mustCreate(t, admin, "/app/config", `{"region":"eu-west-1","replicas":3,"features":["locks","queues"]}`, 0)
	prev := ""
	for i := 0; i < 3; i++ {
		s := zktest.Conn(t, connect)
		contenders = append(contenders, s)
		name := fmt.Sprintf("/app/locks/orders/_c_0000000%d-aaaa-bbbb-cccc-000000000000-lock-", i)
		node := mustCreate(t, s, name, fmt.Sprintf("10.0.0.%d", i+5), zk.FlagEphemeral|zk.FlagSequence)
		if prev != "" {
			// A waiter watches its predecessor, as Curator's does.
			if _, _, _, err := s.GetW(prev); err != nil {
				t.Fatal(err)
			}
		}
		prev = node
	}
	for _, item := range []string{`{"job":"resize","id":1}`, `{"job":"email","id":2}`} {
		mustCreate(t, admin, "/app/jobs/qn-", item, zk.FlagSequence)
	}
	return hear
}

func TestTreePageScreens(t *testing.T) {
	t.Parallel()
	srv := goldenServer(t)
	app := newTestApp(t, srv.ConnectString(), false)
	hear := arrangeGoldenState(t, srv.ConnectString())
	d := newDriver(t, app, 120, 32)
	d.waitText("zookeeper")

	t.Run("data", func(t *testing.T) {
		d.tb = t
		d.key(":")
		d.typeText("cd /app/config")
		d.key("enter")
		d.waitText(`"replicas": 3`)
		d.settle()
		goldenScreen(t, d.screen())
	})
	t.Run("stat", func(t *testing.T) {
		d.tb = t
		d.key("]")
		d.waitFor("the stat and the quota", func(s string) bool {
			return strings.Contains(s, "dataLength") && strings.Contains(s, "quota") && !strings.Contains(s, "reading…")
		})
		goldenScreen(t, d.screen())
	})
	t.Run("recipe tab", func(t *testing.T) {
		d.tb = t
		hear(t) // the explorer reads the servers' tables as it opens the tab
		d.key(":")
		d.typeText("cd /app/locks/orders")
		d.key("enter")
		d.waitText("[lock·curator]")
		d.key("]")
		d.key("]")
		d.waitFor("the chain", func(s string) bool { return strings.Contains(s, "waiter 2") && strings.Contains(s, "✓") })
		d.settle()
		goldenScreen(t, d.screen())
	})
	t.Run("recipe page", func(t *testing.T) {
		d.tb = t
		d.key("tab")
		d.key("enter")
		d.waitFor("the recipe page", func(s string) bool {
			return strings.Contains(s, "tree › /app/locks/orders") && strings.Contains(s, "waiter 2")
		})
		d.settle()
		goldenScreen(t, d.screen())
	})
	t.Run("help", func(t *testing.T) {
		d.tb = t
		d.key("?")
		d.waitText("acquire the lock")
		goldenScreen(t, d.screen())
		d.key("x") // any key closes it
		d.waitFor("help closed", func(s string) bool { return !strings.Contains(s, "any key closes this help") })
	})
	t.Run("queue", func(t *testing.T) {
		d.tb = t
		d.key("esc")
		d.key(":")
		d.typeText("cd /app/jobs")
		d.key("enter")
		d.waitText("[queue·zookeeper-recipes]")
		d.key("enter")
		d.waitText(`"email"`)
		d.settle()
		goldenScreen(t, d.screen())
	})
	t.Run("narrow", func(t *testing.T) {
		d.tb = t
		d.key("esc")
		d.send(resize(60, 20))
		d.waitText("tree")
		goldenScreen(t, d.screen())
	})
}

// TestAcquireAndRelease is the user's path through a lock: open it, queue
// as "you" behind the holder, take it when the holder lets go, release.
func TestAcquireAndRelease(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		dir := base + "/lock"
		holder, err := recipes.Dial([]string{connect})
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Close()
		m := recipes.NewMutex(holder, dir)
		ctx := context.Background()
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		app := newTestApp(t, connect, false)
		d := newDriver(t, app, 120, 30)
		d.waitText("zookeeper")
		d.key(":")
		d.typeText("cd " + dir)
		d.key("enter")
		d.waitText("[lock·")
		d.key("enter")
		d.waitText("1 holding · 0 waiting")
		d.key("a")
		d.waitFor("you in the chain", func(s string) bool {
			return strings.Contains(s, "waiter 1 (you)") && strings.Contains(s, "(you)")
		})
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		d.waitFor("you hold it", func(s string) bool {
			return strings.Contains(s, "holder (you)") && strings.Contains(s, "you hold "+dir)
		})
		d.key("u")
		d.waitFor("released", func(s string) bool {
			return strings.Contains(s, "released "+dir) && !strings.Contains(s, "(you)")
		})
	})
}

// TestAcquireEmptiedLock: a Kazoo lock's holder releases and its
// directory (Kazoo keeps it) is left empty: the page says the Kazoo lock
// is free, and acquiring joins in Kazoo's format, which a Kazoo client sees.
func TestAcquireEmptiedLock(t *testing.T) {
	t.Parallel()
	connect := zktest.Embedded(t)
	dir := zktest.Path(t) + "/lock"
	holder, err := recipes.Dial([]string{connect})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	m := recipes.NewMutex(holder, dir, recipes.WithFormat(recipes.Kazoo))
	ctx := context.Background()
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	app := newTestApp(t, connect, false)
	d := newDriver(t, app, 120, 30)
	d.waitText("zookeeper")
	d.send(pushMsg{page: newRecipePage(app.shared, dir)})
	d.waitText("mutex · kazoo · 1 holding · 0 waiting")
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	d.waitFor("the emptied lock, free, still Kazoo's", func(s string) bool {
		return strings.Contains(s, "mutex · kazoo · 0 holding · 0 waiting") && strings.Contains(s, "(free)")
	})
	d.key("a")
	d.waitFor("you hold it", func(s string) bool {
		return strings.Contains(s, "mutex · kazoo · 1 holding") && strings.Contains(s, "holder (you)")
	})
	names, _, err := holder.Conn().Children(dir)
	if err != nil || len(names) != 1 || !strings.Contains(names[0], "__lock__") {
		t.Fatalf("the lock's children %v (%v), want one node in Kazoo's layout", names, err)
	}
}

// TestForceRelease deletes a stuck holder's node after the confirmation
// that names its session; the waiter behind it takes over.
func TestForceRelease(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserverConfig())
	connect := srv.ConnectString()
	dir := zktest.Path(t) + "/lock"
	stuck, err := recipes.Dial([]string{connect})
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	if err := recipes.NewMutex(stuck, dir).Lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	waiter, err := recipes.Dial([]string{connect})
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	acquired := make(chan error, 1)
	go func() { acquired <- recipes.NewMutex(waiter, dir).Lock(context.Background()) }()

	app := newTestApp(t, connect, false)
	d := newDriver(t, app, 120, 30)
	d.waitText("zookeeper")
	d.send(pushMsg{page: newRecipePage(app.shared, dir)})
	d.waitText("1 holding · 1 waiting")
	// The cursor on the waiter: F is about the holder all the same.
	d.key("down")
	d.key("F")
	d.waitFor("the dialog naming the holder and who takes over", func(s string) bool {
		return strings.Contains(s, fmt.Sprintf("session  0x%x", stuck.ID())) &&
			strings.Contains(s, fmt.Sprintf("next     zkx lock-0000000001 (session 0x%x) takes over", waiter.ID()))
	})
	d.key("y")
	if err := <-acquired; err != nil {
		t.Fatalf("the waiter did not take over: %v", err)
	}
	// The page saw the waiter take over: how long it has held is known.
	d.waitFor("the waiter holding, since it was seen taking over", func(s string) bool {
		return strings.Contains(s, "deleted "+dir) && strings.Contains(s, "1 holding · 0 waiting") &&
			strings.Contains(s, fmt.Sprintf("holder #1 0x%x", waiter.ID())) && strings.Contains(s, "held since")
	})
	select {
	case <-stuck.Done():
		t.Fatal("force-release ended the holder's session; it should only delete the node")
	default:
	}
}

// TestReadOnlyCannotWrite presses every action key, on the tree page and on
// a recipe page, in a read-only explorer: nothing opens, and the server's
// zxid (which every write, failed or not, moves) stays where it was.
func TestReadOnlyCannotWrite(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserverConfig())
	connect := srv.ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	mustCreate(t, admin, base, "", 0)
	mustCreate(t, admin, base+"/node", "data", 0)
	lockDir := base + "/lock"
	mustCreate(t, admin, lockDir, "", 0)
	mustCreate(t, admin, lockDir+"/_c_00000000-aaaa-bbbb-cccc-000000000000-lock-", "", zk.FlagEphemeral|zk.FlagSequence)
	app := newTestApp(t, connect, true)
	if app.shared.Writer != nil || app.shared.Actor != nil {
		t.Fatal("a read-only explorer was given a writer or an actor")
	}
	d := newDriver(t, app, 120, 30)
	d.waitText("READ-ONLY")
	zxidBefore := serverZxid(t, connect)
	actionKeys := []string{"n", "e", "d", "D", "a", "u", "F", "r", "+", "-", "v", "R"}
	d.key(":")
	d.typeText("cd " + base + "/node")
	d.key("enter")
	d.waitText(`data`)
	// On the tree page F is find (a read); the tree's writes are I, c, m, A.
	treeKeys := append([]string{"n", "e", "d", "D", "a", "u", "+", "-", "v", "R"}, "I", "c", "m", "A")
	for _, k := range treeKeys {
		d.key(k)
		if d.app.dialog != nil {
			t.Fatalf("%s opened a dialog in a read-only explorer", k)
		}
	}
	d.send(pushMsg{page: newRecipePage(app.shared, lockDir)})
	d.waitText("1 holding")
	for _, k := range actionKeys {
		d.key(k)
		if d.app.dialog != nil {
			t.Fatalf("%s opened a dialog on a recipe page in a read-only explorer", k)
		}
	}
	d.key("?")
	if s := d.screen(); strings.Contains(s, "acquire") || strings.Contains(s, "delete node") {
		t.Fatalf("help of a read-only explorer lists actions:\n%s", s)
	}
	d.settle()
	if after := serverZxid(t, connect); after != zxidBefore {
		t.Fatalf("zxid moved from %#x to %#x in a read-only explorer", zxidBefore, after)
	}
}

func serverZxid(t *testing.T, addr string) int64 {
	t.Helper()
	st, err := introspect.ServerStatus(context.Background(), addr, 5*time.Second, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st.Zxid
}

// TestForceReleaseTwoHolders: a Curator holder and a Kazoo holder that
// does not see Curator's nodes. The page says in red that mutual exclusion
// is broken; F asks which holder's node is to go.
func TestForceReleaseTwoHolders(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserverConfig())
	connect := srv.ConnectString()
	dir := zktest.Path(t) + "/lock"
	admin := zktest.Conn(t, connect)
	mustCreate(t, admin, path.Dir(dir), "", 0)
	mustCreate(t, admin, dir, "", 0)
	cur, kz := zktest.Conn(t, connect), zktest.Conn(t, connect)
	_, err := cur.Create(dir+"/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-", []byte("10.0.0.5"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kz.Create(dir+"/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1__lock__", []byte("k1"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	app := newTestApp(t, connect, false)
	d := newDriver(t, app, 120, 40)
	d.waitText("zookeeper")
	d.send(pushMsg{page: newRecipePage(app.shared, dir)})
	d.waitFor("the broken lock in the first line", func(s string) bool {
		lines := strings.Split(s, "\n")
		return len(lines) > 2 && strings.HasPrefix(lines[2], "✗ two holders: mutual exclusion is broken: curator") &&
			strings.Contains(s, "mutex · mixed (curator, kazoo) · 2 holding · 0 waiting")
	})
	d.key("F")
	d.waitText("Force-release: which holder?")
	d.key("1")
	d.waitFor("the confirmation for the Curator holder", func(s string) bool {
		return strings.Contains(s, "lock-0000000000?") && strings.Contains(s, fmt.Sprintf("session  0x%x", cur.SessionID())) &&
			strings.Contains(s, "next     nobody waits; kazoo __lock__0000000001")
	})
	d.key("y")
	d.waitFor("one holder left", func(s string) bool {
		return strings.Contains(s, "mutex · kazoo · 1 holding · 0 waiting") && !strings.Contains(s, "mutual exclusion is broken")
	})
}
