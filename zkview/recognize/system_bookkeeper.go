package recognize

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/zkx-dev/zkx/zkview/decode"
)

// Apache BookKeeper under its ledgers root (/ledgers by default;
// bookkeeper-server ZKRegistrationManager.java, ZkLedgerAuditorManager.java):
//
//	available/<bookie>            ephemeral: a writable bookie, BookieServiceInfoFormat
//	                              (DataFormats.proto) listing its endpoints
//	available/readonly/<bookie>   ephemeral: a read-only bookie
//	underreplication/auditorelection/V_SEQ   the auditor election: ephemeral
//	    sequential, AuditorVoteFormat in protobuf text ("bookieId: \"host:3181\"");
//	    the lowest is the auditor, the others watch their predecessor; the
//	    election node's own data is the elected auditor's vote
const bookkeeperSystemName = "bookkeeper"

var bookkeeperSystem = systemRecognizer{
	name: bookkeeperSystemName,
	candidate: func(d listedDir) bool {
		b := base(d.path)
		return b == "available" || (b == "readonly" && parent(d.path) == "available") ||
			(b == "auditorelection" && parent(d.path) == "underreplication")
	},
	recognize: func(rc *recognizer, ctx context.Context, d listedDir) (Recipe, bool, error) {
		switch base(d.path) {
		case "auditorelection":
			return rc.bookkeeperAuditor(ctx, d)
		case "readonly":
			return rc.bookkeeperBookies(ctx, d, "readonly-bookies", up(d.path, 2))
		}
		return rc.bookkeeperBookies(ctx, d, "available-bookies", path.Dir(d.path))
	},
}

// bookieText shows a bookie's registration: its endpoints.
func bookieText(name string, data []byte) string {
	msg, err := decode.ParseProtobuf(data)
	if err != nil {
		return ""
	}
	var eps []string
	for _, ep := range msg.Messages(6) {
		proto, _ := ep.String(4)
		host, _ := ep.String(3)
		port, _ := ep.Uint(2)
		eps = append(eps, fmt.Sprintf("%s://%s:%d", proto, host, int32(port)))
	}
	return strings.Join(eps, ",")
}

func (rc *recognizer) bookkeeperBookies(ctx context.Context, d listedDir, role, root string) (Recipe, bool, error) {
	for _, n := range d.names {
		if n.Name != "readonly" && !strings.Contains(n.Name, ":") {
			return nil, false, nil // bookies are host:port
		}
	}
	if len(d.names) == 0 || (len(d.names) == 1 && d.names[0].Name == "readonly") {
		// Empty: BookKeeper's only when the ledgers root has its LAYOUT.
		if _, st, err := rc.get(ctx, path.Join(root, "LAYOUT")); err != nil || st == nil {
			return nil, err != nil, err
		}
	}
	g, err := rc.group(ctx, d, bookkeeperSystemName, SystemTag{System: bookkeeperSystemName, Role: role, SystemRoot: root}, bookieText, "readonly")
	return g, true, err
}

// auditorVote reads AuditorVoteFormat's text form: the bookie id.
func auditorVote(data []byte) (string, bool) {
	s := strings.TrimSpace(string(data))
	v, ok := strings.CutPrefix(s, "bookieId:")
	if !ok {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(v), `"`), true
}

func (rc *recognizer) bookkeeperAuditor(ctx context.Context, d listedDir) (Recipe, bool, error) {
	var votes, foreign []childName
	for _, n := range d.names {
		if n.HasSeq && strings.HasPrefix(n.Name, "V_") {
			votes = append(votes, n)
		} else {
			foreign = append(foreign, n)
		}
	}
	sortBySeq(votes)
	ms, err := rc.readMembers(ctx, d.path, votes)
	if err != nil {
		return nil, true, err
	}
	e := &Election{Path: d.path, Format: bookkeeperSystemName, Candidates: []Contender{},
		SystemTag: SystemTag{System: bookkeeperSystemName, Role: "auditor", SystemRoot: up(d.path, 2)}}
	b := rc.build(d.path)
	for i, m := range ms {
		id, _ := auditorVote(m.data)
		if i == 0 {
			leader := b.holder(m, m.Name, "auditor", false)
			leader.Data = id
			e.Leader = &leader
			continue
		}
		c := b.waiter(m, m.Name, ms[i-1].Name, true)
		c.Data = id
		e.Candidates = append(e.Candidates, c)
	}
	b.checkForeign(foreign, "", "auditor election")
	if data, stat, err := rc.get(ctx, d.path); err == nil && stat != nil && e.Leader != nil {
		if elected, ok := auditorVote(data); ok && elected != e.Leader.Data {
			b.warnf("the election node names %s as auditor but %s is first in line", elected, e.Leader.Data)
		}
	}
	e.Alarms = b.leaderAlarms(e)
	e.Warnings = b.warn
	return e, true, nil
}
