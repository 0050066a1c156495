package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// TestWatchOptions: --recursive and --children exclude each other; -o is
// checked before the dial.
func TestWatchOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	opts := parsed(t, func(run runFunc[*watchOptions]) *cobra.Command { return newWatchCommand(g, run) }, "--children", "-o", "json", "/app")
	if opts.path != "/app" || !opts.children || opts.recursive || opts.format != cliout.JSON {
		t.Errorf("watch --children -o json /app: %+v", opts)
	}
	watch := func() *cobra.Command { return newWatchCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{watch, []string{"--recursive", "--children", "/app"}, "--recursive already reports every node created and deleted below PATH: leave out --children"},
		{watch, []string{"-o", "yaml", "/app"}, `-o "yaml": want table or json`},
		{watch, []string{"app"}, "is relative"},
	})
}

// TestChangeLines: each kind of change in its line for people, the node
// named when the watch covers many; in JSON, sizes only where the data
// was read.
func TestChangeLines(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.Local)
	seen := at.Add(5 * time.Millisecond)
	head, seenHead := "12:00:00.000  0x1f", "12:00:00.005  -"
	cases := []struct {
		change   zkview.Change
		withPath bool
		want     string
	}{
		{zkview.Change{Path: "/a", Kind: zkview.ChangeData, Zxid: 0x1f, Time: at, Seen: seen, Version: 3, Old: []byte("x"), New: []byte("yz")}, false,
			head + `  data v3  "x" (1 byte) → "yz" (2 bytes)`},
		{zkview.Change{Path: "/a", Kind: zkview.ChangeData, Zxid: 0x1f, Time: at, Seen: seen, Version: 1, New: []byte("yz"), NoOld: true}, true,
			head + `  /a  data v1  → "yz" (2 bytes)`},
		{zkview.Change{Path: "/a/e", Kind: zkview.ChangeCreated, Zxid: 0x1f, Time: at, Seen: seen, New: []byte("h"), Owner: 0x10a}, true,
			head + `  /a/e  created  "h" (1 byte)  ephemeral of 0x10a`},
		{zkview.Change{Path: "/a/e", Kind: zkview.ChangeDeleted, Seen: seen, Owner: 0x10a}, true,
			seenHead + `  /a/e  deleted  (was null)  was ephemeral of 0x10a`},
		{zkview.Change{Path: "/a/p", Kind: zkview.ChangeDeleted, Seen: seen}, true,
			seenHead + `  /a/p  deleted  (not read before)`},
		{zkview.Change{Path: "/a", Kind: zkview.ChangeChildren, Zxid: 0x1f, Time: at, Seen: seen, Added: []string{"n"}, Removed: []string{"o"}}, false,
			head + `  children  +n -o`},
		{zkview.Change{Path: "/a", Kind: zkview.ChangeCreated, Seen: seen, NotRead: "the node changed again before zkx could read it"}, true,
			seenHead + `  created  /a  (the node changed again before zkx could read it)`},
		{zkview.Change{Path: "/a", Kind: zkview.ChangeGap, Seen: seen, NotRead: "the connection was lost"}, false,
			seenHead + `  gap  changes until now are not known (the connection was lost)`},
	}
	for _, c := range cases {
		var out bytes.Buffer
		if err := writeChange(&out, c.change, cliout.Table, c.withPath); err != nil || out.String() != c.want+"\n" {
			t.Errorf("%s change:\n%q\nwant\n%q (%v)", c.change.Kind, out.String(), c.want+"\n", err)
		}
	}

	var out bytes.Buffer
	data := zkview.Change{Path: "/a", Kind: zkview.ChangeData, Zxid: 0x1f, Time: at.UTC(), Seen: seen.UTC(), Version: 3, Old: []byte("x"), New: []byte("yz")}
	if err := writeChange(&out, data, cliout.JSON, false); err != nil {
		t.Fatal(err)
	}
	if want := `{"path":"/a","kind":"data","zxid":"0x1f","time":"` + at.UTC().Format(statMillisFormat) + `","seen":"` + seen.UTC().Format(statMillisFormat) +
		`","version":3,"old_size":1,"new_size":2,"old":"eA==","new":"eXo="}` + "\n"; out.String() != want {
		t.Errorf("a data change in JSON:\n%s\nwant\n%s", out.String(), want)
	}
	unread := describeChange(zkview.Change{Path: "/a", Kind: zkview.ChangeData, NotRead: "gone", NoOld: true})
	if unread.Version != nil || unread.OldSize != nil || unread.NewSize != nil || unread.NotRead != "gone" {
		t.Errorf("a change whose data was not read: %+v, want no version nor sizes", unread)
	}
	created := describeChange(zkview.Change{Path: "/a", Kind: zkview.ChangeCreated, New: []byte("abc"), Version: 0})
	if created.NewSize == nil || *created.NewSize != 3 || created.OldSize != nil || created.Version == nil {
		t.Errorf("a creation: %+v, want its version and new size only", created)
	}
	b, _ := json.Marshal(describeChange(zkview.Change{Path: "/a\x1b[2J", Kind: zkview.ChangeDeleted}))
	if strings.Contains(string(b), "\x1b") {
		t.Errorf("an escape in JSON: %s", b)
	}
}
