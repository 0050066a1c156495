package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// run executes zkx with args in-process and returns stdout, stderr and the
// error RunE returned.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return runContext(context.Background(), t, args...)
}

// runContext is run with a context that ends the command (zkx watch runs
// until it does).
func runContext(ctx context.Context, t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCommand()
	var out, errs bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return out.String(), errs.String(), err
}

// background is a zkx command running in this process (runBackground).
type background struct {
	done chan struct{} // closed once the command has returned
	err  error         // what it returned, once done is closed
}

// runBackground runs zkx ARGS with the given streams until the test ends:
// its context is cancelled then, and an error it returns fails the test
// (what names the command). done lets a test see an early end.
func runBackground(t *testing.T, what string, stdout, stderr io.Writer, args ...string) *background {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	root := newRootCommand()
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	b := &background{done: make(chan struct{})}
	go func() {
		b.err = root.ExecuteContext(ctx)
		close(b.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-b.done
		if b.err != nil {
			t.Errorf("%s ended with %v", what, b.err)
		}
	})
	return b
}

// populate creates nodes (parents first) with an open ACL.
func populate(t *testing.T, connect string, nodes map[string]int32) {
	t.Helper()
	c, _, err := zk.Connect([]string{connect}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	paths := make([]string, 0, len(nodes))
	for p := range nodes {
		paths = append(paths, p)
	}
	sortByDepth(paths)
	for _, p := range paths {
		if _, err := c.Create(p, []byte("x"), nodes[p], zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
}

func sortByDepth(paths []string) {
	for i := 1; i < len(paths); i++ {
		for j := i; j > 0 && strings.Count(paths[j], "/") < strings.Count(paths[j-1], "/"); j-- {
			paths[j], paths[j-1] = paths[j-1], paths[j]
		}
	}
}

func TestTreeAndLs(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		populate(t, connect, map[string]int32{
			base: 0, base + "/a": 0, base + "/a/x": 0, base + "/a/y": 0, base + "/b": 0, base + "/b/z": 0,
		})
		out, _, err := run(t, "--server", connect, "tree", base)
		if err != nil {
			t.Fatal(err)
		}
		want := base + "\n├── a\n│   ├── x\n│   └── y\n└── b\n    └── z\n"
		if out != want {
			t.Fatalf("tree:\n%s\nwant:\n%s", out, want)
		}
		out, _, err = run(t, "--server", connect, "tree", "--depth", "1", "-o", "json", base)
		if err != nil {
			t.Fatal(err)
		}
		var nodes []nodeJSON
		if err := json.Unmarshal([]byte(out), &nodes); err != nil || len(nodes) != 3 || nodes[1].Path != base+"/a" || nodes[1].Children != 2 {
			t.Fatalf("tree -o json --depth 1: %v\n%s", err, out)
		}
		out, _, err = run(t, "--server", connect, "ls", base)
		if err != nil || out != "a\nb\n" {
			t.Fatalf("ls: %q %v", out, err)
		}
		out, _, err = run(t, "--server", connect, "ls", "-l", base)
		if err != nil || !strings.Contains(out, "NAME") || !strings.Contains(out, "persistent") {
			t.Fatalf("ls -l: %q %v", out, err)
		}
	})
}

func TestChrootAndEphemerals(t *testing.T) {
	t.Parallel()
	srv := zktest.Embedded(t)
	base := zktest.Path(t)
	populate(t, srv, map[string]int32{base: 0, base + "/app": 0, base + "/app/e": zk.FlagEphemeral})
	out, _, err := run(t, "--server", srv+base, "ls", "-o", "json", "/app")
	if err != nil {
		t.Fatal(err)
	}
	var nodes []nodeJSON
	if err := json.Unmarshal([]byte(out), &nodes); err != nil || len(nodes) != 1 || nodes[0].Path != "/app/e" || nodes[0].EphemeralOwner == "" {
		t.Fatalf("ls under a chroot: %v %s", err, out)
	}
}

// TestReadCommandErrors: errors met on the way to the server and on it
// (what is refused before, TestReadRefusals).
func TestReadCommandErrors(t *testing.T) {
	t.Parallel()
	srv := zktest.Embedded(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--server", srv, "ls", "/missing"}, "list /missing on " + srv + ": node does not exist"},
		{[]string{"--server", "zk1:99999", "ls", "/"}, "port must be a number"},
		{[]string{"--server", "127.0.0.1:1", "ls", "--timeout", "300ms", "/"}, "127.0.0.1:1: connection refused"},
	}
	for _, c := range cases {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("zkx %v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}
