package cmd

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// whoamiJSON is zkx whoami -o json.
type whoamiJSON struct {
	Server  string `json:"server"`
	Context string `json:"context,omitempty"`
	// Known is false when the server does not answer whoAmI (before
	// 3.7); Identities is then empty.
	Known      bool                    `json:"known"`
	Identities []zkview.ServerIdentity `json:"identities"`
}

// whoamiOptions are zkx whoami's flags.
type whoamiOptions struct {
	globals *globalOptions
	read    readOptions
}

func newWhoamiCommand(g *globalOptions, run runFunc[*whoamiOptions]) *cobra.Command {
	opts := &whoamiOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Ask the server who it takes zkx to be (ZooKeeper 3.7+)",
		Long: `whoami asks the server (whoAmI, ZooKeeper 3.7+) which identities it holds for a
session opened as zkx opens its own — the same TLS certificate, SASL login and
--auth credentials — as ACLs see them: ip:ADDRESS always, digest:USER, sasl:USER,
x509:SUBJECT, super. A server before 3.7 does not answer; zkx then says unknown.

JSON (-o json) is one object: server (the member that answered), context (the
named context, when one is used), known (false before 3.7), identities:
[{scheme, user}].`,
		Example: `  zkx whoami
  zkx --auth digest:alice:secret whoami -o json`,
		Args: cobra.NoArgs,
		RunE: runE(opts, run),
	}
	opts.read.register(cmd)
	return cmd
}

func (o *whoamiOptions) complete([]string) error { return o.read.check() }

// runWhoami asks the server which identities it holds for zkx's session.
func runWhoami(ctx context.Context, opts *whoamiOptions, std streams) error {
	conn, err := opts.read.connect(ctx, opts.globals)
	if err != nil {
		return err
	}
	defer conn.Close()
	who, err := conn.client.WhoAmI(conn.ctx)
	if err != nil {
		return timedOut(err, opts.read.timeout)
	}
	return writeWhoami(std.out, who, opts.globals.contextName, opts.read.format)
}

// writeWhoami prints the server's answer, and the context when one is
// used.
func writeWhoami(out io.Writer, who zkview.WhoAmI, contextName string, format cliout.Format) error {
	if format == cliout.JSON {
		return cliout.WriteJSON(out, whoamiJSON{Server: who.Server, Context: contextName, Known: who.Known,
			Identities: nonNil(who.Identities)})
	}
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	t.Row(st.Header("server"), cliout.Clean(who.Server))
	if contextName != "" {
		t.Row(st.Header("context"), cliout.Clean(contextName))
	}
	t.Row(st.Header("identities"), identitiesText(st, who))
	return t.Flush()
}

// identitiesText is whoAmI's answer in one line.
func identitiesText(st cliout.Styles, who zkview.WhoAmI) string {
	if !who.Known {
		return st.Dim("unknown (the server is older than ZooKeeper 3.7: it does not answer whoAmI)")
	}
	if len(who.Identities) == 0 {
		return st.Dim("none")
	}
	parts := make([]string, len(who.Identities))
	for i, id := range who.Identities {
		parts[i] = cliout.Clean(id.Scheme + ":" + id.User)
	}
	return strings.Join(parts, ", ")
}
