package tui

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/fileread"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/transfer"
)

// transferTimeout bounds an export, import, copy or move from the
// explorer.
const transferTimeout = 30 * time.Minute

// exportFile asks for a file and writes the selected subtree to it.
func (tp *treePage) exportFile() tea.Cmd {
	root := tp.tree.selectedPath()
	name := strings.TrimPrefix(strings.ReplaceAll(root, "/", "_"), "_")
	if name == "" {
		name = "root"
	}
	c, ctx := tp.shared.Client, tp.shared.Ctx
	return openDialog(widget.Ask("Export "+display.Line(root), []string{
		"Write " + display.Line(root) + " and everything below it (data, ACLs, stat) as JSON Lines to:",
		"(zkx import FILE recreates it; an existing file is not overwritten)"}, "file> ", name+".jsonl", func(file string) tea.Cmd {
		return tea.Batch(status("exporting "+root+" to "+file+"…"), withTimeout(ctx, transferTimeout, func(ctx context.Context) tea.Msg {
			f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return statusMsg{text: fmt.Sprintf("export: %v (choose another name)", err), err: true}
			}
			var r zkview.Reader = c
			if bulk, err := c.DialBulk(ctx, 4); err == nil {
				defer bulk.Close()
				r = bulk
			}
			st, err := transfer.Export(ctx, r, root, f, transfer.ExportOptions{Server: c.Server()})
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return statusMsg{text: fmt.Sprintf("export of %s stopped after %d nodes: %v (%s is incomplete)", root, st.Nodes, err, file), err: true}
			}
			return statusMsg{text: fmt.Sprintf("exported %s nodes of %s to %s (%d ephemeral, %d unreadable)", display.Count(st.Nodes), root, file, st.Ephemeral, st.Unreadable),
				err: st.Unreadable > 0}
		}))
	}))
}

// importFile asks for an export and where it goes, shows what a dry run
// says would change, and imports on confirmation.
func (tp *treePage) importFile() tea.Cmd {
	dir := tp.tree.selectedPath()
	w := tp.shared.Writer
	return openDialog(widget.Ask("Import under "+display.Line(dir), []string{
		"An export file (zkx export): its root is recreated under " + display.Line(dir) + ".",
		"Nodes that exist are refused and left as they are."}, "file> ", "", func(file string) tea.Cmd {
		return tp.importPlan(w, dir, file)
	}))
}

func (tp *treePage) importPlan(w *zkview.Writer, dir, file string) tea.Cmd {
	ctx := tp.shared.Ctx
	st := tp.shared.Styles
	return func() tea.Msg {
		src, err := openExport(file)
		if err != nil {
			return statusMsg{text: err.Error(), err: true}
		}
		to := zkview.ChildPath(dir, path.Base(src.Root()))
		if src.Root() == "/" {
			to = dir
		}
		plan, err := runImport(ctx, w, file, transfer.ImportOptions{To: to, DryRun: true})
		if err != nil {
			return statusMsg{text: "import: " + err.Error(), err: true}
		}
		body := []string{
			fmt.Sprintf("Import %s as %s:", file, display.Line(to)),
			fmt.Sprintf("  create %s nodes", display.Count(plan.Created)),
		}
		if plan.Refused > 0 {
			body = append(body, st.Warning.Render(fmt.Sprintf("  refuse %s (they exist or cannot be written; first: %s: %s)",
				display.Count(plan.Refused), display.Line(plan.Refusals[0].Path), plan.Refusals[0].Reason)))
		}
		if plan.Ephemeral > 0 {
			body = append(body, fmt.Sprintf("  leave out %d ephemeral nodes", plan.Ephemeral))
		}
		return openDialogMsg{dialog: widget.Confirm("Import", body, func() tea.Cmd {
			return tea.Batch(status("importing "+file+"…"), func() tea.Msg {
				rep, err := runImport(ctx, w, file, transfer.ImportOptions{To: to})
				if err != nil {
					return statusMsg{text: "import: " + err.Error(), err: true}
				}
				return statusMsg{text: fmt.Sprintf("imported %s: created %s, refused %d", file, display.Count(rep.Created), rep.Refused), err: rep.Refused > 0}
			})
		})}
	}
}

func openExport(file string) (transfer.Source, error) {
	f, err := fileread.Open(file)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	src, err := transfer.ReadFile(f)
	if err != nil {
		return nil, fmt.Errorf("import: %s: %w", file, err)
	}
	return src, nil
}

// runImport imports (or plans) a file with a bulk writer of its own.
func runImport(ctx context.Context, w *zkview.Writer, file string, opts transfer.ImportOptions) (transfer.Report, error) {
	ctx, cancel := context.WithTimeout(ctx, transferTimeout)
	defer cancel()
	f, err := fileread.Open(file)
	if err != nil {
		return transfer.Report{}, err
	}
	defer f.Close()
	src, err := transfer.ReadFile(f)
	if err != nil {
		return transfer.Report{}, err
	}
	bw, err := w.DialBulk(ctx)
	if err != nil {
		return transfer.Report{}, err
	}
	defer bw.Close()
	return transfer.Import(ctx, bw, src, opts)
}

// copyOrMove asks where to, names what will change, and copies or moves.
func (tp *treePage) copyOrMove(move bool) tea.Cmd {
	src := tp.tree.selectedPath()
	verb := "Copy"
	if move {
		verb = "Move"
	}
	if err := transfer.CheckDestination(src, src+"-copy"); err != nil {
		return failure(err)
	}
	if err := protected(src); err != nil {
		return failure(err)
	}
	c, w, ctx, st := tp.shared.Client, tp.shared.Writer, tp.shared.Ctx, tp.shared.Styles
	return openDialog(widget.Ask(verb+" "+display.Line(src), []string{
		verb + " " + display.Line(src) + " and everything below it (data and ACLs) to:"}, "to> ", src+"-copy", func(to string) tea.Cmd {
		dst, err := zkview.CheckPath(to)
		if err == nil {
			err = transfer.CheckDestination(src, dst)
		}
		if err != nil {
			return failure(err)
		}
		return tea.Batch(status("reading "+src+"…"), withTimeout(ctx, transferTimeout, func(sctx context.Context) tea.Msg {
			survey, err := transfer.SurveyTree(sctx, c, src)
			if err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			body := []string{fmt.Sprintf("%s %s nodes from %s to %s.", verb, display.Count(survey.Nodes), display.Line(src), display.Line(dst)),
				"Nothing at " + display.Line(dst) + " is overwritten: nodes that exist there are refused."}
			if move {
				body = append(body, "Then "+display.Line(src)+" is deleted — only if every node was copied, and only as it was copied.")
			}
			if survey.Unreadable > 0 {
				body = append(body, st.Warning.Render(fmt.Sprintf("%d nodes cannot be read and will not be copied.", survey.Unreadable)))
				if move {
					return statusMsg{text: fmt.Sprintf("%s: %d nodes cannot be read: nothing is moved", src, survey.Unreadable), err: true}
				}
			}
			if survey.Ephemeral > 0 {
				body = append(body, st.Warning.Render(fmt.Sprintf("%d ephemeral nodes are left out (they cannot be recreated as their owner's)%s.",
					survey.Ephemeral, map[bool]string{true: " and DELETED with the source: their owners lose them"}[move])))
			}
			return openDialogMsg{dialog: widget.Confirm(verb, body, func() tea.Cmd {
				return tea.Batch(status(strings.ToLower(verb)+"ing "+src+"…"), withTimeout(ctx, transferTimeout, func(ctx context.Context) tea.Msg {
					return copyOrMoveNow(ctx, c, w, src, dst, move)
				}))
			})}
		}))
	}))
}

// copyOrMoveNow copies or moves src to dst, within ctx's time.
func copyOrMoveNow(ctx context.Context, c *zkview.Client, w *zkview.Writer, src, dst string, move bool) tea.Msg {
	bw, err := w.DialBulk(ctx)
	if err != nil {
		return statusMsg{text: err.Error(), err: true}
	}
	defer bw.Close()
	var r zkview.Reader = c
	if bulk, err := c.DialBulk(ctx, 4); err == nil {
		defer bulk.Close()
		r = bulk
	}
	if !move {
		rep, err := transfer.Copy(ctx, r, bw, src, dst, transfer.CopyOptions{})
		if err != nil {
			return statusMsg{text: "copy: " + err.Error(), err: true}
		}
		return statusMsg{text: fmt.Sprintf("copied %s to %s: created %s, refused %d", src, dst, display.Count(rep.Created), rep.Refused), err: rep.Refused > 0}
	}
	rep, err := transfer.Move(ctx, r, bw, src, dst, transfer.CopyOptions{Force: true})
	switch {
	case err != nil:
		return statusMsg{text: "move: " + err.Error(), err: true}
	case rep.Kept != "":
		return statusMsg{text: fmt.Sprintf("copied %s to %s (%d nodes) but kept the source: %s", src, dst, rep.Copy.Created, rep.Kept), err: true}
	}
	return statusMsg{text: fmt.Sprintf("moved %s to %s (%s nodes)", src, dst, display.Count(rep.Deleted))}
}
