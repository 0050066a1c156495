package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
)

// testContexts are two embedded servers as named contexts, the second
// also as a read-only one.
func testContexts(t *testing.T, one, two string) Contexts {
	servers := map[string]string{"one": one, "two": two, "two-ro": two}
	return Contexts{
		List: func() ([]ContextInfo, error) {
			return []ContextInfo{{Name: "one", Server: one}, {Name: "two", Server: two}, {Name: "two-ro", Server: two, ReadOnly: true}}, nil
		},
		Open: func(ctx context.Context, name string) (Connection, error) {
			var opts []zkview.Option
			ro := name == "two-ro"
			if ro {
				opts = append(opts, zkview.WithReadOnly())
			}
			c, err := zkview.Dial(ctx, servers[name], opts...)
			if err != nil {
				return Connection{}, err
			}
			return Connection{Client: c, Connect: servers[name], ContextName: name, ReadOnly: ro}, nil
		},
	}
}

// TestSwitchContext: :ctx lists the contexts; :ctx NAME moves every view
// to the other ensemble (here from the embedded server to real ZooKeeper,
// under a chroot), the header names the context, read-only follows it,
// and the session left is closed.
func TestSwitchContext(t *testing.T) {
	t.Parallel()
	one, realZK := zktest.Embedded(t), zktest.Shared(t)
	mustCreate(t, zktest.Conn(t, one), "/only-on-one", "1", 0)
	chroot := zktest.Path(t)
	mustCreate(t, zktest.Conn(t, realZK), chroot, "", 0)
	mustCreate(t, zktest.Conn(t, realZK), chroot+"/only-on-two", "2", 0)
	two := realZK + chroot
	app := newTestApp(t, one, false, func(c *Config) {
		c.ContextName = "one"
		c.Contexts = testContexts(t, one, two)
	})
	first := app.shared.Client
	d := newDriver(t, app, 120, 40)
	d.waitText("only-on-one")
	d.key(":")
	d.typeText("ctx")
	d.key("enter")
	s := d.waitText("3 contexts")
	for _, want := range []string{"*  one", "two-ro", "read-only", two} {
		if !strings.Contains(s, want) {
			t.Errorf("the contexts page lacks %q:\n%s", want, strings.ReplaceAll(s, " \n", "~\n"))
		}
	}
	d.key("down")
	d.key("enter")
	s = d.waitFor("the tree of two", func(s string) bool {
		return strings.Contains(s, "only-on-two") && strings.Contains(s, "context two")
	})
	if strings.Contains(s, "only-on-one") {
		t.Errorf("the tree still shows one:\n%s", s)
	}
	deadline := time.Now().Add(20 * time.Second)
	for first.State() != zkview.Closed && time.Now().Before(deadline) {
		d.settle()
	}
	if first.State() != zkview.Closed {
		t.Errorf("the session left is %v, want closed", first.State())
	}
	// A read-only context: the badge, and no action at all.
	d.key(":")
	d.typeText("ctx two-ro")
	d.key("enter")
	d.waitFor("read-only", func(s string) bool { return strings.Contains(s, "READ-ONLY") && strings.Contains(s, "context two-ro") })
	if app.shared.Writer != nil || app.shared.Actor != nil {
		t.Error("a read-only context kept a writer")
	}
	d.key("n")
	if app.dialog != nil {
		t.Error("n opened a dialog in a read-only context")
	}
	// Back, by completion: tab completes the name.
	d.key(":")
	d.typeText("ctx o")
	d.key("tab")
	d.key("enter")
	d.waitFor("one again", func(s string) bool {
		return strings.Contains(s, "only-on-one") && strings.Contains(s, "context one") && !strings.Contains(s, "READ-ONLY")
	})
	if app.shared.Writer == nil {
		t.Error("back on a writable context without a writer")
	}
	// A context that cannot be opened leaves the explorer where it was.
	app.contexts.Open = func(context.Context, string) (Connection, error) {
		return Connection{}, context.DeadlineExceeded
	}
	d.key(":")
	d.typeText("ctx two")
	d.key("enter")
	s = d.waitText("still on")
	if !strings.Contains(s, "only-on-one") {
		t.Errorf("a failed switch left the tree:\n%s", s)
	}
}
