// Package manpage writes a cobra command tree as man(7) pages, one per
// command (zkx(1), zkx-locks(1), …), from the same text --help shows: the
// long description (its JSON notes included), the options with their
// defaults, the examples, the subcommands.
//
// The help text is plain text, not Markdown, so it is written as roff
// directly: paragraphs are filled, lines indented in the help (tables,
// sample files) are kept as they are, and every character roff would act on
// is escaped.
package manpage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Header is what the title line of every page carries.
type Header struct {
	Date    string // e.g. 2026-11-25
	Source  string // the program and its version, e.g. "zkx v1.2.3"
	Manual  string // e.g. "zkx manual"
	Section string // "1" when empty
}

// WriteTree writes one page for root and for every available command below
// it (hidden, deprecated and help commands are left out) into dir, named
// after the command path ("zkx-context-use.1"). It returns the files
// written.
func WriteTree(root *cobra.Command, h Header, dir string) ([]string, error) {
	if h.Section == "" {
		h.Section = "1"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("man pages: %w", err)
	}
	var written []string
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		var b bytes.Buffer
		Write(&b, c, h)
		name := filepath.Join(dir, pageName(c)+"."+h.Section)
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("man pages: %w", err)
		}
		written = append(written, name)
		for _, sub := range availableSubcommands(c) {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return written, walk(root)
}

// Write writes the page of c.
func Write(b *bytes.Buffer, c *cobra.Command, h Header) {
	if h.Section == "" {
		h.Section = "1"
	}
	name := pageName(c)
	fmt.Fprintf(b, ".TH %s %s %s %s %s\n", quoteArg(strings.ToUpper(name)), quoteArg(h.Section),
		quoteArg(h.Date), quoteArg(h.Source), quoteArg(h.Manual))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(b, "%s \\- %s\n", escape(name), escape(c.Short))

	b.WriteString(".SH SYNOPSIS\n")
	writeSynopsis(b, c)

	b.WriteString(".SH DESCRIPTION\n")
	description := c.Long
	if description == "" {
		description = c.Short
	}
	writeText(b, description)

	if subs := availableSubcommands(c); len(subs) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, sub := range subs {
			fmt.Fprintf(b, ".TP\n\\fB%s\\fR(%s)\n%s\n", escape(pageName(sub)), h.Section, escape(sub.Short))
		}
	}
	if flags := visibleFlags(c.NonInheritedFlags()); len(flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		writeFlags(b, flags)
	}
	if flags := visibleFlags(c.InheritedFlags()); len(flags) > 0 {
		b.WriteString(".SH GLOBAL OPTIONS\n")
		writeFlags(b, flags)
	}
	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n")
		writeVerbatim(b, c.Example)
	}
	writeSeeAlso(b, c, h.Section)
}

func pageName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

func availableSubcommands(c *cobra.Command) []*cobra.Command {
	var subs []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			subs = append(subs, sub)
		}
	}
	return subs
}

// writeSynopsis writes the use line (the command path in bold), and a
// second one for a command that takes subcommands.
func writeSynopsis(b *bytes.Buffer, c *cobra.Command) {
	path := c.CommandPath()
	if c.Runnable() {
		rest := strings.TrimPrefix(c.UseLine(), path)
		fmt.Fprintf(b, "\\fB%s\\fR%s\n", escape(path), escape(rest))
	}
	if len(availableSubcommands(c)) > 0 {
		if c.Runnable() {
			b.WriteString(".br\n")
		}
		fmt.Fprintf(b, "\\fB%s\\fR \\fICOMMAND\\fR ...\n", escape(path))
	}
}

// writeText writes help text: lines of a paragraph are filled, a blank line
// starts a new paragraph, and indented lines are kept as they are.
func writeText(b *bytes.Buffer, text string) {
	newParagraph, verbatim := false, false
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			if verbatim {
				b.WriteString(".fi\n")
				verbatim = false
			}
			newParagraph = true
			continue
		case line[0] == ' ' || line[0] == '\t':
			if newParagraph {
				b.WriteString(".PP\n")
				newParagraph = false
			}
			if !verbatim {
				b.WriteString(".nf\n")
				verbatim = true
			}
		default:
			if verbatim {
				b.WriteString(".fi\n")
				verbatim = false
			}
			if newParagraph {
				b.WriteString(".PP\n")
				newParagraph = false
			}
		}
		b.WriteString(escapeLine(line))
		b.WriteByte('\n')
	}
	if verbatim {
		b.WriteString(".fi\n")
	}
}

// writeVerbatim writes text line by line, unfilled (examples).
func writeVerbatim(b *bytes.Buffer, text string) {
	b.WriteString(".PP\n.nf\n")
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(escapeLine(line))
		b.WriteByte('\n')
	}
	b.WriteString(".fi\n")
}

// visibleFlags are the flags --help lists, without --help itself, sorted
// by name as --help sorts them.
func visibleFlags(fs *pflag.FlagSet) []*pflag.Flag {
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			flags = append(flags, f)
		}
	})
	slices.SortFunc(flags, func(a, b *pflag.Flag) int { return strings.Compare(a.Name, b.Name) })
	return flags
}

func writeFlags(b *bytes.Buffer, flags []*pflag.Flag) {
	for _, f := range flags {
		b.WriteString(".TP\n")
		if f.Shorthand != "" {
			fmt.Fprintf(b, "\\fB\\-%s\\fR, ", escape(f.Shorthand))
		}
		fmt.Fprintf(b, "\\fB\\-\\-%s\\fR", escape(f.Name))
		varname, usage := pflag.UnquoteUsage(f)
		if varname != "" {
			fmt.Fprintf(b, " \\fI%s\\fR", escape(varname))
		}
		b.WriteByte('\n')
		if def := shownDefault(f); def != "" {
			usage += " (default " + def + ")"
		}
		b.WriteString(escapeLine(usage))
		b.WriteByte('\n')
		if f.Deprecated != "" {
			fmt.Fprintf(b, "Deprecated: %s\n", escapeLine(f.Deprecated))
		}
	}
}

// shownDefault is the default as --help shows it: none for a zero value,
// strings quoted.
func shownDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "0s", "[]", "<nil>":
		return ""
	}
	if f.Value.Type() == "string" {
		return strconv.Quote(f.DefValue)
	}
	return f.DefValue
}

func writeSeeAlso(b *bytes.Buffer, c *cobra.Command, section string) {
	var refs []string
	if c.HasParent() {
		refs = append(refs, pageName(c.Parent()))
	}
	for _, sub := range availableSubcommands(c) {
		refs = append(refs, pageName(sub))
	}
	if len(refs) == 0 {
		return
	}
	b.WriteString(".SH SEE ALSO\n")
	for i, ref := range refs {
		sep := ","
		if i == len(refs)-1 {
			sep = ""
		}
		fmt.Fprintf(b, ".BR %s (%s)%s\n", escape(ref), section, sep)
	}
}

// escape makes text safe inside a roff line: a backslash is the escape
// character (written \e); "-" is written "\-" so that options and paths
// copied from the page are the ASCII hyphen-minus a shell wants, not the
// typographic hyphen groff may print for a bare "-"; and every non-ASCII
// character is written as its \[uXXXX] escape, which groff and mandoc
// both read whatever encoding they assume for the file.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > unicode.MaxASCII:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeLine escapes a whole text line: roff takes a line starting with "."
// or "'" as a request, so such a line starts with the zero-width \&.
func escapeLine(s string) string {
	s = escape(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// quoteArg quotes an argument of a request (.TH): inside double quotes a
// double quote is written "".
func quoteArg(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `""`) + `"`
}
