package recognize

import (
	"context"
	"net/netip"
	"strings"
)

// Group recipes: who is a member, each by an ephemeral node of its own
// session, so a member's node goes when its session does.
//
//   - Kazoo's Party (kazoo/recipe/party.py): <path>/<uuid4 hex>__party__,
//     ephemeral, holding the member's identifier; Party lists only the
//     children whose name contains "__party__".
//   - Kazoo's ShallowParty: <path>/<uuid4 hex>-<identifier>, ephemeral; the
//     identifier is the name after the first '-' (ShallowParty.__iter__),
//     and the node holds it too (BaseParty's data).
//   - Curator's GroupMember (curator-recipes nodes/GroupMember.java): a
//     PersistentNode in EPHEMERAL mode, unprotected, at
//     ZKPaths.makePath(membershipPath, thisId), holding the member's payload
//     (by default CuratorFrameworkFactory.getLocalAddress(), the host's
//     address as text). Its names are the members' own ids, so nothing in
//     them tells it from any directory of ephemeral members: zkx calls such
//     a directory a group-member group, of format curator when every payload
//     is an address (GroupMember's default), zkx when every one is zkx's
//     "host pid" (its recipes' GroupMember), generic otherwise.

// The kinds of Group a library writes.
const (
	GroupParty        = "party"
	GroupShallowParty = "shallow-party"
	GroupMember       = "group-member"
)

// kazooPartyMark ends a Kazoo Party member's name (Party._NODE_NAME).
const kazooPartyMark = "__party__"

// recGroupMembers bounds the members of a group of ephemeral nodes that
// are read.
const recGroupMembers = 1000

// party builds a Kazoo Party or ShallowParty: its members, in name order,
// each with its identifier as data. The other children are foreign: Party
// does not list them, ShallowParty counts them as members.
func (rc *recognizer) party(ctx context.Context, d listedDir, members, foreign []childName) (Recipe, error) {
	kind, shallow, full := GroupParty, 0, 0
	for _, m := range members {
		if m.Kind == kindShallowMember {
			shallow++
		} else {
			full++
		}
	}
	if shallow > full {
		kind = GroupShallowParty
	}
	ms, err := rc.readMembers(ctx, d.path, members)
	if err != nil {
		return nil, err
	}
	g := &Group{Path: d.path, Format: recFormatKazoo, Kind: kind, Members: []Contender{}}
	b := rc.build(d.path)
	for _, m := range ms {
		c := b.contender(m, m.Name)
		if m.Kind == kindShallowMember {
			c.Data = dataText([]byte(m.ID))
		}
		if m.session() == 0 {
			b.warnf("member %s is a persistent node: Kazoo creates members ephemeral, so it stays when its process goes", m.Name)
		} else {
			b.checkConnected(c, "member")
		}
		g.Members = append(g.Members, c)
	}
	if shallow > 0 && full > 0 {
		b.warnf("%d Party and %d ShallowParty members in one directory: Party lists only its own (__party__), ShallowParty counts every child", full, shallow)
	}
	if kind == GroupShallowParty {
		b.checkForeign(foreign, "", "kazoo shallow party (ShallowParty counts every child as a member)")
	} else {
		b.checkForeign(foreign, "", "kazoo party")
	}
	g.Warnings = b.warn
	return g, nil
}

// allForeign reports whether d has children and none of them follows a
// layout zkx knows: the names of a group whose members name themselves.
func (d listedDir) allForeign() bool {
	if len(d.names) == 0 {
		return false
	}
	for _, n := range d.names {
		if n.Kind != kindForeign || EphemeralNodeName(n.Name) {
			return false
		}
	}
	return true
}

// ephemeralGroup recognises a directory whose children are all ephemeral
// and named by nothing zkx knows as a group of members (Curator's
// GroupMember lays members out so). The first child is read first: a
// persistent one ends it at one read, as most such directories are
// configuration or data.
func (rc *recognizer) ephemeralGroup(ctx context.Context, d listedDir) (Recipe, error) {
	if !d.allForeign() || len(d.names) > recGroupMembers || isClickHouseActive(d.path) {
		return nil, nil
	}
	ms, persistent, err := rc.readEphemeral(ctx, d.path, d.names, nil)
	if err != nil || len(ms) == 0 || len(persistent) > 0 {
		return nil, err
	}
	format := recFormatCurator
	for _, m := range ms {
		if !isAddress(m.data) {
			format = recFormatGeneric
		}
	}
	if format == recFormatGeneric {
		format = dataFormat(ms, recFormatGeneric) // zkx's GroupMember: "host pid"
	}
	g := &Group{Path: d.path, Format: format, Kind: GroupMember, Members: []Contender{}}
	b := rc.build(d.path)
	for _, m := range ms {
		c := b.contender(m, m.Name)
		b.checkConnected(c, "member")
		g.Members = append(g.Members, c)
	}
	g.Warnings = b.warn
	return g, nil
}

// isAddress reports whether data is an IP address as text: Curator's
// default payload (CuratorFrameworkFactory.getLocalAddress).
func isAddress(data []byte) bool {
	if len(data) == 0 || len(data) > 64 {
		return false
	}
	_, err := netip.ParseAddr(strings.TrimSpace(string(data)))
	return err == nil
}
