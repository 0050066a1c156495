package transfer

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
)

// lay creates nodes under base: path → data ("" is empty data); a path
// ending in "!" is ephemeral (of the client's session), one ending in "#"
// gets a read-only ACL.
func lay(t *testing.T, c *zkview.Client, base string, nodes ...string) {
	t.Helper()
	w, err := c.Writer()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := w.Create(ctx, base, nil, zk.FlagPersistent); err != nil && !zkview.IsNodeExists(err) {
		t.Fatal(err)
	}
	for _, n := range nodes {
		p, data, _ := strings.Cut(n, "=")
		flags := int32(0)
		acl := zk.WorldACL(zk.PermAll)
		if strings.HasSuffix(p, "!") {
			p, flags = strings.TrimSuffix(p, "!"), zk.FlagEphemeral
		}
		if strings.HasSuffix(p, "#") {
			p, acl = strings.TrimSuffix(p, "#"), zk.WorldACL(zk.PermRead|zk.PermWrite|zk.PermCreate|zk.PermDelete)
		}
		if _, err := c.Conn().Create(c.Abs(base+p), []byte(data), flags, acl); err != nil {
			t.Fatalf("create %s%s: %v", base, p, err)
		}
	}
}

func describe(ds []Difference) string {
	var lines []string
	for _, d := range ds {
		lines = append(lines, fmt.Sprintf("%s %s %v", d.Kind, d.Path, d.What))
	}
	return strings.Join(lines, "\n")
}

// TestDiffSubtrees: two live subtrees compared as streams, and the same
// with one side an export file; ignore globs leave nodes out.
func TestDiffSubtrees(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c, _ := dial(t, connect)
		base := zktest.Path(t)
		a, b := base+"/a", base+"/b"
		lay(t, c, base)
		lay(t, c, a, "/same=1", "/data=old", "/acl=x", "/gone=x", "/gone/deep=y", "/locks=", "/locks/lock-1!=h", "/e=1", "/z=z")
		lay(t, c, b, "/same=1", "/data=new", "/acl#=x", "/locks=", "/locks/lock-2!=h", "/new=n", "/new/kid=k", "/e!=1", "/z=z")
		want := strings.Join([]string{
			"changed /acl [acl]",
			"changed /data [data]",
			"changed /e [ephemeral]",
			"removed /gone []",
			"removed /gone/deep []",
			"removed /locks/lock-1 []",
			"added /locks/lock-2 []",
			"added /new []",
			"added /new/kid []",
		}, "\n")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		diff := func(sa, sb Source, opts DiffOptions) (string, DiffStats) {
			var got []Difference
			st, err := Diff(ctx, sa, sb, opts, func(d Difference) error { got = append(got, d); return nil })
			if err != nil {
				t.Fatal(err)
			}
			return describe(got), st
		}
		got, st := diff(WalkSource(ctx, c, a), WalkSource(ctx, c, b), DiffOptions{})
		if got != want {
			t.Errorf("live A against live B:\n%s\nwant\n%s", got, want)
		}
		if st.Same() || st.Added != 3 || st.Removed != 3 || st.Changed != 3 || st.NodesA != 10 || st.NodesB != 10 {
			t.Errorf("stats %+v", st)
		}
		// Side A from an export file: the same differences.
		var buf bytes.Buffer
		if _, err := Export(ctx, c, a, &buf, ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		file, err := ReadFile(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := diff(file, WalkSource(ctx, c, b), DiffOptions{}); got != want {
			t.Errorf("export of A against live B:\n%s\nwant\n%s", got, want)
		}
		// Ephemeral lock nodes expected to differ, by name and by path.
		for _, ignore := range [][]string{{"lock-*"}, {"/locks/*"}, {"**/lock-*"}} {
			got, st := diff(WalkSource(ctx, c, a), WalkSource(ctx, c, b), DiffOptions{Ignore: ignore})
			if strings.Contains(got, "lock-") || st.Ignored != 2 {
				t.Errorf("--ignore %v: %d ignored\n%s", ignore, st.Ignored, got)
			}
		}
		got, _ = diff(WalkSource(ctx, c, a), WalkSource(ctx, c, b), DiffOptions{Ignore: []string{"gone"}})
		if strings.Contains(got, "/gone") {
			t.Errorf("--ignore gone leaves its subtree out too:\n%s", got)
		}
		// A subtree against itself.
		if got, st := diff(WalkSource(ctx, c, a), WalkSource(ctx, c, a), DiffOptions{}); got != "" || !st.Same() {
			t.Errorf("A against A: %s %+v", got, st)
		}
	})
}

// TestDiffRefusesUnsortedFiles: a file whose records are not in the walk's
// order cannot be merged; the error says so instead of a wrong answer.
func TestDiffRefusesUnsortedFiles(t *testing.T) {
	t.Parallel()
	file := `{"zkx_export":1,"root":"/r","exported":"2024-01-01T00:00:00Z"}
{"path":"/r","data":null,"acl":[{"scheme":"world","id":"anyone","perms":"cdrwa"}]}
{"path":"/r/b","data":null,"acl":[{"scheme":"world","id":"anyone","perms":"cdrwa"}]}
{"path":"/r/a","data":null,"acl":[{"scheme":"world","id":"anyone","perms":"cdrwa"}]}
`
	a, err := ReadFile(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ReadFile(strings.NewReader(strings.Replace(file, `{"path":"/r/b","data":null,"acl":[{"scheme":"world","id":"anyone","perms":"cdrwa"}]}`+"\n", "", 1)))
	_, err = Diff(context.Background(), a, b, DiffOptions{}, func(Difference) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "not in preorder") {
		t.Errorf("unsorted side: %v", err)
	}
	// Preorder is not byte order of whole paths: "/r/a/x" comes before
	// "/r/a-b" although '-' < '/'.
	ok := `{"zkx_export":1,"root":"/r","exported":"2024-01-01T00:00:00Z"}
{"path":"/r","data":null,"acl":[{"scheme":"world","id":"anyone","perms":"cdrwa"}]}
{"path":"/r/a","data":null,"acl":[{"scheme":"world","id":"anyone","perms":"cdrwa"}]}
{"path":"/r/a/x","data":null,"acl":[{"scheme":"world","id":"anyone","perms":"cdrwa"}]}
{"path":"/r/a-b","data":null,"acl":[{"scheme":"world","id":"anyone","perms":"cdrwa"}]}
`
	s1, _ := ReadFile(strings.NewReader(ok))
	s2, _ := ReadFile(strings.NewReader(ok))
	if st, err := Diff(context.Background(), s1, s2, DiffOptions{}, func(Difference) error { return nil }); err != nil || !st.Same() {
		t.Errorf("a file in preorder against itself: %+v %v", st, err)
	}
}

func TestMatchGlob(t *testing.T) {
	t.Parallel()
	cases := []struct {
		glob, rel string
		want      bool
	}{
		{"lock-*", "/app/locks/lock-0001", true},
		{"lock-*", "/", false},
		{"/app/*", "/app/x", true},
		{"/app/*", "/app/x/y", false},
		{"**/locks", "/a/b/locks", true},
		{"**/locks", "/locks", true},
		{"/a/**", "/a/b/c", true},
		{"/a/**/c", "/a/c", true},
		{"/a/**/c", "/a/b/d", false},
	}
	for _, c := range cases {
		if got := matchGlob(c.glob, c.rel); got != c.want {
			t.Errorf("matchGlob(%q, %q) = %v", c.glob, c.rel, got)
		}
	}
}

// TestMirror: the destination is made equal to the source (ephemerals
// left alone on both sides), in transactions; a dry run writes nothing;
// a destination changed between the reading and the writing fails the
// transaction rather than lose the change.
func TestMirror(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c, bw := dial(t, connect)
		base := zktest.Path(t)
		src, dst := base+"/src", base+"/dst"
		lay(t, c, base)
		lay(t, c, src, "/same=1", "/data=new", "/acl#=x", "/new=n", "/new/kid=k", "/mine!=eph", "/z=z")
		lay(t, c, dst, "/same=1", "/data=old", "/acl=x", "/gone=x", "/gone/deep=y", "/held=", "/held/lock-1!=h", "/z=z")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var plan []string
		rep, err := Mirror(ctx, bw, WalkSource(ctx, c, src), WalkSource(ctx, c, dst), MirrorOptions{DryRun: true,
			Planned: func(op MirrorOp) { plan = append(plan, op.Op+" "+strings.TrimPrefix(op.Path, dst)) }})
		if err != nil {
			t.Fatal(err)
		}
		// Ephemeral nodes are left alone on both sides, and the plan says so.
		wantPlan := "setacl /acl|set /data|delete /gone/deep|delete /gone|skip /held/lock-1|skip /mine|create /new|create /new/kid"
		if strings.Join(plan, "|") != wantPlan || rep.Created != 2 || rep.Deleted != 2 || rep.Updated != 1 || rep.ACLs != 1 || !rep.DryRun {
			t.Errorf("dry run: %s\n%+v\nwant %s", strings.Join(plan, "|"), rep, wantPlan)
		}
		if rep.Ephemeral != 2 || rep.Refused != 1 || rep.Refusals[0].Path != dst+"/held" {
			t.Errorf("ephemerals left alone: %+v", rep)
		}
		if _, err := c.Exists(ctx, dst+"/gone"); err != nil {
			t.Fatal(err)
		}
		if st, _ := c.Exists(ctx, dst+"/gone"); st == nil {
			t.Fatal("the dry run deleted")
		}
		rep, err = Mirror(ctx, bw, WalkSource(ctx, c, src), WalkSource(ctx, c, dst), MirrorOptions{})
		if err != nil || rep.Transactions != 1 {
			t.Fatalf("mirror: %+v, %v", rep, err)
		}
		var left []Difference
		st, err := Diff(ctx, WalkSource(ctx, c, dst), WalkSource(ctx, c, src), DiffOptions{}, func(d Difference) error {
			left = append(left, d)
			return nil
		})
		if err != nil || describe(left) != "removed /held []\nremoved /held/lock-1 []\nadded /mine []" {
			t.Errorf("after the mirror, the differences left are the ephemerals':\n%s %+v %v", describe(left), st, err)
		}
		// The destination changes after it was read: the transaction fails.
		if _, err := c.Conn().Set(c.Abs(src+"/same"), []byte("2"), -1); err != nil {
			t.Fatal(err)
		}
		changer := &changeAtEnd{Source: WalkSource(ctx, c, dst), do: func() {
			if _, err := c.Conn().Set(c.Abs(dst+"/same"), []byte("theirs"), -1); err != nil {
				t.Error(err)
			}
		}}
		_, err = Mirror(ctx, bw, WalkSource(ctx, c, src), changer, MirrorOptions{})
		if err == nil || !strings.Contains(err.Error(), "the destination changed since it was read") {
			t.Errorf("mirror over a destination changed meanwhile: %v", err)
		}
		if data, _, _ := c.Get(ctx, dst+"/same"); string(data) != "theirs" {
			t.Errorf("the change made meanwhile was lost: %q", data)
		}
	})
}

// changeAtEnd runs do when its source is read to the end.
type changeAtEnd struct {
	Source
	do   func()
	done bool
}

func (s *changeAtEnd) Next() (Record, error) {
	r, err := s.Source.Next()
	if err != nil && !s.done {
		s.done = true
		s.do()
	}
	return r, err
}
