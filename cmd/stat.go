package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
)

// statJSON is a node's stat as `zkx stat` and `zkx get` print it in JSON:
// zkCli's names in snake_case, zxids and the owner as 0x… hex (a JSON number
// cannot hold every 64-bit value exactly), times as RFC 3339 in UTC with
// milliseconds.
type statJSON struct {
	Czxid          string `json:"czxid"`
	Mzxid          string `json:"mzxid"`
	Pzxid          string `json:"pzxid"`
	Ctime          string `json:"ctime"`
	Mtime          string `json:"mtime"`
	Version        int32  `json:"version"`
	Cversion       int32  `json:"cversion"`
	Aversion       int32  `json:"aversion"`
	EphemeralOwner string `json:"ephemeral_owner"` // "0x0" for a persistent node
	DataLength     int32  `json:"data_length"`
	NumChildren    int32  `json:"num_children"`
}

// aclJSON is one ACL entry; perms are zkCli's letters, "cdrwa".
type aclJSON struct {
	Scheme string `json:"scheme"`
	ID     string `json:"id"`
	Perms  string `json:"perms"`
}

// statCommandJSON is the object `zkx stat -o json` prints.
type statCommandJSON struct {
	Path string `json:"path"`
	statJSON
	// ACL is null when the server would not let us read it; ACLError
	// then says why.
	ACL      []aclJSON `json:"acl"`
	ACLError string    `json:"acl_error,omitempty"`
}

func describeStat(st *zk.Stat) statJSON {
	return statJSON{
		Czxid: display.Hex(st.Czxid), Mzxid: display.Hex(st.Mzxid), Pzxid: display.Hex(st.Pzxid),
		Ctime: statTimeJSON(st.Ctime), Mtime: statTimeJSON(st.Mtime),
		Version: st.Version, Cversion: st.Cversion, Aversion: st.Aversion,
		EphemeralOwner: display.Hex(st.EphemeralOwner), DataLength: st.DataLength, NumChildren: st.NumChildren,
	}
}

// describeACL spells permissions as FormatACL does, so table and JSON agree.
func describeACL(acl []zk.ACL) []aclJSON {
	out := make([]aclJSON, len(acl))
	fields := zkview.FormatACL(acl)
	for i, a := range acl {
		out[i] = aclJSON{Scheme: a.Scheme, ID: a.ID, Perms: fields[i].Value}
	}
	return out
}

// statOptions are zkx stat's flags and argument.
type statOptions struct {
	globals *globalOptions
	read    readOptions
	path    string
}

func newStatCommand(g *globalOptions, run runFunc[*statOptions]) *cobra.Command {
	opts := &statOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "stat PATH",
		Short: "Show a node's stat and ACL",
		Long: `stat shows a node's stat as zkCli names it (zxids in hex, times with how long
ago) and its ACL, one entry per row with zkCli's permission letters (cdrwa).
A node this session may not read still shows its stat; its ACL then reads
"no access" (pass credentials with --auth).

JSON (-o json) is one object: path, czxid, mzxid, pzxid (0x… hex strings),
ctime, mtime (RFC 3339, UTC, milliseconds; "" when the server reports
none, as for /), version, cversion, aversion,
ephemeral_owner (0x… session id, "0x0" when not ephemeral), data_length,
num_children, and acl: [{scheme, id, perms}] (null with acl_error set when
the ACL may not be read).`,
		Example: `  zkx stat /app/config
  zkx stat -o json /app/locks/orders | jq .num_children`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, run),
	}
	opts.read.register(cmd)
	return cmd
}

func (o *statOptions) complete(args []string) (err error) {
	if o.path, err = checkPath(args[0]); err != nil {
		return err
	}
	return o.read.check()
}

// runStat shows the stat and ACL of the node at opts.path.
func runStat(ctx context.Context, opts *statOptions, std streams) error {
	conn, err := opts.read.connect(ctx, opts.globals)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Only the stat and ACL are shown: decode as hex, the cheapest.
	d, err := zkview.NodeDetail(conn.ctx, conn.client, opts.path, decode.Hex)
	if err != nil {
		return err
	}
	return writeStat(std.out, opts.path, d, opts.read.format)
}

// writeStat prints a node's stat and ACL, a row each, or their JSON.
func writeStat(out io.Writer, path string, d *zkview.Detail, format cliout.Format) error {
	if format == cliout.JSON {
		v := statCommandJSON{Path: path, statJSON: describeStat(d.Stat)}
		if d.NoACLAccess {
			v.ACLError = fmt.Sprintf("%s: the node's ACL lets this session neither read nor administer it (add credentials with --auth)", zkview.NoAccessText)
		} else {
			v.ACL = describeACL(d.ACL)
		}
		return cliout.WriteJSON(out, v)
	}
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	for _, f := range d.StatFields {
		t.Row(st.Header(f.Name), cliout.Clean(f.Value))
	}
	for _, f := range d.ACLFields {
		value := cliout.Clean(f.Value)
		if d.NoACLAccess {
			value = st.Warn(value)
		}
		t.Row(st.Header(cliout.Clean(f.Name)), value)
	}
	return t.Flush()
}
