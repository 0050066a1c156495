package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// quotaJSON is one quota of zkx quota -o json.
type quotaJSON struct {
	Path string `json:"path"`
	// OutsideChroot is set when the quota is on a path outside the
	// connect string's chroot (path is then the server's).
	OutsideChroot bool             `json:"outside_chroot,omitempty"`
	Limits        *quotaLimitsJSON `json:"limits"`
	// Usage is null when the server keeps no stats node for the quota.
	Usage    *quotaUsageJSON `json:"usage"`
	Exceeded []string        `json:"exceeded"`
	Error    string          `json:"error,omitempty"`
}

type quotaLimitsJSON struct {
	Count     int64 `json:"count"`
	Bytes     int64 `json:"bytes"`
	CountHard int64 `json:"count_hard"`
	BytesHard int64 `json:"bytes_hard"`
}

type quotaUsageJSON struct {
	Count int64 `json:"count"`
	Bytes int64 `json:"bytes"`
}

func describeQuota(q zkview.Quota) quotaJSON {
	j := quotaJSON{Path: q.Path, OutsideChroot: q.Outside, Exceeded: nonNil(q.Exceeded())}
	if q.Err != nil {
		j.Error = q.Err.Error()
		return j
	}
	j.Limits = &quotaLimitsJSON{Count: q.Limits.Count, Bytes: q.Limits.Bytes, CountHard: q.Limits.CountHard, BytesHard: q.Limits.BytesHard}
	if q.HasUsage {
		j.Usage = &quotaUsageJSON{Count: q.Usage.Count, Bytes: q.Usage.Bytes}
	}
	return j
}

// quotaOptions are zkx quota's flags and argument.
type quotaOptions struct {
	globals *globalOptions
	read    readOptions
	root    string
}

func newQuotaCommand(g *globalOptions, run runFunc[*quotaOptions]) *cobra.Command {
	opts := &quotaOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "quota [PATH]",
		Short: "List the quotas on and below PATH, with their limits and usage",
		Long: `quota lists the quotas ZooKeeper keeps (zkCli's setquota and listquota): the one
that covers PATH (set on it or on an ancestor) and every one below it, each with
its limits and the usage the server counts for the subtree — nodes (the quota's
root included) and data bytes. Soft limits (count, bytes) are only logged by the
server; hard ones (ZooKeeper 3.7+: count_hard, bytes_hard) refuse writes past
them when the server runs with zookeeper.enforceQuota. A limit of -1 is none.
The quotas live in /zookeeper/quota, outside any chroot; a quota outside the
connect string's chroot is named by the server's path.

JSON (-o json) is an array: path, outside_chroot, limits {count, bytes,
count_hard, bytes_hard} (-1: none), usage {count, bytes} (null when the server
keeps no stats node for it), exceeded (the limits the usage passes, as
"count 4 > 3" or "bytes (hard) 2048 > 1024"), error (the quota's nodes could
not be read or parsed).`,
		Example: `  zkx quota
  zkx quota /app -o json | jq '.[] | select(.exceeded | length > 0)'`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(opts, run),
	}
	opts.read.register(cmd)
	return cmd
}

func (o *quotaOptions) complete(args []string) (err error) {
	o.root = "/"
	if len(args) == 1 {
		if o.root, err = checkPath(args[0]); err != nil {
			return err
		}
	}
	return o.read.check()
}

// runQuota lists the quotas on, above and below opts.root.
func runQuota(ctx context.Context, opts *quotaOptions, std streams) error {
	conn, err := opts.read.connect(ctx, opts.globals)
	if err != nil {
		return err
	}
	defer conn.Close()
	quotas, err := conn.client.Quotas(conn.ctx, opts.root)
	if err != nil {
		return timedOut(err, opts.read.timeout)
	}
	return writeQuotas(std, opts.root, quotas, opts.read.format)
}

// writeQuotas prints a row per quota, or their JSON; none is said on
// stderr.
func writeQuotas(std streams, root string, quotas []zkview.Quota, format cliout.Format) error {
	if format == cliout.JSON {
		list := make([]quotaJSON, len(quotas))
		for i, q := range quotas {
			list[i] = describeQuota(q)
		}
		return cliout.WriteJSON(std.out, list)
	}
	if len(quotas) == 0 {
		fmt.Fprintf(std.errOut, "zkx: no quota on, above or below %s\n", cliout.Clean(root))
		return nil
	}
	st := cliout.NewStyles(std.out)
	t := cliout.NewTable(std.out)
	t.Row(st.Header("PATH"), st.Header("NODES"), st.Header("BYTES"), st.Header("STATUS"))
	for _, q := range quotas {
		path := cliout.Clean(q.Path)
		if q.Outside {
			path += st.Dim(" (outside the chroot)")
		}
		if q.Err != nil {
			t.Row(path, "", "", st.Warn(cliout.Clean(q.Err.Error())))
			continue
		}
		status := st.Good("within")
		if over := q.Exceeded(); len(over) > 0 {
			status = st.Warn("over: " + strings.Join(over, ", "))
		}
		t.Row(path, zkview.QuotaText(q.Usage.Count, q.Limits.Count, q.Limits.CountHard, q.HasUsage),
			zkview.QuotaText(q.Usage.Bytes, q.Limits.Bytes, q.Limits.BytesHard, q.HasUsage), status)
	}
	return t.Flush()
}
