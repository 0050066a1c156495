package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/edit"
)

// errNotSaved ends zkx edit when the user chose to keep the node as it is
// after an edit that could not be written as it was.
var errNotSaved = errors.New("nothing written")

// editOptions are zkx edit's flags and argument.
type editOptions struct {
	globals *globalOptions
	timeout time.Duration // each read or write to the server
	path    string
}

func newEditCommand(g *globalOptions, run runFunc[*editOptions]) *cobra.Command {
	opts := &editOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "edit PATH",
		Short: "Edit a node's data in your editor ($ZKX_EDITOR, $EDITOR, vi)",
		Long: `edit opens the node's data in an editor — $ZKX_EDITOR, else $EDITOR, else vi, run
through sh so that "code --wait" works — and writes what you save back to the
node, as kubectl edit does:

  - data that was a JSON object or array must still be JSON: on a parse error
    zkx names the line and column and asks whether to edit again or discard;
  - the write is conditional on the version read: if the node changed while you
    edited, zkx shows what changed (a line diff of theirs against what you
    started from) and asks whether to overwrite it with yours, edit again, or
    discard;
  - binary data (not UTF-8 text) is refused: zkx edits text only (zkx get
    --decode hex shows it);
  - a file saved unchanged writes nothing.

Answers are read from stdin (e, o, d and enter). Exit status: 0 when the node was
written or left unchanged, 1 when you discarded an edit or it failed. With
--readonly, edit is refused.`,
		Example: `  zkx edit /app/config
  ZKX_EDITOR=nano zkx edit /app/feature-flags`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, run),
	}
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 30*time.Second, "give up on each read or write to the server after this long")
	return cmd
}

func (o *editOptions) complete(args []string) (err error) {
	if o.path, err = checkPath(args[0]); err != nil {
		return err
	}
	if o.globals.readonly {
		return fmt.Errorf("--readonly: zkx edit writes")
	}
	return nil
}

// runEdit edits the data of opts.path in the user's editor and writes it
// back, asking on stdin what to do when it cannot be written as it is.
func runEdit(ctx context.Context, opts *editOptions, std streams) error {
	dialCtx, cancel := context.WithTimeout(ctx, opts.timeout)
	c, err := opts.globals.dial(dialCtx)
	cancel()
	if err != nil {
		return timedOut(err, opts.timeout)
	}
	defer c.Close()
	e := &editRun{client: c, timeout: opts.timeout, in: bufio.NewReader(std.in), stdin: std.in, out: std.out, errOut: std.errOut}
	return e.run(ctx, opts.path)
}

// editRun is one zkx edit: the editor, the checks, the questions.
type editRun struct {
	client  *zkview.Client
	timeout time.Duration
	in      *bufio.Reader // answers
	stdin   io.Reader     // the editor's, when it is a terminal
	out     io.Writer
	errOut  io.Writer
}

func (e *editRun) run(ctx context.Context, p string) error {
	rctx, cancel := context.WithTimeout(ctx, e.timeout)
	s, err := edit.Begin(rctx, e.client, p)
	cancel()
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		if err := e.editor(s.File); err != nil {
			return err
		}
		outcome, data, err := s.Result()
		switch {
		case outcome == edit.Unchanged && err == nil:
			fmt.Fprintf(e.out, "no change: %s left as it was (version %d)\n", cliout.Clean(p), s.Version)
			return nil
		case outcome == edit.Invalid:
			fmt.Fprintf(e.errOut, "zkx: %s: %v\n", cliout.Clean(p), err)
			if e.ask("(e)dit again or (d)iscard? ", "ed") == 'e' {
				continue
			}
			return fmt.Errorf("%s: %w: the edit was not JSON", p, errNotSaved)
		case err != nil:
			return err
		}
		again, err := e.save(ctx, s, data)
		if err != nil || !again {
			return err
		}
	}
}

// save writes data, asking on a conflict; again asks for another edit.
func (e *editRun) save(ctx context.Context, s *edit.Session, data []byte) (again bool, err error) {
	for {
		wctx, cancel := context.WithTimeout(ctx, e.timeout)
		st, conflict, err := s.Save(wctx, e.client, data)
		cancel()
		if err != nil {
			return false, fmt.Errorf("%w (your edit is in %s until zkx ends)", err, s.File)
		}
		if conflict == nil {
			fmt.Fprintf(e.out, "saved %s: version %d → %d, %s\n", cliout.Clean(s.Path), s.Version, st.Version, plural(len(data), "byte"))
			return false, nil
		}
		if conflict.Deleted {
			return false, fmt.Errorf("%s was deleted while you edited: %w", s.Path, errNotSaved)
		}
		fmt.Fprintf(e.errOut, "zkx: %s changed while you edited (version %d → %d); their changes:\n", cliout.Clean(s.Path), s.Version, conflict.CurrentVersion)
		for _, l := range conflictLines(conflict) {
			fmt.Fprintf(e.errOut, "  %s\n", cliout.Clean(l))
		}
		switch e.ask("(o)verwrite theirs with yours, (e)dit again, or (d)iscard? ", "oed") {
		case 'o':
			s.Adopt(conflict)
			continue
		case 'e':
			s.Adopt(conflict)
			return true, nil
		}
		return false, fmt.Errorf("%s: %w: it changed while you edited", s.Path, errNotSaved)
	}
}

// conflictLines are what changed meanwhile, in a few lines.
func conflictLines(c *edit.Conflict) []string {
	lines := edit.Hunks(c.Changes, 2)
	if len(lines) == 0 {
		return []string{"(the same data, written again: only the version moved)"}
	}
	const most = 40
	if len(lines) > most {
		lines = append(lines[:most], fmt.Sprintf("… %d more lines", len(lines)-most))
	}
	return lines
}

// editor runs the editor on file, on the terminal when there is one.
func (e *editRun) editor(file string) error {
	cmd := edit.Command(file)
	if f, ok := e.stdin.(*os.File); ok {
		cmd.Stdin = f // a terminal; a pipe's bytes are the answers, not the editor's
	}
	cmd.Stdout, cmd.Stderr = e.out, e.errOut
	if f, ok := e.out.(*os.File); ok {
		cmd.Stdout = f
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the editor (%s) failed: %w; the node was not changed", display.Line(edit.Editor()), err)
	}
	return nil
}

// ask asks a question until one of choices is answered; end of input is
// the last choice (discard).
func (e *editRun) ask(question, choices string) byte {
	for {
		fmt.Fprint(e.errOut, question)
		line, err := e.in.ReadString('\n')
		answer := strings.ToLower(strings.TrimSpace(line))
		if len(answer) == 1 && strings.Contains(choices, answer) {
			return answer[0]
		}
		if err != nil {
			fmt.Fprintln(e.errOut)
			return choices[len(choices)-1]
		}
	}
}
