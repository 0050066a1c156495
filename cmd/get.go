package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
)

// getJSON is the object `zkx get -o json` prints. The raw bytes are left
// out on purpose: data is the decoded text, bounded and safe to print.
type getJSON struct {
	Path string `json:"path"`
	// Decoder is the decoder that produced Data: the one asked for, the
	// one auto chose, hex when the one asked for did not fit, or null /
	// empty when the node has no data.
	Decoder string   `json:"decoder"`
	Data    string   `json:"data"`
	Note    string   `json:"note,omitempty"`
	Stat    statJSON `json:"stat"`
}

func newGetCommand(g *globalOptions) *cobra.Command {
	var flags readFlags
	var decoder string
	names := make([]string, 0, 8)
	for _, d := range decode.Choices() {
		names = append(names, string(d))
	}
	cmd := &cobra.Command{
		Use:   "get PATH",
		Short: "Print a node's data, decoded",
		Long: `get prints a node's data decoded for reading: JSON pretty-printed, text with
control characters escaped, binary as a hex dump, gzip inflated, Curator queue
items unpacked, Curator counters as numbers. --decode auto (the default) picks
by looking at the data; a decoder that does not fit the data falls back to a
hex dump. What the reader should know about the decoding (a fallback, a cut,
null or empty data) is printed on stderr as a note.

JSON (-o json) is one object: path, decoder (the decoder that produced
data: one of ` + strings.Join(names[1:], ", ") + `,
or null / empty for a node without data), data (the decoded text, never
the raw bytes), note (when there is one) and stat (as zkx stat -o json
prints it, without the ACL).

A node whose ACL does not let this session read it is an error: pass
credentials with --auth (zkx stat still shows its stat).`,
		Example: `  zkx get /app/config
  zkx get --decode hex /app/blob
  zkx get -o json /app/config | jq -r .data`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := checkPath(args[0])
			if err != nil {
				return err
			}
			with, err := decode.Parse(decoder)
			if err != nil {
				return fmt.Errorf("--decode: %w", err)
			}
			c, format, ctx, done, err := flags.open(cmd, g)
			if err != nil {
				return err
			}
			defer done()
			d, err := zkview.NodeDetail(ctx, c, path, with)
			if err != nil {
				return err
			}
			if d.NoDataAccess {
				return fmt.Errorf("get %s: %s: the node's ACL does not let this session read its data (pass credentials with --auth digest:user:password, or --sasl for a sasl: ACL; zkx stat %s shows its stat and ACL)", path, zkview.NoAccessText, path)
			}
			out := cmd.OutOrStdout()
			if format == cliout.JSON {
				return cliout.WriteJSON(out, getJSON{Path: path, Decoder: string(d.Decoded.Decoder),
					Data: d.Decoded.Text, Note: d.Decoded.Note, Stat: describeStat(d.Stat)})
			}
			if n := d.Decoded.Note; n != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s (decoder %s)\n", cliout.Clean(n), d.Decoded.Decoder)
			}
			text := d.Decoded.Text
			if text == "" {
				return nil
			}
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			_, err = fmt.Fprint(out, text)
			return err
		},
	}
	flags.register(cmd)
	cmd.Flags().StringVar(&decoder, "decode", "auto", "how to show the data: "+strings.Join(names, ", "))
	return cmd
}
