package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// TestWhoamiOptions: whoami takes no argument, -o is checked.
func TestWhoamiOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	whoami := func() *cobra.Command { return newWhoamiCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{whoami, []string{"/a"}, `unknown command "/a" for "whoami"`},
		{whoami, []string{"-o", "yaml"}, `-o "yaml": want table or json`},
	})
	if opts := parsed(t, func(run runFunc[*whoamiOptions]) *cobra.Command { return newWhoamiCommand(g, run) }, "-o", "json"); opts.read.format != cliout.JSON {
		t.Errorf("whoami -o json: %+v", opts)
	}
}

// TestWriteWhoami: the identities in a line, the context when one is
// used, unknown before 3.7; JSON lists them, [] when there are none.
func TestWriteWhoami(t *testing.T) {
	t.Parallel()
	who := zkview.WhoAmI{Known: true, Server: "zk1:2181", Identities: []zkview.ServerIdentity{{Scheme: "ip", User: "127.0.0.1"}, {Scheme: "digest", User: "alice"}}}
	var out bytes.Buffer
	if err := writeWhoami(&out, who, "prod", cliout.Table); err != nil {
		t.Fatal(err)
	}
	if want := "server      zk1:2181\ncontext     prod\nidentities  ip:127.0.0.1, digest:alice\n"; out.String() != want {
		t.Errorf("whoami:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := writeWhoami(&out, zkview.WhoAmI{Server: "zk1:2181"}, "", cliout.Table); err != nil ||
		!strings.Contains(out.String(), "unknown (the server is older than ZooKeeper 3.7") || strings.Contains(out.String(), "context") {
		t.Errorf("whoami on an older server, without a context: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := writeWhoami(&out, zkview.WhoAmI{Server: "zk1:2181"}, "", cliout.JSON); err != nil {
		t.Fatal(err)
	}
	var got whoamiJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Known || got.Identities == nil || got.Context != "" ||
		!strings.Contains(out.String(), `"identities": []`) || strings.Contains(out.String(), `"context"`) {
		t.Errorf("whoami -o json on an older server: %v\n%s", err, out.String())
	}
}
