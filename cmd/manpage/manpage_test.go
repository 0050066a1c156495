package manpage

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain words", "plain words"},
		{"--held-too-long", `\-\-held\-too\-long`},
		{`C:\path`, `C:\epath`},
		{"holder ← waiter …", `holder \[u2190] waiter \[u2026]`},
		{"emoji 🔒", `emoji \[u1F512]`},
	}
	for _, c := range cases {
		if got := escape(c.in); got != c.want {
			t.Errorf("escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{".hidden request", `\&.hidden request`},
		{"'quote request", `\&'quote request`},
		{"a. b", "a. b"},
	} {
		if got := escapeLine(c.in); got != c.want {
			t.Errorf("escapeLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := quoteArg(`say "hi"`); got != `"say ""hi"""` {
		t.Errorf("quoteArg = %s", got)
	}
}

func TestWriteTextKeepsIndentedLinesAndParagraphs(t *testing.T) {
	var b bytes.Buffer
	writeText(&b, "First paragraph,\nfilled.\n\nA table:\n  a  one\n  b  two\nand on.\n\n  indented after a blank\n.dot line\n")
	want := strings.Join([]string{
		"First paragraph,", "filled.",
		".PP", "A table:", ".nf", "  a  one", "  b  two", ".fi", "and on.",
		".PP", ".nf", "  indented after a blank", ".fi", `\&.dot line`,
	}, "\n") + "\n"
	if b.String() != want {
		t.Errorf("writeText:\n%s\nwant:\n%s", b.String(), want)
	}
}

// tree is a small command tree shaped like zkx's: persistent flags on the
// root, a group with subcommands, a hidden command and a help topic.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "A tool", Long: "tool does things.", RunE: noop}
	root.PersistentFlags().String("server", "", "connect string")
	root.PersistentFlags().Duration("session-timeout", 10e9, "session timeout")
	list := &cobra.Command{Use: "list [PATH]", Short: "List things", Long: "list lists.\n\nJSON: an array.",
		Example: "  tool list -o json /", RunE: noop}
	list.Flags().StringP("output", "o", "table", "output format: table or json")
	list.Flags().Bool("long", false, "more")
	list.Flags().Int("limit", 0, "at most this many `N`")
	group := &cobra.Command{Use: "ctx", Short: "Contexts"}
	group.AddCommand(&cobra.Command{Use: "use NAME", Short: "Use one", RunE: noop})
	hidden := &cobra.Command{Use: "secret", Short: "Hidden", Hidden: true, RunE: noop}
	topic := &cobra.Command{Use: "topic", Short: "A help topic"}
	root.AddCommand(list, group, hidden, topic)
	return root
}

func noop(*cobra.Command, []string) error { return nil }

func TestWriteTreeWritesOnePagePerAvailableCommand(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteTree(tree(), Header{Date: "2026-01-02", Source: "tool v1", Manual: "tool manual"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	slices.Sort(names)
	if want := []string{"tool-ctx-use.1", "tool-ctx.1", "tool-list.1", "tool.1"}; !slices.Equal(names, want) {
		t.Errorf("pages %v, want %v (no hidden command, no help topic)", names, want)
	}
	page, err := os.ReadFile(filepath.Join(dir, "tool-list.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`.TH "TOOL\-LIST" "1" "2026\-01\-02" "tool v1" "tool manual"` + "\n",
		".SH NAME\ntool\\-list \\- List things\n",
		".SH SYNOPSIS\n\\fBtool list\\fR [PATH] [flags]\n",
		".SH DESCRIPTION\nlist lists.\n.PP\nJSON: an array.\n",
		".TP\n\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIstring\\fR\noutput format: table or json (default \"table\")\n",
		".TP\n\\fB\\-\\-long\\fR\nmore\n",
		".TP\n\\fB\\-\\-limit\\fR \\fIN\\fR\nat most this many N\n",
		".SH GLOBAL OPTIONS\n",
		".TP\n\\fB\\-\\-session\\-timeout\\fR \\fIduration\\fR\nsession timeout (default 10s)\n",
		".SH EXAMPLES\n.PP\n.nf\n  tool list \\-o json /\n.fi\n",
		".SH SEE ALSO\n.BR tool (1)\n",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("tool-list.1 lacks\n%s\nin\n%s", want, page)
		}
	}
	if strings.Contains(string(page), "help") {
		t.Errorf("tool-list.1 lists --help:\n%s", page)
	}

	group, err := os.ReadFile(filepath.Join(dir, "tool-ctx.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		".SH SYNOPSIS\n\\fBtool ctx\\fR \\fICOMMAND\\fR ...\n", // not runnable: no use line of its own
		".SH COMMANDS\n.TP\n\\fBtool\\-ctx\\-use\\fR(1)\nUse one\n",
		".SH SEE ALSO\n.BR tool (1),\n.BR tool\\-ctx\\-use (1)\n",
	} {
		if !strings.Contains(string(group), want) {
			t.Errorf("tool-ctx.1 lacks\n%s\nin\n%s", want, group)
		}
	}
}

func TestWriteTreeReportsAnUnwritableDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteTree(tree(), Header{}, file); err == nil || !strings.Contains(err.Error(), "man pages") {
		t.Errorf("WriteTree into a file: %v, want a man pages error", err)
	}
}
