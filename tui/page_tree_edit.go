package tui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/edit"
)

// The explorer's e: the node's data in the user's editor (zkview/edit),
// the explorer suspended meanwhile (tea.ExecProcess), then the checks and
// questions as dialogs. Reads and writes run in commands, never in Update.

// editBeganMsg is a node read for editing (or why it cannot be edited).
type editBeganMsg struct {
	edit *edit.Session
	err  error
}

// editorDoneMsg is the editor's exit.
type editorDoneMsg struct {
	edit *edit.Session
	err  error
}

// editSavedMsg is the outcome of a save.
type editSavedMsg struct {
	edit     *edit.Session
	data     []byte // what was written, or refused
	from     int32  // the version the save was conditional on
	to       int32
	conflict *edit.Conflict
	err      error
}

// maxConflictLines bounds the changes a conflict dialog shows.
const maxConflictLines = 16

// edit reads the selected node and opens it in the editor.
func (tp *treePage) edit() tea.Cmd {
	p := tp.tree.selectedPath()
	if err := protected(p); err != nil {
		return failure(err)
	}
	c := tp.shared.Client
	return withTimeout(tp.shared.Ctx, requestTimeout, func(ctx context.Context) tea.Msg {
		s, err := edit.Begin(ctx, c, p)
		return editBeganMsg{edit: s, err: err}
	})
}

// runEditor suspends the explorer and runs the editor on the session's file.
func (tp *treePage) runEditor(s *edit.Session) tea.Cmd {
	return tp.shared.Exec(edit.Command(s.File), func(err error) tea.Msg { return editorDoneMsg{edit: s, err: err} })
}

// onEdit takes the edit flow's messages.
func (tp *treePage) onEdit(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case editBeganMsg:
		if errors.Is(msg.err, edit.ErrBinary) {
			return failure(fmt.Errorf("%v (x shows it in hex)", msg.err))
		}
		if msg.err != nil {
			return failure(msg.err)
		}
		return tp.runEditor(msg.edit)
	case editorDoneMsg:
		if msg.err != nil {
			msg.edit.Close()
			return failure(fmt.Errorf("the editor (%s) failed: %w; nothing written", edit.Editor(), msg.err))
		}
		return tp.afterEditor(msg.edit)
	case editSavedMsg:
		return tp.afterSave(msg)
	}
	return nil
}

// afterEditor looks at what the editor left: nothing to do, broken JSON
// (ask), or data to write.
func (tp *treePage) afterEditor(s *edit.Session) tea.Cmd {
	outcome, data, err := s.Result()
	switch {
	case err != nil && outcome != edit.Invalid:
		s.Close()
		return failure(err)
	case outcome == edit.Unchanged:
		s.Close()
		return status(fmt.Sprintf("no change: %s left as it was (version %d)", s.Path, s.Version))
	case outcome == edit.Invalid:
		st := tp.shared.Styles
		body := []string{
			st.Error.Render(display.Line(err.Error())),
			"",
			"The data of " + display.Line(s.Path) + " was JSON: zkx writes it back only as JSON.",
		}
		return openDialog(widget.Choose("Not JSON any more", body, []widget.Choice{
			{Key: "e", Label: "edit again", Do: func() tea.Cmd { return tp.runEditor(s) }},
			{Key: "d", Label: "discard", Do: func() tea.Cmd { return tp.discard(s) }},
		}, func() tea.Cmd { return tp.discard(s) }))
	}
	return tp.save(s, data)
}

func (tp *treePage) discard(s *edit.Session) tea.Cmd {
	s.Close()
	return status("edit discarded: " + s.Path + " left as it was")
}

// save writes data conditionally on the version the edit started from.
func (tp *treePage) save(s *edit.Session, data []byte) tea.Cmd {
	c, from := tp.shared.Client, s.Version
	return withTimeout(tp.shared.Ctx, requestTimeout, func(ctx context.Context) tea.Msg {
		st, conflict, err := s.Save(ctx, c, data)
		m := editSavedMsg{edit: s, data: data, from: from, conflict: conflict, err: err}
		if st != nil {
			m.to = st.Version
		}
		return m
	})
}

// afterSave reports the write, or asks what to do about a node that
// changed meanwhile.
func (tp *treePage) afterSave(msg editSavedMsg) tea.Cmd {
	s := msg.edit
	switch {
	case msg.err != nil:
		return failure(fmt.Errorf("%w (your edit is kept in %s)", msg.err, s.File))
	case msg.conflict == nil:
		s.Close()
		return status(fmt.Sprintf("saved %s: version %d → %d", s.Path, msg.from, msg.to))
	case msg.conflict.Deleted:
		return failure(fmt.Errorf("%s was deleted while you edited: nothing written (your edit is kept in %s)", s.Path, s.File))
	}
	st := tp.shared.Styles
	c := msg.conflict
	body := []string{fmt.Sprintf("Someone changed it while you edited: version %d → %d. Their changes:", s.Version, c.CurrentVersion), ""}
	lines := edit.Hunks(c.Changes, 1)
	if len(lines) == 0 {
		lines = []string{"(the same data, written again: only the version moved)"}
	}
	if len(lines) > maxConflictLines {
		lines = append(lines[:maxConflictLines-1], fmt.Sprintf("… %d more lines", len(lines)-maxConflictLines+1))
	}
	for _, l := range lines {
		style := st.Dim
		switch {
		case len(l) > 0 && l[0] == '-':
			style = st.Error
		case len(l) > 0 && l[0] == '+':
			style = st.Info
		}
		body = append(body, style.Render(display.Line(l)))
	}
	body = append(body, "", "Overwrite theirs with yours, edit yours again (saved over their version), or discard yours?")
	return openDialog(widget.Choose(display.Line(s.Path)+" changed meanwhile", body, []widget.Choice{
		{Key: "o", Label: "overwrite theirs", Do: func() tea.Cmd { s.Adopt(c); return tp.save(s, msg.data) }},
		{Key: "e", Label: "edit again", Do: func() tea.Cmd { s.Adopt(c); return tp.runEditor(s) }},
		{Key: "d", Label: "discard", Do: func() tea.Cmd { return tp.discard(s) }},
	}, func() tea.Cmd { return tp.discard(s) }))
}
