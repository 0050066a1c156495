package introspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/zkx-dev/zkx/internal/netfail"
	"github.com/zkx-dev/zkx/internal/zktls"
)

// maxFourLetterAnswer bounds what zkview reads of one answer: wchp or dump
// of a server with millions of watches or ephemerals is large, but not
// unbounded.
const maxFourLetterAnswer = 256 << 20

// errWordRefused marks a four-letter word missing from the member's
// 4lw.commands.whitelist.
var errWordRefused = errors.New("not in 4lw.commands.whitelist")

// askFourLetter sends cmd to the member at addr (over TLS when o.TLS is
// set, through o.Dial when that is) and reads its answer until the member
// closes the connection. The whole exchange, connect included, ends within
// timeout (or when ctx does); a failure is said in plain words (netfail:
// "no answer within 2s", "connection refused"). A refusal is returned as
// errWordRefused. Errors do not repeat cmd and addr: Problem adds them.
func askFourLetter(ctx context.Context, addr, cmd string, timeout time.Duration, o Options) (string, error) {
	ctx, cancel := netfail.Within(ctx, timeout)
	defer cancel()
	var conn net.Conn
	var err error
	switch {
	case o.Dial != nil:
		conn, err = o.Dial(ctx, addr)
	case o.TLS != nil: // a secure client port answers four-letter words over TLS too
		conn, err = zktls.Dial(ctx, o.TLS, addr, timeout)
	default:
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return "", netfail.Describe(ctx, err, timeout)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", netfail.Describe(ctx, err, timeout)
	}
	b, err := io.ReadAll(io.LimitReader(conn, maxFourLetterAnswer+1))
	if err != nil {
		return "", netfail.Describe(ctx, err, timeout)
	}
	if len(b) > maxFourLetterAnswer {
		return "", fmt.Errorf("answer longer than %d MiB", maxFourLetterAnswer>>20)
	}
	text := string(b)
	if refusedWord(cmd, text) {
		return text, errWordRefused
	}
	return text, nil
}
