package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
)

// TestReadOptions: ls, tree, get and stat take their path and flags as
// typed, the defaults otherwise.
func TestReadOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	ls := parsed(t, func(run runFunc[*lsOptions]) *cobra.Command { return newLsCommand(g, run) }, "-l", "-o", "json", "/app/locks")
	if ls.path != "/app/locks" || !ls.long || ls.read.format != cliout.JSON || ls.read.timeout != 30*time.Second || ls.globals != g {
		t.Errorf("ls -l -o json /app/locks: %+v", ls)
	}
	tree := parsed(t, func(run runFunc[*treeOptions]) *cobra.Command { return newTreeCommand(g, run) }, "--depth", "2", "--connections", "3", "--batch=false", "/")
	if tree.path != "/" || tree.depth != 2 || tree.walk.connections != 3 || tree.walk.batch || tree.walk.concurrency != 192 || tree.walk.format != cliout.Table {
		t.Errorf("tree --depth 2 --connections 3 --batch=false /: %+v", tree)
	}
	if w := tree.walk.options(); w.Concurrency != 192 {
		t.Errorf("tree's walk: %+v, want --concurrency's 192", w)
	}
	get := parsed(t, func(run runFunc[*getOptions]) *cobra.Command { return newGetCommand(g, run) }, "--decode", "hex", "--timeout", "5s", "/a")
	if get.path != "/a" || get.with != decode.Hex || get.read.timeout != 5*time.Second {
		t.Errorf("get --decode hex --timeout 5s /a: %+v", get)
	}
	stat := parsed(t, func(run runFunc[*statOptions]) *cobra.Command { return newStatCommand(g, run) }, "/a/b")
	if stat.path != "/a/b" || stat.read.format != cliout.Table {
		t.Errorf("stat /a/b: %+v", stat)
	}
}

// TestReadRefusals: what ls, tree, get and stat refuse before they dial.
func TestReadRefusals(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	ls := func() *cobra.Command { return newLsCommand(g, stopBeforeRun) }
	tree := func() *cobra.Command { return newTreeCommand(g, stopBeforeRun) }
	get := func() *cobra.Command { return newGetCommand(g, stopBeforeRun) }
	stat := func() *cobra.Command { return newStatCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{ls, []string{"relative"}, "is relative"},
		{ls, []string{"/a/"}, "ends with /"},
		{ls, []string{""}, "empty path"},
		{ls, []string{"-o", "yaml", "/"}, `-o "yaml": want table or json`},
		{ls, []string{"--timeout", "0s", "/"}, "--timeout must be positive"},
		{tree, []string{"--concurrency", "0", "/"}, "must be at least 1"},
		{tree, []string{"--connections", "0", "/"}, "--concurrency and --connections must be at least 1"},
		{get, []string{"--decode", "yaml", "/"}, `--decode: unknown decoder "yaml" (want one of auto, text, json, hex, gzip, curator-queue, int32, int64, protobuf, hbase-pbuf)`},
		{get, []string{"-o", "yaml", "/"}, `-o "yaml": want table or json`},
		{stat, []string{"-o", "xml", "/"}, `-o "xml": want table or json`},
		{get, []string{"relative"}, "is relative"},
		{stat, nil, "accepts 1 arg(s), received 0"},
	})
}

// TestAuthRefusedBeforeAnyCommand: a malformed --auth stops every command
// before it dials.
func TestAuthRefusedBeforeAnyCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if _, err := resolved(t, "--auth", "bob"); err == nil || !strings.Contains(err.Error(), "--auth wants scheme:credentials") {
		t.Errorf("zkx --auth bob: error %v, want one containing %q", err, "--auth wants scheme:credentials")
	}
}

// TestTreeDrawer: nodes streamed in preorder are drawn with tree(1)'s
// branches, ephemeral and unreadable nodes marked.
func TestTreeDrawer(t *testing.T) {
	t.Parallel()
	noAuth := &zkview.PathError{Op: "list", Path: "/base/b/z", Err: zk.ErrNoAuth}
	nodes := []zkview.WalkNode{
		{Path: "/base", Depth: 0, Stat: &zk.Stat{}, Children: []string{"a", "b"}},
		{Path: "/base/a", Depth: 1, Stat: &zk.Stat{}, Children: []string{"x", "y"}},
		{Path: "/base/a/x", Depth: 2, Stat: &zk.Stat{EphemeralOwner: 0x10a}},
		{Path: "/base/a/y", Depth: 2, Stat: &zk.Stat{}},
		{Path: "/base/b", Depth: 1, Stat: &zk.Stat{}, Children: []string{"z\x1b[31m"}},
		{Path: "/base/b/z\x1b[31m", Depth: 2, Err: noAuth},
	}
	var out bytes.Buffer
	d := newTreeDrawer(&out)
	for _, n := range nodes {
		if err := d.draw(n); err != nil {
			t.Fatal(err)
		}
	}
	want := "/base\n├── a\n│   ├── x [ephemeral 0x10a]\n│   └── y\n└── b\n    └── z\\x1b[31m (" + noAuth.Error() + ")\n"
	if out.String() != want {
		t.Errorf("tree:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestNodeRows: ls -l's rows, from stats and errors, as a table and in
// JSON.
func TestNodeRows(t *testing.T) {
	t.Parallel()
	mtime := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	rows := []nodeJSON{
		describeNode("/a/p", &zk.Stat{NumChildren: 2, DataLength: 10, Mtime: mtime.UnixMilli()}, nil),
		describeNode("/a/e", &zk.Stat{EphemeralOwner: 0x1000a}, nil),
		describeNode("/a/x", nil, errors.New("list /a/x: not authenticated")),
	}
	for i, name := range []string{"p", "e", "x"} {
		rows[i].Name = name
	}
	if rows[0].Mtime != "2024-05-01T12:00:00Z" || rows[0].Children != 2 || rows[0].DataLength != 10 || rows[0].EphemeralOwner != "" {
		t.Errorf("a persistent node: %+v", rows[0])
	}
	if rows[1].EphemeralOwner != "0x1000a" || rows[1].Mtime != "" {
		t.Errorf("an ephemeral node without mtime: %+v", rows[1])
	}
	if rows[2].Error != "list /a/x: not authenticated" || rows[2].Children != 0 {
		t.Errorf("a node that could not be read: %+v", rows[2])
	}
	var out bytes.Buffer
	if err := writeNodeTable(&out, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || strings.Fields(lines[0])[0] != "NAME" ||
		strings.Join(strings.Fields(lines[1]), " ") != "p 2 10 persistent 2024-05-01T12:00:00Z" ||
		strings.Join(strings.Fields(lines[2]), " ") != "e 0 0 0x1000a" ||
		strings.Join(strings.Fields(lines[3]), " ") != "x - - - list /a/x: not authenticated" {
		t.Errorf("ls -l:\n%s", out.String())
	}
	b, err := json.Marshal(rows[1])
	if err != nil || string(b) != `{"path":"/a/e","name":"e","children":0,"data_length":0,"ephemeral_owner":"0x1000a"}` {
		t.Errorf("ls -o json row: %s %v", b, err)
	}
	depth := walkRow(zkview.WalkNode{Path: "/a", Depth: 3, Stat: &zk.Stat{}})
	if depth.Depth == nil || *depth.Depth != 3 {
		t.Errorf("tree -o json row: %+v, want depth 3", depth)
	}
}

// TestWriteStat: the stat and ACL rows, a refused ACL marked, and the
// JSON with acl null and acl_error when the ACL may not be read.
func TestWriteStat(t *testing.T) {
	t.Parallel()
	now := time.Now()
	st := &zk.Stat{Czxid: 0x1f, NumChildren: 1, DataLength: 6, Ctime: now.UnixMilli(), Mtime: now.UnixMilli()}
	acl := zk.WorldACL(zk.PermRead | zk.PermWrite)
	open := &zkview.Detail{Stat: st, StatFields: zkview.FormatStat(st, now), ACL: acl, ACLFields: zkview.FormatACL(acl)}
	var out bytes.Buffer
	if err := writeStat(&out, "/a", open, cliout.Table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cZxid           0x1f", "ephemeralOwner  0x0 (not ephemeral", "numChildren     1", "world:anyone    rw"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stat: no %q in\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := writeStat(&out, "/a", open, cliout.JSON); err != nil {
		t.Fatal(err)
	}
	var got statCommandJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Path != "/a" || got.Czxid != "0x1f" || got.DataLength != 6 ||
		len(got.ACL) != 1 || got.ACL[0] != (aclJSON{"world", "anyone", "rw"}) || got.ACLError != "" {
		t.Errorf("stat -o json: %v %+v\n%s", err, got, out.String())
	}

	closed := &zkview.Detail{Stat: st, StatFields: zkview.FormatStat(st, now), NoACLAccess: true,
		ACLFields: []zkview.Field{{Name: "acl", Value: zkview.NoAccessText}}}
	out.Reset()
	if err := writeStat(&out, "/a", closed, cliout.Table); err != nil || !strings.Contains(out.String(), "acl             no access") {
		t.Errorf("stat without access to the ACL: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := writeStat(&out, "/a", closed, cliout.JSON); err != nil || json.Unmarshal(out.Bytes(), &got) != nil || got.ACL != nil ||
		!strings.Contains(got.ACLError, "no access") || !strings.Contains(out.String(), `"acl": null`) {
		t.Errorf("stat -o json without access to the ACL: %v\n%s", err, out.String())
	}
}

// TestWriteGet: the decoded text ends with a newline, the decoder's note
// goes to stderr, JSON carries the text and never the bytes, and data
// this session may not read is an error naming the fix.
func TestWriteGet(t *testing.T) {
	t.Parallel()
	st := &zk.Stat{Czxid: 2, DataLength: 12}
	cases := []struct {
		name      string
		decoded   decode.Result
		out, note string
	}{
		{"text", decode.Result{Decoder: decode.Text, Text: "hello, world"}, "hello, world\n", ""},
		{"a newline already", decode.Result{Decoder: decode.JSON, Text: "{\n  \"a\": 1\n}\n"}, "{\n  \"a\": 1\n}\n", ""},
		{"a fallback", decode.Result{Decoder: decode.Hex, Text: "00000000: 6865", Note: "not an int32: 12 bytes, want exactly 4"},
			"00000000: 6865\n", "note: not an int32: 12 bytes, want exactly 4 (decoder hex)\n"},
		{"null", decode.Result{Decoder: decode.Null, Note: "no data (null)"}, "", "note: no data (null) (decoder null)\n"},
	}
	for _, tc := range cases {
		var out, errs bytes.Buffer
		err := writeGet(streams{out: &out, errOut: &errs}, "/a", &zkview.Detail{Stat: st, Decoded: tc.decoded}, cliout.Table)
		if err != nil || out.String() != tc.out || errs.String() != tc.note {
			t.Errorf("%s: err %v\nstdout %q\nwant   %q\nstderr %q, want %q", tc.name, err, out.String(), tc.out, errs.String(), tc.note)
		}
	}

	var out bytes.Buffer
	d := &zkview.Detail{Stat: st, Data: []byte{0, 1, 0xfe}, Decoded: decode.Result{Decoder: decode.Hex, Text: "00000000: 0001 fe"}}
	if err := writeGet(streams{out: &out, errOut: &out}, "/bin", d, cliout.JSON); err != nil {
		t.Fatal(err)
	}
	var got getJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Path != "/bin" || got.Decoder != "hex" || got.Data != "00000000: 0001 fe" ||
		got.Stat.DataLength != 12 || got.Stat.EphemeralOwner != "0x0" || strings.Contains(out.String(), "AAH+") {
		t.Errorf("get -o json: %v %+v\n%s", err, got, out.String())
	}

	err := writeGet(streams{out: &out, errOut: &out}, "/secret", &zkview.Detail{Stat: st, NoDataAccess: true}, cliout.Table)
	if err == nil || !strings.Contains(err.Error(), "get /secret: no access") || !strings.Contains(err.Error(), "--auth") {
		t.Errorf("get of data this session may not read: %v", err)
	}
}
