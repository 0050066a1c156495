package zkdial

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// Probe asks the new session one cheap question (does / exist?) until it
// is answered, waiting at most until ctx ends. A server that requires
// SASL of every session answers an unauthenticated one with error -124
// and closes it, which go-zookeeper reports as an unknown error and
// answers by reconnecting forever; the watch saw the -124 first, so the
// probe returns its named error instead, as it does any other failure the
// watch gave up on. A connection lost meanwhile is asked again once
// go-zookeeper has reconnected: a server that opens sessions and then
// says nothing is named when ctx ends, not taken for one that answers.
func Probe(ctx context.Context, conn *zk.Conn, w *Watch) error {
	for {
		done := make(chan error, 1)
		go func() {
			_, _, err := conn.Exists("/")
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				return nil
			}
			select {
			case abort := <-w.Abort():
				return abort
			default:
			}
			if fatal := w.Fatal(); fatal != nil {
				return fatal
			}
			if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrNoServer) && !errors.Is(err, zk.ErrSessionExpired) {
				return nil // answered, if not as asked
			}
			select { // go-zookeeper reconnects; ask again
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return probeEnded(ctx, w)
			}
		case abort := <-w.Abort():
			return abort
		case <-ctx.Done():
			return probeEnded(ctx, w)
		}
	}
}

// probeEnded names what the probe was waiting for when ctx ended.
func probeEnded(ctx context.Context, w *Watch) error {
	u, b := w.Unanswered(), w.Broken()
	switch {
	case u != "" && b != nil:
		return fmt.Errorf("%s (the connection before: %v): %w", u, b, ctx.Err())
	case u != "":
		return fmt.Errorf("%s: %w", u, ctx.Err())
	case b != nil:
		return fmt.Errorf("%v: %w", b, ctx.Err())
	}
	return fmt.Errorf("no answer to a first request (exists /): %w", ctx.Err())
}
