package cmd

import (
	"net"
	"strings"
	"sync"
	"testing"
)

// TestFailFast: when every member refuses, zkx says so at once, one line
// per member, whatever --timeout is; a member that accepts the connection
// and stays silent is named once its answer is 4 s late (a ZooKeeper
// server answers at once), unless --timeout ends the wait first.
func TestFailFast(t *testing.T) {
	t.Parallel()
	_, _, err := run(t, "--server", "127.0.0.1:1,127.0.0.1:2", "--timeout", "60s", "ls", "/")
	if err == nil || strings.Contains(err.Error(), "--timeout") ||
		!strings.Contains(err.Error(), "127.0.0.1:1: connection refused") || !strings.Contains(err.Error(), "127.0.0.1:2: connection refused") {
		t.Errorf("every member refusing: %v, want one line each, before --timeout", err)
	}

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted, never answered
		}
	}()
	// The two waits on the silent member run at once.
	var shortErr error
	var waiting sync.WaitGroup
	waiting.Go(func() {
		_, _, shortErr = run(t, "--server", "127.0.0.1:1,"+silent.Addr().String(), "--timeout", "2s", "ls", "/")
	})
	_, _, err = run(t, "--server", "127.0.0.1:1,"+silent.Addr().String(), "--timeout", "60s", "ls", "/")
	waiting.Wait()
	if shortErr == nil || !strings.Contains(shortErr.Error(), "--timeout 2s reached") {
		t.Errorf("a silent member, --timeout 2s: %v, want --timeout to end it", shortErr)
	}
	if err == nil || strings.Contains(err.Error(), "--timeout") || !strings.Contains(err.Error(), "127.0.0.1:1: connection refused") ||
		!strings.Contains(err.Error(), silent.Addr().String()+": does not speak ZooKeeper: no answer to the session request within 4s") {
		t.Errorf("a silent member, --timeout 60s: %v, want it named with the other", err)
	}
}
