package introspect

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// envCapture set to 1 makes TestCaptureIntrospectFixtures rewrite the
// fixtures under testdata from live servers:
//
//	ZKX_CAPTURE_INTROSPECT=1 go test ./zkview/introspect -run TestCaptureIntrospectFixtures -count=1
//
// The parser tables in introspect_parse_test.go name values found in these
// files (session ids, ports, paths): after a capture, update them.
const envCapture = "ZKX_CAPTURE_INTROSPECT"

const captureDir = "testdata"

// captureScenario is the state the fixtures show (see lockScenario): a
// lock under /app held by one session and watched by another.
func captureScenario(t *testing.T, servers []string) {
	t.Helper()
	s := newLockScenario(t, servers, "/app")
	t.Logf("holder session 0x%x created %s; waiter session 0x%x watches it", s.holder.SessionID(), s.lock, s.waiter.SessionID())
}

func captureWords(t *testing.T, dir, addr string, words ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range words {
		out, err := zktest.FourLetter(addr, w, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		writeFixture(t, filepath.Join(dir, w+".txt"), out)
	}
}

func captureAdmin(t *testing.T, dir, base string, commands ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for _, c := range commands {
		resp, err := client.Get(base + "/" + c)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		writeFixture(t, filepath.Join(dir, c+".json"), string(body))
	}
}

func writeFixture(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", path, len(text))
}

var captureWordList = []string{"ruok", "isro", "srvr", "stat", "mntr", "cons", "wchc", "wchp", "wchs", "dump", "conf"}

func TestCaptureIntrospectFixtures(t *testing.T) {
	t.Parallel()
	if os.Getenv(envCapture) != "1" {
		t.Skipf("fixture capture runs only with %s=1", envCapture)
	}
	t.Run("standalone", func(t *testing.T) {
		e := zktest.RealWith(t, zktest.RealOptions{AdminServer: true})
		m := e.Members()[0]
		captureScenario(t, []string{m.Addr()})
		captureWords(t, filepath.Join(captureDir, "real-standalone"), m.Addr(), captureWordList...)
		captureAdmin(t, filepath.Join(captureDir, "admin-standalone"), m.AdminURL(),
			"monitor", "connections", "watches", "watches_by_path", "dump", "configuration",
			"server_stats", "is_read_only", "ruok", "no_such_command")
	})
	t.Run("ensemble", func(t *testing.T) {
		e := zktest.RealWith(t, zktest.RealOptions{Nodes: 3, AdminServer: true})
		for _, m := range e.Members() {
			if mode, _ := m.Mode(); mode == "follower" {
				captureScenario(t, []string{m.Addr()}) // the sessions live on follower-1
				break
			}
		}
		followers := 0
		for _, m := range e.Members() {
			mode, err := m.Mode()
			if err != nil {
				t.Fatal(err)
			}
			name := mode
			if mode == "follower" {
				followers++
				name = fmt.Sprintf("follower-%d", followers)
			}
			captureWords(t, filepath.Join(captureDir, "real-"+name), m.Addr(), "srvr", "mntr", "conf", "cons", "dump", "wchc", "wchp")
			captureAdmin(t, filepath.Join(captureDir, "admin-"+name), m.AdminURL(), "monitor", "server_stats", "configuration", "dump", "connections")
		}
	})
	t.Run("restricted", func(t *testing.T) {
		e := zktest.RealWith(t, zktest.RealOptions{FourLetterWords: []string{"srvr"}})
		m := e.Members()[0]
		captureWords(t, filepath.Join(captureDir, "real-restricted"), m.Addr(), "ruok", "srvr", "wchc", "cons")
	})
	t.Run("embedded", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		captureScenario(t, []string{srv.ConnectString()})
		captureWords(t, filepath.Join(captureDir, "embedded"), srv.ConnectString(), captureWordList...)
	})
}
