package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
)

// setACL asks for the selected node's new ACL (the current one to edit),
// warns when it would take away the explorer's own ADMIN right, and sets
// it only if the ACL has not changed since it was read.
func (tp *treePage) setACL() tea.Cmd {
	p := tp.tree.selectedPath()
	if err := protected(p); err != nil {
		return failure(err)
	}
	d := tp.detail
	if d.path != p || d.aclFor != p || d.aclErr != nil || d.aclStat == nil {
		return failure(fmt.Errorf("the ACL of %s is not read yet (or may not be read)", p))
	}
	version, current := d.aclStat.Aversion, zkview.FormatACLSpec(d.acl)
	w, ctx, st, ids := tp.shared.Writer, tp.shared.Ctx, tp.shared.Styles, tp.shared.Client.Identities()
	return openDialog(widget.Ask("Set the ACL of "+display.Line(p), []string{
		fmt.Sprintf("Now (version %d): %s", version, display.Line(current)),
		"New ACL — scheme:id:perms, comma-separated, perms of cdrwa:",
		"world:anyone:r  digest:user:HASH:cdrwa (zkx digest user:password)  ip:10.0.0.0/8:r  auth::cdrwa"}, "acl> ", current, func(text string) tea.Cmd {
		acl, err := zkview.ParseACL(text)
		if err != nil {
			return failure(err)
		}
		set := func() tea.Cmd {
			return withTimeout(ctx, requestTimeout, func(ctx context.Context) tea.Msg {
				if _, err := w.SetACL(ctx, p, acl, version); err != nil {
					if zkview.IsBadVersion(err) {
						return statusMsg{text: fmt.Sprintf("%s's ACL changed since it was read (version %d): not set; look again", p, version), err: true}
					}
					return statusMsg{text: err.Error(), err: true}
				}
				return aclSetMsg{path: p, text: "ACL of " + p + " set to " + zkview.FormatACLSpec(acl)}
			})
		}
		if granted, unsure := zkview.GrantsAdmin(acl, ids); !granted {
			why := []string{"It grants ADMIN to none of this session's identities:", "the explorer could never change this ACL again (only a super user could)."}
			if unsure {
				why = []string{"It grants ADMIN only to ip entries, which may not include", "the address the server sees for this session."}
			}
			return openDialog(widget.Confirm("Set the ACL of "+display.Line(p), []string{
				display.Line(current + "  →  " + zkview.FormatACLSpec(acl)), "", st.Warning.Render(why[0]), st.Warning.Render(why[1]), "", "Set it anyway?"}, set))
		}
		return set()
	}))
}

// aclSetMsg says an ACL was set: the pane reads it again.
type aclSetMsg struct{ path, text string }
