// Package zksession opens the go-zookeeper sessions the scripts' load
// generators work on: quiet, and returned only once the server has given
// a session.
package zksession

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// Open connects to servers (comma-separated HOST:PORT) and waits up to
// wait for a session; the connection's later events are drained.
func Open(servers string, wait time.Duration) (*zk.Conn, error) {
	conn, events, err := zk.Connect(strings.Split(servers, ","), 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		return nil, err
	}
	timeout := time.After(wait)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				go func() {
					for range events { // keep the channel drained
					}
				}()
				return conn, nil
			}
		case <-timeout:
			conn.Close()
			return nil, fmt.Errorf("no session with %s within %v", servers, wait)
		}
	}
}

// quiet drops go-zookeeper's log lines: the scripts print their own.
type quiet struct{}

func (quiet) Printf(string, ...any) {}
