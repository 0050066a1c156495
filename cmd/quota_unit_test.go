package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// TestQuotaOptions: PATH defaults to /.
func TestQuotaOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	build := func(run runFunc[*quotaOptions]) *cobra.Command { return newQuotaCommand(g, run) }
	if opts := parsed(t, build); opts.root != "/" {
		t.Errorf("quota: root %q, want /", opts.root)
	}
	if opts := parsed(t, build, "/app"); opts.root != "/app" {
		t.Errorf("quota /app: root %q", opts.root)
	}
	quota := func() *cobra.Command { return newQuotaCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{quota, []string{"/a", "/b"}, "accepts at most 1 arg(s), received 2"},
		{quota, []string{"app"}, "is relative"},
	})
}

// TestWriteQuotas: each quota's usage against its limits and whether it
// is over them; one that could not be read says why; none is said on
// stderr.
func TestWriteQuotas(t *testing.T) {
	t.Parallel()
	none := zkview.QuotaValues{Count: -1, Bytes: -1, CountHard: -1, BytesHard: -1}
	within := zkview.Quota{Path: "/app/q", Limits: zkview.QuotaValues{Count: -1, Bytes: -1, CountHard: 2, BytesHard: -1}, Usage: zkview.QuotaValues{Count: 2, Bytes: 2}, HasUsage: true}
	over := zkview.Quota{Path: "/other", Outside: true, Limits: zkview.QuotaValues{Count: 3, Bytes: -1, CountHard: -1, BytesHard: -1}, Usage: zkview.QuotaValues{Count: 4}, HasUsage: true}
	broken := zkview.Quota{Path: "/app/bad", Limits: none, Err: errors.New("zookeeper_limits: not key=value")}
	var out, errs bytes.Buffer
	if err := writeQuotas(streams{out: &out, errOut: &errs}, "/", []zkview.Quota{within, over, broken}, cliout.Table); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "2 (hard 2)") || !strings.HasSuffix(lines[1], "within") ||
		!strings.Contains(lines[2], "/other (outside the chroot)") || !strings.Contains(lines[2], "4 of 3") || !strings.HasSuffix(lines[2], "over: count 4 > 3") ||
		!strings.HasSuffix(lines[3], "zookeeper_limits: not key=value") || errs.Len() != 0 {
		t.Errorf("quota:\n%s\nstderr %q", out.String(), errs.String())
	}
	out.Reset()
	if err := writeQuotas(streams{out: &out, errOut: &errs}, "/", []zkview.Quota{within, broken, {Path: "/new", Limits: none}}, cliout.JSON); err != nil {
		t.Fatal(err)
	}
	var got []quotaJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != 3 ||
		got[0].Usage == nil || got[0].Usage.Count != 2 || got[0].Limits.CountHard != 2 || got[0].Exceeded == nil || len(got[0].Exceeded) != 0 ||
		got[1].Error != "zookeeper_limits: not key=value" || got[1].Limits != nil ||
		got[2].Usage != nil || got[2].Limits == nil {
		t.Errorf("quota -o json: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := writeQuotas(streams{out: &out, errOut: &errs}, "/app\x1b[2J", nil, cliout.Table); err != nil || out.Len() != 0 ||
		errs.String() != "zkx: no quota on, above or below /app\\x1b[2J\n" {
		t.Errorf("no quota: %v stdout %q stderr %q", err, out.String(), errs.String())
	}
}
