package syslayout

import (
	"context"
	"fmt"
	"path"
)

// BookKeeper lays out a BookKeeper cluster's metadata under root (the
// ledgers root, /ledgers by default), as bookkeeper-server ZKRegistration
// Manager.java and ZkLedgerAuditorManager.java write it: available/<bookie>
// (ephemeral, BookieServiceInfoFormat from bookkeeper-proto DataFormats
// .proto), available/readonly/<bookie> for a read-only bookie, and the
// auditor election underreplication/auditorelection/V_SEQ (ephemeral
// sequential, AuditorVoteFormat in protobuf text format; each voter watches
// its predecessor with exists; the winner writes its vote on the election
// node itself).
func (l *Layout) BookKeeper(ctx context.Context, root string) error {
	info := func(host string) PB {
		ep := PB{}.String(1, "bookie").Int(2, 3181).String(3, host).String(4, "bookie-rpc")
		prop := PB{}.String(1, "autorecovery.enabled").String(2, "true")
		return PB{}.Message(6, ep).Message(7, prop)
	}
	for i := 1; i <= 2; i++ {
		host := fmt.Sprintf("bookie-%d", i)
		if _, err := l.ephemeral(ctx, host, path.Join(root, "available", host+":3181"), info(host), false); err != nil {
			return err
		}
	}
	if err := l.persistent(ctx, path.Join(root, "available/readonly"), nil); err != nil {
		return err
	}
	if _, err := l.ephemeral(ctx, "bookie-3", path.Join(root, "available/readonly/bookie-3:3181"), info("bookie-3"), false); err != nil {
		return err
	}
	election := path.Join(root, "underreplication/auditorelection")
	vote := func(host string) []byte { return []byte(fmt.Sprintf("bookieId: \"%s:3181\"\n", host)) }
	var prev string
	for i := 1; i <= 2; i++ {
		host := fmt.Sprintf("bookie-%d", i)
		p, err := l.ephemeral(ctx, host, path.Join(election, "V_"), vote(host), true)
		if err != nil {
			return err
		}
		if prev != "" {
			if err := l.watch(host, prev); err != nil {
				return err
			}
		}
		prev = p
	}
	return l.persistent(ctx, election, vote("bookie-1"))
}
