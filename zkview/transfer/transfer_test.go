package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func dial(t *testing.T, connect string, opts ...zkview.Option) (*zkview.Client, *zkview.BulkWriter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := zkview.Dial(ctx, connect, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	w, err := c.Writer()
	if err != nil {
		t.Fatal(err)
	}
	bw, err := w.DialBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bw.Close)
	return c, bw
}

// dump describes every node under root, relative to it, with its data
// (nil and empty told apart), ACL and ephemeral-ness, sorted.
func dump(t *testing.T, c *zkview.Client, root string) string {
	t.Helper()
	var lines []string
	err := zkview.Walk(context.Background(), c, root, zkview.WalkOptions{Data: true, ACL: true}, func(n zkview.WalkNode) error {
		if n.Err != nil || n.ACLErr != nil {
			return fmt.Errorf("%s: %v %v", n.Path, n.Err, n.ACLErr)
		}
		data := "null"
		if n.Data != nil {
			data = fmt.Sprintf("%q", n.Data)
		}
		lines = append(lines, fmt.Sprintf("%s data=%s acl=%s eph=%v", strings.TrimPrefix(n.Path, root), data,
			zkview.FormatACLSpec(n.ACL), n.Stat.EphemeralOwner != 0))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func exportOf(t *testing.T, c *zkview.Client, root string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Export(context.Background(), c, root, &buf, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func importFile(t *testing.T, bw *zkview.BulkWriter, file []byte, opts ImportOptions) (Report, error) {
	t.Helper()
	src, err := ReadFile(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	return Import(context.Background(), bw, src, opts)
}

// TestRoundTrip: binary data, null and empty data, digest and read-only
// ACLs, sequential names and an ephemeral node come back byte for byte
// under another root; the ephemeral is skipped unless asked.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c, bw := dial(t, connect, zkview.WithAuth("digest", []byte("alice:secret")))
		base := zktest.Path(t)
		conn := c.Conn()
		alice, _ := zkview.DigestID("alice:secret")
		open := zk.WorldACL(zk.PermAll)
		mk := func(p string, data []byte, flags int32, acl []zk.ACL) string {
			got, err := conn.Create(base+p, data, flags, acl)
			if err != nil {
				t.Fatalf("create %s: %v", p, err)
			}
			return got
		}
		mk("", nil, 0, open)
		mk("/src", []byte("root"), 0, open)
		binary := make([]byte, 300)
		for i := range binary {
			binary[i] = byte(i * 7)
		}
		mk("/src/bin", binary, 0, open)
		mk("/src/empty", []byte{}, 0, open)
		mk("/src/null", nil, 0, open)
		mk("/src/text", []byte("héllo\nworld\t\x00end"), 0, open)
		mk("/src/secret", []byte("s"), 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "digest", ID: alice}, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}})
		mk("/src/secret/inner", []byte("i"), 0, open)
		mk("/src/q", nil, 0, open)
		for range 3 {
			mk("/src/q/item-", []byte("x"), zk.FlagSequence, open)
		}
		mk("/src/eph", []byte("mine"), zk.FlagEphemeral, open)

		file := exportOf(t, c, base+"/src")
		rep, err := importFile(t, bw, file, ImportOptions{To: base + "/dst"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Created != 11 || rep.Ephemeral != 1 || rep.Refused != 0 || rep.Transactions != 1 {
			t.Fatalf("report %+v, want 11 created, 1 ephemeral skipped in 1 transaction", rep)
		}
		want := strings.ReplaceAll(dump(t, c, base+"/src"), "\n/eph data=\"mine\" acl=world:anyone:cdrwa eph=true", "")
		if got := dump(t, c, base+"/dst"); got != want {
			t.Fatalf("round trip differs\n got:\n%s\nwant:\n%s", got, want)
		}
		// Again: every node exists and is refused; skipped with Skip.
		rep, err = importFile(t, bw, file, ImportOptions{To: base + "/dst"})
		if err != nil || rep.Refused != 11 || rep.Created != 0 {
			t.Fatalf("second import: %+v %v, want 11 refused", rep, err)
		}
		rep, err = importFile(t, bw, file, ImportOptions{To: base + "/dst", Existing: Skip, Ephemerals: true})
		if err != nil || rep.Skipped != 11 || rep.Created != 1 || rep.Refused != 0 {
			t.Fatalf("import --skip-existing --ephemerals: %+v %v, want 11 skipped and the ephemeral created", rep, err)
		}
		if st, _ := c.Exists(context.Background(), base+"/dst/eph"); st == nil || st.EphemeralOwner != 0 {
			t.Fatalf("the ephemeral came back as %+v, want a persistent node", st)
		}
		// Overwrite puts the export's data back.
		if _, err := conn.Set(base+"/dst/bin", []byte("changed"), -1); err != nil {
			t.Fatal(err)
		}
		rep, err = importFile(t, bw, file, ImportOptions{To: base + "/dst", Existing: Overwrite})
		if err != nil || rep.Updated != 11 || rep.Ephemeral != 1 {
			t.Fatalf("import --overwrite: %+v %v", rep, err)
		}
		if d, _, _ := conn.Get(base + "/dst/bin"); !bytes.Equal(d, binary) {
			t.Fatalf("overwrite left %q", d)
		}
	})
}

// TestResume: an import that stops between transactions leaves whole
// transactions written and says how far it got; the same import with
// Skip finishes it, and the result is the source.
func TestResume(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c, bw := dial(t, connect)
		base := zktest.Path(t)
		ops := []zkview.WriteOp{{Kind: zkview.OpCreate, Path: base, ACL: zk.WorldACL(zk.PermAll)}, {Kind: zkview.OpCreate, Path: base + "/src", ACL: zk.WorldACL(zk.PermAll)}}
		// Eleven directories of a hundred: 1112 nodes with /src, so that
		// the import's second transaction (after its first 1000) is left
		// to the resumed import.
		const dirs = 11
		for i := range dirs {
			ops = append(ops, zkview.WriteOp{Kind: zkview.OpCreate, Path: fmt.Sprintf("%s/src/d%02d", base, i), Data: []byte{byte(i)}, ACL: zk.WorldACL(zk.PermAll)})
			for j := range 100 {
				ops = append(ops, zkview.WriteOp{Kind: zkview.OpCreate, Path: fmt.Sprintf("%s/src/d%02d/n%03d", base, i, j), Data: []byte(fmt.Sprint(j)), ACL: zk.WorldACL(zk.PermAll)})
			}
		}
		for i := 0; i < len(ops); i += 500 {
			if err := bw.Multi(context.Background(), ops[i:min(i+500, len(ops))]); err != nil {
				t.Fatal(err)
			}
		}
		file := exportOf(t, c, base+"/src")
		ctx, cancel := context.WithCancel(context.Background())
		src, _ := ReadFile(bytes.NewReader(file))
		rep, err := Import(ctx, bw, src, ImportOptions{To: base + "/dst", Progress: func(Report) { cancel() }})
		if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "--skip-existing") {
			t.Fatalf("stopped import: %v, want the cancellation and how to go on", err)
		}
		if rep.Created != 1000 || rep.LastWritten == "" {
			t.Fatalf("stopped import report %+v, want the first transaction (1000 nodes) written", rep)
		}
		rep, err = importFile(t, bw, file, ImportOptions{To: base + "/dst", Existing: Skip})
		if err != nil || rep.Skipped != 1000 || rep.Created != 1+dirs*101-1000 {
			t.Fatalf("resumed import: %+v %v", rep, err)
		}
		if got, want := dump(t, c, base+"/dst"), dump(t, c, base+"/src"); got != want {
			t.Fatal("after resuming, the copy differs from the source")
		}
	})
}

// TestImportRefusals: a missing destination parent and a node the
// server refuses are reported with the nodes below them; bad files are
// clear errors.
func TestImportRefusals(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c, bw := dial(t, connect)
		base := zktest.Path(t)
		conn := c.Conn()
		for _, p := range []string{"", "/src", "/src/a", "/src/a/b"} {
			if _, err := conn.Create(base+p, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
		}
		file := exportOf(t, c, base+"/src")
		rep, err := importFile(t, bw, file, ImportOptions{To: base + "/missing/dst"})
		if err != nil || rep.Refused != 3 || rep.Created != 0 || !strings.Contains(rep.Refusals[0].Reason, "not exist") {
			t.Fatalf("import under a missing parent: %+v %v", rep, err)
		}
		for _, bad := range []string{"", "not json\n", `{"zkx_export":1,"root":"nope"}` + "\n", `{"zkx_export":9,"root":"/"}` + "\n"} {
			if _, err := ReadFile(strings.NewReader(bad)); err == nil {
				t.Errorf("ReadFile(%q) accepted", bad)
			}
		}
		src, _ := ReadFile(strings.NewReader(`{"zkx_export":1,"root":"/x"}` + "\n" + `{"path":"/elsewhere"}` + "\n"))
		if _, err := Import(context.Background(), bw, src, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "not under") {
			t.Errorf("a record outside the root: %v", err)
		}
	})
}
