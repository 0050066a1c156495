package zktest

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Conn opens a go-zookeeper session to connect (host:port[,host:port…]), waits until it has a
// session, drains its events, and closes it when tb ends.
func Conn(tb testing.TB, connect string) *zk.Conn {
	tb.Helper()
	conn, events, err := zk.Connect(strings.Split(connect, ","), 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		tb.Fatalf("zktest: connect to %s: %v", connect, err)
	}
	tb.Cleanup(conn.Close)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				go func() {
					for range events {
					}
				}()
				return conn
			}
		case <-deadline:
			tb.Fatalf("zktest: no session with %s within 30s", connect)
		}
	}
}
