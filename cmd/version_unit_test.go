package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
)

// TestVersionAndDigestOptions: version's -o; digest's credentials from
// the argument or, without one, from stdin's first line.
func TestVersionAndDigestOptions(t *testing.T) {
	t.Parallel()
	if v := parsed(t, func(run runFunc[*versionOptions]) *cobra.Command { return newVersionCommand(run) }, "-o", "json"); v.format != cliout.JSON {
		t.Errorf("version -o json: %+v", v)
	}
	checkRefusals(t, []refusal{
		{func() *cobra.Command { return newVersionCommand(stopBeforeRun) }, []string{"-o", "yaml"}, `-o "yaml": want table or json`},
		{func() *cobra.Command { return newDigestCommand(stopBeforeRun) }, []string{"a:b", "c:d"}, "accepts at most 1 arg(s), received 2"},
	})
	build := func(run runFunc[*digestOptions]) *cobra.Command { return newDigestCommand(run) }
	if d := parsed(t, build, "alice:secret"); d.credentials != "alice:secret" || d.fromStdin {
		t.Errorf("digest alice:secret: %+v", d)
	}
	if d := parsed(t, build, ""); d.fromStdin {
		t.Errorf(`digest "": %+v, want the empty argument refused, not stdin read`, d)
	}

	var fromArg, fromStdin bytes.Buffer
	if err := runDigest(context.Background(), &digestOptions{credentials: "alice:secret"}, streams{out: &fromArg}); err != nil {
		t.Fatal(err)
	}
	if err := runDigest(context.Background(), &digestOptions{fromStdin: true}, streams{in: strings.NewReader("alice:secret\r\n"), out: &fromStdin}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(fromArg.String(), "digest:alice:") || fromStdin.String() != fromArg.String() {
		t.Errorf("digest from the argument %q, from stdin %q: want the same digest:alice:… line", fromArg.String(), fromStdin.String())
	}
	if err := runDigest(context.Background(), &digestOptions{fromStdin: true}, streams{in: strings.NewReader(""), out: &fromStdin}); err == nil || err.Error() != "no user:password on stdin" {
		t.Errorf("digest with nothing on stdin: %v", err)
	}

	var out bytes.Buffer
	if err := writeVersionTable(&out, buildInfo{Version: "dev", GoVersion: "go1.26.8", Platform: "linux/amd64", ZooKeeper: []string{"3.8"}}); err != nil {
		t.Fatal(err)
	}
	if want := "zkx        dev\ncommit     unknown\nbuilt      unknown\ngo         go1.26.8 linux/amd64\nzookeeper  tested against 3.8\n"; out.String() != want {
		t.Errorf("version:\n%s\nwant\n%s", out.String(), want)
	}
}
