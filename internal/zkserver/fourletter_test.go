package zkserver_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestFourLetterWordsUnderLoad asks every four-letter word while clients
// work, so the race detector sees the stats and tables read concurrently.
func TestFourLetterWordsUnderLoad(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < 3; i++ {
		c := dial(t, srv)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.Call(jute.OpCreate, &jute.CreateRequest{Path: "/load-", ACL: worldAll, Flags: jute.ModeEphemeralSequential}, nil)
				c.Call(jute.OpGetChildren, &jute.PathWatchRequest{Path: "/", Watch: true}, nil)
				c.Call(jute.OpGetData, &jute.PathWatchRequest{Path: "/", Watch: true}, nil)
			}
		}()
	}
	words := []string{"ruok", "srvr", "stat", "mntr", "cons", "wchc", "wchp", "wchs", "dump", "envi", "conf", "isro", "crst", "srst", "dirs"}
	for round := 0; round < 3; round++ {
		for _, w := range words {
			out, err := zktest.FourLetter(srv.ConnectString(), w, 10*time.Second)
			if err != nil || out == "" {
				t.Fatalf("%s: %q %v", w, out, err)
			}
		}
	}
	close(stop)
	wg.Wait()
	out, _ := zktest.FourLetter(srv.ConnectString(), "srvr", 10*time.Second)
	if !strings.Contains(out, "Mode: standalone\n") {
		t.Fatalf("srvr: %q", out)
	}
}

func TestFourLetterWhitelist(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{FourLetterWords: []string{"srvr"}})
	out, err := zktest.FourLetter(srv.ConnectString(), "dump", 10*time.Second)
	if err != nil || out != "dump is not executed because it is not in the whitelist.\n" {
		t.Fatalf("dump: %q %v", out, err)
	}
	if out, _ := zktest.FourLetter(srv.ConnectString(), "srvr", 10*time.Second); !strings.HasPrefix(out, "Zookeeper version: ") {
		t.Fatalf("srvr: %q", out)
	}
}
