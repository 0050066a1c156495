package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// What :server shows beside the members' live modes: the configuration
// the ensemble holds in /zookeeper/config (every member's role and peer
// addresses, the configuration's version) and who the servers take the
// explorer to be (whoAmI, 3.7+). Read when the page opens and on ctrl+r:
// neither changes but by a reconfig or a new login.

// membershipMsg is /zookeeper/config and whoAmI, read for :server.
type membershipMsg struct {
	owner   *serverPage
	members introspect.Membership
	memErr  error
	who     zkview.WhoAmI
	whoErr  error
}

// readMembership reads what the membership block shows.
func (p *serverPage) readMembership() tea.Cmd {
	c := p.shared.Client
	if c == nil {
		return nil
	}
	return withTimeout(p.pageCtx, requestTimeout, func(ctx context.Context) tea.Msg {
		m := membershipMsg{owner: p}
		data, _, err := c.ReadSystemNode(ctx, "/zookeeper/config")
		if err == nil {
			m.members, err = introspect.ParseMembership(data)
		}
		m.memErr = err
		m.who, m.whoErr = c.WhoAmI(ctx)
		return m
	})
}

// membershipLines draws the block: who we are, then the configuration.
func (p *serverPage) membershipLines() []string {
	st := p.shared.Styles
	m := p.membership
	if m == nil {
		return nil
	}
	var who string
	switch {
	case m.whoErr != nil:
		who = st.Error.Render(firstLine(m.whoErr.Error()))
	case !m.who.Known:
		who = st.Dim.Render("unknown: the server is older than 3.7 (no whoAmI)")
	case len(m.who.Identities) == 0:
		who = st.Dim.Render("no identity")
	default:
		var ids []string
		for _, id := range m.who.Identities {
			ids = append(ids, display.Line(id.Scheme+":"+id.User))
		}
		who = strings.Join(ids, ", ")
	}
	lines := []string{st.HeaderLabel.Render("you are ") + who + st.Dim.Render(" (whoAmI on "+display.Line(m.who.Server)+")")}
	switch {
	case m.memErr != nil:
		return append(lines, st.HeaderLabel.Render("configuration ")+st.Error.Render(firstLine(m.memErr.Error())))
	case len(m.members.Members) == 0:
		return append(lines, st.HeaderLabel.Render("configuration ")+st.Dim.Render("none in /zookeeper/config (a standalone server)"))
	}
	lines = append(lines, st.HeaderLabel.Render("configuration ")+st.Dim.Render(fmt.Sprintf("/zookeeper/config, version %s: %d members",
		display.Line(m.members.Version), len(m.members.Members))))
	for _, mem := range m.members.Members {
		client := mem.Client
		if client == "" {
			client = "static"
		}
		role := st.Info.Render(fmt.Sprintf("%-11s", mem.Role))
		if mem.Role == "observer" {
			role = st.Dim.Render(fmt.Sprintf("%-11s", mem.Role))
		}
		lines = append(lines, fmt.Sprintf("  server.%-3d %s quorum %s  election %s  client %s", mem.ID, role,
			display.Line(strings.Join(mem.Quorum, "|")), display.Line(strings.Join(mem.Election, "|")), display.Line(client)))
	}
	return lines
}
