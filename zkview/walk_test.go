package zkview

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func dialTest(t testing.TB, connect string, opts ...Option) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, connect, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// makeTree creates paths (and their parents) under base.
func makeTree(t testing.TB, c *Client, base string, paths ...string) {
	t.Helper()
	w, err := c.Writer()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range append([]string{""}, paths...) {
		if _, err := w.Create(ctx, base+p, []byte(p), zk.FlagPersistent); err != nil && !strings.Contains(err.Error(), "node already exists") {
			t.Fatal(err)
		}
	}
}

func TestWalkPreorder(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		makeTree(t, c, base, "/b", "/a", "/a/y", "/a/x", "/a/x/deep", "/c")
		var got []string
		err := Walk(context.Background(), c, base, WalkOptions{Concurrency: 3}, func(n WalkNode) error {
			got = append(got, fmt.Sprintf("%d %s", n.Depth, strings.TrimPrefix(n.Path, base)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"0 ", "1 /a", "2 /a/x", "3 /a/x/deep", "2 /a/y", "1 /b", "1 /c"}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("walk order\n got %v\nwant %v", got, want)
		}
		var skipped []string
		Walk(context.Background(), c, base, WalkOptions{Skip: func(n WalkNode) bool { return strings.HasSuffix(n.Path, "/a") }}, func(n WalkNode) error {
			skipped = append(skipped, strings.TrimPrefix(n.Path, base))
			return nil
		})
		if strings.Join(skipped, ",") != ",/a,/b,/c" {
			t.Fatalf("walk skipping /a's children: %v", skipped)
		}
	})
}

func TestWalkReportsUnreadableAndGoesOn(t *testing.T) {
	t.Parallel()
	srv := zktest.Embedded(t)
	c := dialTest(t, srv)
	base := zktest.Path(t)
	makeTree(t, c, base, "/open")
	if _, err := c.Conn().Create(c.Abs(base+"/secret"), nil, zk.FlagPersistent, zk.DigestACL(zk.PermAll, "bob", "pw")); err != nil {
		t.Fatal(err)
	}
	makeTree(t, c, base, "/z")
	var lines []string
	err := Walk(context.Background(), c, base, WalkOptions{}, func(n WalkNode) error {
		line := strings.TrimPrefix(n.Path, base)
		if n.Err != nil {
			line += " (" + n.Err.Error() + ")"
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 || !isNoAuthText(lines[2]) || lines[3] != "/z" {
		t.Fatalf("walk over an unreadable node: %q", lines)
	}
}

// isNoAuthText reports whether a walk line carries a no-auth error.
func isNoAuthText(line string) bool { return strings.Contains(line, "not authenticated") }
