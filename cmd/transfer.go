package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/fileread"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/transfer"
)

// exportOptions are zkx export's flags and argument.
type exportOptions struct {
	globals                  *globalOptions
	timeout                  time.Duration
	concurrency, connections int
	// spec is PATH, or DIR@MOMENT:PATH for a data directory's past.
	spec string
}

func newExportCommand(g *globalOptions, run runFunc[*exportOptions]) *cobra.Command {
	opts := &exportOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "export PATH|DIR@MOMENT:PATH > FILE",
		Short: "Write a subtree as JSON Lines, streaming",
		Long: `export writes PATH and everything below it to stdout as JSON Lines: a header
({"zkx_export":1,"root":PATH,…}), then one object per node in preorder, parents
first, written as the walk reaches it:

  path             the node's path
  data             its data in base64 (null for a node created without data)
  text             the data again as text, when it is printable UTF-8
  acl              [{"scheme","id","perms":"cdrwa"}]
  ephemeral_owner  set for an ephemeral node: zkx import skips it unless asked
  ctime mtime czxid mzxid version cversion aversion num_children
  error            the node could not be read (zkx import refuses it)

Reads are batched and run ahead in parallel as for zkx tree; data comes with
each listing, ACLs are read beside it, a batch to one write. DIR@MOMENT:PATH
exports the subtree as it was at that moment of a ZooKeeper data directory's
past (a zxid or a time, as zkx --data-dir --at takes it; zkx diff says more):
every node and ACL, whatever the ACLs said, and the ephemeral nodes marked as
such. On a terminal, progress is shown on stderr; a summary always ends there.
Exit status: 0 when every node was read, 3 when some could not be (they are in
the file with their error), 1 on failure.`,
		Example: `  zkx export /app > app.jsonl
  zkx export / | gzip > everything.jsonl.gz
  zkx export /var/lib/zookeeper@02:45:/app > app-at-0245.jsonl
  jq -r 'select(.text) | [.path, .text] | @tsv' app.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, run),
	}
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 30*time.Minute, "give up after this long")
	cmd.Flags().IntVar(&opts.concurrency, "concurrency", 192, "listings in flight")
	cmd.Flags().IntVar(&opts.connections, "connections", 12, "sessions to read over")
	return cmd
}

// complete checks the flags; PATH is read in run, as whether it names a
// data directory's past is known once the directory is looked at.
func (o *exportOptions) complete(args []string) error {
	if o.timeout <= 0 || o.concurrency < 1 || o.connections < 1 {
		return fmt.Errorf("--timeout, --concurrency and --connections must be positive")
	}
	o.spec = args[0]
	return nil
}

// runExport writes the subtree at opts.spec to stdout as JSON Lines.
func runExport(ctx context.Context, opts *exportOptions, std streams) error {
	g, timeout := opts.globals, opts.timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var c zkview.Reader
	server := g.server
	root, err := checkPath(opts.spec)
	if ps, ok, perr := openPastSource(std.errOut, opts.spec); ok {
		if perr != nil {
			return perr
		}
		defer ps.Close()
		c, root, server, err = ps.reader, ps.path, "the past of "+ps.name, nil
	} else if err == nil {
		bulk, derr := g.dialBulk(ctx, opts.connections, true)
		if derr != nil {
			return timedOut(derr, timeout)
		}
		defer bulk.Close()
		c = bulk
	}
	if err != nil {
		return err
	}
	if _, _, err := c.Children(ctx, root); err != nil {
		return err // a missing root is an error, not an empty export
	}
	progress := newProgress(std.errOut)
	st, err := transfer.Export(ctx, c, root, std.out, transfer.ExportOptions{
		Concurrency: opts.concurrency, Server: server, Visited: progress.add})
	progress.finish()
	if err != nil {
		return timedOut(fmt.Errorf("export of %s stopped after %s: %w", root, plural(st.Nodes, "node"), err), timeout)
	}
	notef(std.errOut, "exported %s (%s of data) from %s; %d ephemeral (skipped on import unless --ephemerals), %d unreadable",
		plural(st.Nodes, "node"), byteCount(st.DataBytes), root, st.Ephemeral, st.Unreadable)
	if st.MaskedACL > 0 {
		warnf(std.errOut, "the server hid the digest hashes of %s ACLs (user:x: this session has no ADMIN on them): import refuses them; export with --auth of an identity that has ADMIN", plural(st.MaskedACL, "node's"))
	}
	if st.Unreadable > 0 {
		return &partialError{fmt.Errorf("%s could not be read (%s): they are in the file with an error, import refuses them, and what is below them is missing", plural(st.Unreadable, "node"), whyUnreadable(st.Unreadable, st.NoRead, "in the file"))}
	}
	return nil
}

func byteCount(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return plural(int(n), "byte")
}

// importFlags are what zkx import, cp and mv share.
type importFlags struct {
	overwrite, skipExisting, ephemerals, dryRun bool
	output                                      string
	timeout                                     time.Duration
	// settings and format are the flags once checked.
	settings transfer.ImportOptions
	format   cliout.Format
}

func (f *importFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.overwrite, "overwrite", false, "replace the data and ACL of nodes that exist")
	cmd.Flags().BoolVar(&f.skipExisting, "skip-existing", false, "leave nodes that exist as they are (and resume a stopped import)")
	cmd.Flags().BoolVar(&f.ephemerals, "ephemerals", false, "recreate ephemeral nodes too, as persistent ones (their owner's session cannot be)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "read the destination and report what would be done; write nothing")
	cmd.Flags().StringVarP(&f.output, "output", "o", "table", "report format: table or json")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 30*time.Minute, "give up after this long")
}

// check checks the flags and sets settings (for nodes written under to)
// and format.
func (f *importFlags) check(to string) (err error) {
	f.settings = transfer.ImportOptions{To: to, DryRun: f.dryRun, Ephemerals: f.ephemerals}
	if f.format, err = cliout.ParseFormat(f.output); err != nil {
		return err
	}
	switch {
	case f.overwrite && f.skipExisting:
		return fmt.Errorf("--overwrite and --skip-existing exclude each other")
	case f.overwrite:
		f.settings.Existing = transfer.Overwrite
	case f.skipExisting:
		f.settings.Existing = transfer.Skip
	}
	if f.timeout <= 0 {
		return fmt.Errorf("--timeout must be positive")
	}
	return nil
}

// openWriter connects for writing: refused under --readonly.
func openWriter(ctx context.Context, g *globalOptions, what string) (*zkview.Client, *zkview.BulkWriter, error) {
	if g.readonly {
		return nil, nil, fmt.Errorf("--readonly: zkx %s writes", what)
	}
	c, err := g.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	w, err := c.Writer()
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	bw, err := w.DialBulk(ctx)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, bw, nil
}

// importOptions are zkx import's flags and argument.
type importOptions struct {
	globals *globalOptions
	flags   importFlags
	to      string // --to
	name    string // FILE, or - for stdin
}

func newImportCommand(g *globalOptions, run runFunc[*importOptions]) *cobra.Command {
	opts := &importOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Recreate an export (zkx export) in transactions",
		Long: `import reads a file zkx export wrote (- for stdin) and recreates its nodes, with
their data and ACLs, parents first, in transactions (multi) of up to 1000 nodes
or 512 KiB each — within ZooKeeper's request limit (jute.maxbuffer, 1 MiB).

The nodes go where they were, or under --to PATH (the export's root becomes PATH;
PATH's parent must exist). A node that exists is refused and left as it was,
unless --skip-existing (keep it, quietly) or --overwrite (replace its data and
ACL). Ephemeral nodes are skipped unless --ephemerals. Sequential names are
recreated as they were (a parent's next sequence number is not moved past them).

The whole file is read and checked before anything is written: a line that is
not a record, a path twice or before its parent, a node without an ACL ("acl":
[]) or with a permission that is not cdrwa stops the import with its line
number, and nothing is written. Nodes too large for a ZooKeeper request (its
default jute.maxbuffer, 1 MiB) are refused, with what is below them.

--dry-run writes nothing and predicts exactly what the import would do: each
transaction the import would send is sent to the server to be judged, and
failed on purpose at its end (each such transaction takes a zxid, as any
does, and changes no node), so a missing parent, a node that exists, an ACL
the server finds invalid or a parent whose ACL does not let this session
create are refused in the report as the real run would refuse them. (Not
predicted: --overwrite's ACL replacement, which is not part of a
transaction, and byte quotas a server enforces.)

The report counts what was created, updated, skipped and refused, and why. Each
transaction is all or nothing: if one fails half way the error names how many
nodes earlier ones wrote and the last of them, and the command that goes on
from there (the same import with --skip-existing). With -o json the report is
one object: created, updated, skipped, ephemeral, refused, refusals (path,
reason; the first 100), last_written, transactions (in a dry run, those the
import would send) and dry_run. Exit status: 0 when nothing was refused, 3 when
some nodes were refused, 1 on failure.`,
		Example: `  zkx import app.jsonl --dry-run
  zkx import app.jsonl --to /app-restored
  zkx import app.jsonl --skip-existing     # resume a stopped import
  zkx export /app | zkx --server other:2181 import -`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, run),
	}
	opts.flags.register(cmd)
	cmd.Flags().StringVar(&opts.to, "to", "", "recreate the export's root here (default: where it was)")
	return cmd
}

func (o *importOptions) complete(args []string) error {
	if o.globals.readonly {
		return fmt.Errorf("--readonly: zkx import writes")
	}
	if o.to != "" {
		clean, err := checkPath(o.to)
		if err != nil {
			return fmt.Errorf("--to: %w", err)
		}
		o.to = clean
	}
	o.name = args[0]
	return o.flags.check(o.to)
}

// runImportFile reads and checks the whole export, then recreates its
// nodes.
func runImportFile(ctx context.Context, opts *importOptions, std streams) error {
	name, flags := opts.name, &opts.flags
	file, err := openExport(name, std.in)
	if err != nil {
		return err
	}
	defer file.Close()
	// The whole input is read and checked before anything is written: a
	// bad line half way must not leave half an import.
	if _, err := transfer.Check(file); err != nil {
		return fmt.Errorf("%s: %w (nothing was written)", displayName(name), err)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	src, err := transfer.ReadFile(file)
	if err != nil {
		return fmt.Errorf("%s: %w", displayName(name), err)
	}
	ctx, cancel := context.WithTimeout(ctx, flags.timeout)
	defer cancel()
	c, bw, err := openWriter(ctx, opts.globals, "import")
	if err != nil {
		return timedOut(err, flags.timeout)
	}
	defer c.Close()
	defer bw.Close()
	err = runImport(ctx, std, bw, src, flags)
	var stopped *transfer.StoppedError
	if errors.As(err, &stopped) {
		return fmt.Errorf("%w; to go on: %s", err, resumeImport(name, opts.to, stopped))
	}
	return err
}

// openExport opens the export to import, name or, for "-", stdin spooled
// to a temporary file (removed on Close), so that it can be read twice:
// once to check it whole, once to import it.
func openExport(name string, stdin io.Reader) (*os.File, error) {
	if name != "-" {
		return openNamedFile(name)
	}
	f, err := os.CreateTemp("", "zkx-import-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("spool stdin: %w", err)
	}
	os.Remove(f.Name()) // gone with the last descriptor
	if _, err := io.Copy(f, stdin); err != nil {
		f.Close()
		return nil, fmt.Errorf("spool stdin: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func displayName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}

// resumeImport is the command that goes on with an import that stopped.
func resumeImport(name, to string, stopped *transfer.StoppedError) string {
	flag := "--skip-existing"
	if stopped.DataReplaced != "" {
		flag = "--overwrite"
	}
	cmd := "zkx import " + shellQuote(name)
	if to != "" {
		cmd += " --to " + shellQuote(to)
	}
	cmd += " " + flag + " (with the same --server and credentials)"
	if name == "-" {
		cmd += ", the same export on stdin"
	}
	return cmd
}

// shellQuote quotes s for a shell when it holds more than plain
// characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runImport imports src as the checked flags say, with progress, and
// prints the report.
func runImport(ctx context.Context, std streams, bw *zkview.BulkWriter, src transfer.Source, flags *importFlags) error {
	progress := newProgress(std.errOut)
	rep, err := transfer.Import(ctx, bw, countingSource{src, progress}, flags.settings)
	progress.finish()
	if werr := writeImportReport(std.out, rep, flags.format); err == nil && werr != nil {
		return werr
	}
	if err != nil {
		return timedOut(err, flags.timeout)
	}
	if rep.Refused > 0 {
		return &partialError{fmt.Errorf("%s refused", plural(rep.Refused, "node"))}
	}
	return nil
}

// countingSource shows each record read on the progress line.
type countingSource struct {
	transfer.Source
	progress *progress
}

func (s countingSource) Next() (transfer.Record, error) {
	r, err := s.Source.Next()
	if err == nil {
		s.progress.add(r.Path)
	}
	return r, err
}

func writeImportReport(out io.Writer, rep transfer.Report, format cliout.Format) error {
	if format == cliout.JSON {
		rep.Refusals = nonNil(rep.Refusals)
		return cliout.WriteJSON(out, rep)
	}
	st := cliout.NewStyles(out)
	verb := "created"
	if rep.DryRun {
		verb = "would create"
	}
	fmt.Fprintf(out, "%s %d, updated %d, skipped %d (existing), %d ephemeral not recreated, refused %d — in %s\n",
		verb, rep.Created, rep.Updated, rep.Skipped, rep.Ephemeral, rep.Refused, plural(rep.Transactions, "transaction"))
	for _, r := range rep.Refusals {
		fmt.Fprintf(out, "  %s %s: %s\n", st.Warn("refused"), cliout.Clean(r.Path), cliout.Clean(r.Reason))
	}
	if rep.Refused > len(rep.Refusals) {
		fmt.Fprintf(out, "  … and %d more\n", rep.Refused-len(rep.Refusals))
	}
	return nil
}

// openNamedFile opens a file named on the command line for reading: a
// regular file, or an error saying what it is and that stdin takes a
// stream (a named pipe is not read twice, nor waited on).
func openNamedFile(name string) (*os.File, error) {
	f, err := fileread.Open(name)
	if fileread.IsNotRegular(err) {
		return nil, fmt.Errorf("%w: give it on stdin as - (… - < %s)", err, name)
	}
	return f, err
}
