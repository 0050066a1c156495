package cmd

import (
	"context"
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

// getOptions are zkx get's flags and argument.
type getOptions struct {
	globals *globalOptions
	read    readOptions
	decoder string         // --decode as given
	with    decode.Decoder // --decode, once checked
	path    string
}

func newGetCommand(g *globalOptions, run runFunc[*getOptions]) *cobra.Command {
	opts := &getOptions{globals: g}
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
		RunE: runE(opts, run),
	}
	opts.read.register(cmd)
	cmd.Flags().StringVar(&opts.decoder, "decode", "auto", "how to show the data: "+strings.Join(names, ", "))
	return cmd
}

func (o *getOptions) complete(args []string) (err error) {
	if o.path, err = checkPath(args[0]); err != nil {
		return err
	}
	if o.with, err = decode.Parse(o.decoder); err != nil {
		return fmt.Errorf("--decode: %w", err)
	}
	return o.read.check()
}

// runGet prints the data of the node at opts.path, decoded.
func runGet(ctx context.Context, opts *getOptions, std streams) error {
	conn, err := opts.read.connect(ctx, opts.globals)
	if err != nil {
		return err
	}
	defer conn.Close()
	d, err := zkview.NodeDetail(conn.ctx, conn.client, opts.path, opts.with)
	if err != nil {
		return err
	}
	return writeGet(std, opts.path, d, opts.read.format)
}

// writeGet prints a node's decoded data (its note on stderr), or its JSON;
// a node whose data this session may not read is an error.
func writeGet(std streams, path string, d *zkview.Detail, format cliout.Format) error {
	if d.NoDataAccess {
		return fmt.Errorf("get %s: %s: the node's ACL does not let this session read its data (pass credentials with --auth digest:user:password, or --sasl for a sasl: ACL; zkx stat %s shows its stat and ACL)", path, zkview.NoAccessText, path)
	}
	if format == cliout.JSON {
		return cliout.WriteJSON(std.out, getJSON{Path: path, Decoder: string(d.Decoded.Decoder),
			Data: d.Decoded.Text, Note: d.Decoded.Note, Stat: describeStat(d.Stat)})
	}
	if n := d.Decoded.Note; n != "" {
		fmt.Fprintf(std.errOut, "note: %s (decoder %s)\n", cliout.Clean(n), d.Decoded.Decoder)
	}
	text := d.Decoded.Text
	if text == "" {
		return nil
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(std.out, text)
	return err
}
