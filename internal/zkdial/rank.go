package zkdial

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/zktls"
)

// DefaultRankWithin is how long Rank waits for a member to answer when
// not told: ZooKeeper answers a four-letter word in milliseconds.
const DefaultRankWithin = 2 * time.Second

// Rank orders members for a session's first connection by how they answer
// srvr, asked of all at once (over TLS when o says so; ZooKeeper answers
// it whatever its whitelist): first those that serve, in the order they
// answered; then those that answered otherwise (a refusal; a read-only
// member, which a session that is not read-only cannot use; one not
// serving, out of its quorum); then the rest, silent or refusing
// connections, as written. go-zookeeper tries members in order and waits
// out its own connect timeout on each one that does not answer; ranked,
// its first try is a member that answers. Rank returns as soon as a member
// serves, when every member has answered, or after within (or when ctx
// ends): a frozen member costs at most within, once. A single member is
// returned as it is, unasked.
func Rank(ctx context.Context, members []string, o Options, within time.Duration) []string {
	if len(members) < 2 {
		return append([]string(nil), members...)
	}
	if within <= 0 {
		within = DefaultRankWithin
	}
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	type answer struct {
		member string
		rank   memberRank
	}
	answers := make(chan answer, len(members))
	var wg sync.WaitGroup
	for _, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers <- answer{m, askRank(ctx, m, o, within)}
		}()
	}
	go func() {
		wg.Wait()
		close(answers)
	}()
	var serving, other []string
	seen := map[string]bool{}
wait:
	for {
		select {
		case a, ok := <-answers:
			if !ok {
				break wait
			}
			seen[a.member] = true
			switch a.rank {
			case rankServing:
				serving = append(serving, a.member)
				break wait
			case rankAnswered:
				other = append(other, a.member)
			default:
				seen[a.member] = false // silent: with the rest, as written
			}
		case <-ctx.Done():
			break wait
		}
	}
	out := append(serving, other...)
	for _, m := range members {
		if !seen[m] {
			out = append(out, m)
		}
	}
	return out
}

// memberRank is how a member answered srvr.
type memberRank int

const (
	rankServing  memberRank = iota // "Mode: leader", follower, observer, standalone
	rankAnswered                   // a refusal, read-only, not serving
	rankSilent                     // no answer, refused, not ZooKeeper
)

// askRank asks one member srvr and ranks its answer.
func askRank(ctx context.Context, member string, o Options, within time.Duration) memberRank {
	var conn net.Conn
	var err error
	if o.TLS != nil {
		conn, err = zktls.Dial(ctx, o.TLS, member, within)
	} else {
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", member)
	}
	if err != nil {
		return rankSilent
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := io.WriteString(conn, "srvr"); err != nil {
		return rankSilent
	}
	b, err := io.ReadAll(io.LimitReader(conn, 4096))
	text := string(b)
	switch {
	case err != nil && len(b) == 0:
		return rankSilent
	case strings.Contains(text, "Mode: read-only"):
		return rankAnswered
	case strings.Contains(text, "Mode: "):
		return rankServing
	case len(b) > 0:
		return rankAnswered
	}
	return rankSilent
}
