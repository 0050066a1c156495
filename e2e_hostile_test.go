package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/fakezk"
)

// hostileCase is zkx run against one misbehaving fake server: the exit
// status, what stderr must say, and the time it must end within. The
// bounds are the requirement (--timeout + 5 s; a peer that is not
// ZooKeeper named within its 4 s answer deadline + 5 s), generous so as
// not to flake on a loaded machine; docs/robustness.md has the figures.
// The cases that wait out a timeout ask for a short --session-timeout, so
// that what they show comes within a short --timeout: pings (every third
// of the session timeout) answered before it, a request unanswered for a
// whole session timeout, a connection silent for two thirds of it.
type hostileCase struct {
	fake   string
	args   []string
	status int
	says   []string
	within time.Duration
	// oneOf, when set, are true wordings of which stderr must say one:
	// what --timeout finds depends on how far the client got by then.
	oneOf []string
}

var hostileCases = []hostileCase{
	{fake: "timeout-zero", args: []string{"ls", "--timeout", "5s", "/"}, status: 1,
		says: []string{"does not speak ZooKeeper: it opened session 0x1000f4ce0001 with a session timeout of 0 ms"}, within: 10 * time.Second},
	{fake: "huge-vector", args: []string{"ls", "--timeout", "5s", "/"}, status: 1,
		says: []string{"sent a reply that is not ZooKeeper's: vector length 2147483647 (children) with 0 bytes left in a 20-byte getChildren2 reply"}, within: 10 * time.Second},
	{fake: "pings-only", args: []string{"--session-timeout", "4s", "ls", "--timeout", "3s", "/"}, status: 1,
		says: []string{"--timeout 3s reached", "has not answered exists / in 3s, though it answered", "ping"}, within: 3*time.Second + 5*time.Second},
	{fake: "pings-only", args: []string{"--session-timeout", "4s", "get", "--timeout", "3s", "/zookeeper"}, status: 1,
		says: []string{"--timeout 3s reached", "has not answered exists /"}, within: 3*time.Second + 5*time.Second},
	{fake: "pings-only", args: []string{"--session-timeout", "4s", "tree", "--timeout", "3s", "/"}, status: 1,
		says: []string{"--timeout 3s reached", "has not answered exists /"}, within: 3*time.Second + 5*time.Second},
	{fake: "pings-only", args: []string{"--session-timeout", "2s", "ls", "--timeout", "30s", "/"}, status: 1,
		says: []string{"stopped answering requests: exists / has waited", "ZooKeeper answers a session's requests in order"}, within: 2*time.Second + 5*time.Second},
	{fake: "wrong-xids", args: []string{"ls", "--timeout", "5s", "/"}, status: 1,
		says: []string{"sent a reply that is not ZooKeeper's: a reply to request 1001, which was not sent"}, within: 10 * time.Second},
	{fake: "notification-flood", args: []string{"ls", "--timeout", "5s", "/"}, status: 1,
		says: []string{`sent a reply that is not ZooKeeper's: a notification for "/flood/0", which this session does not watch`}, within: 10 * time.Second},
	// At --timeout the client waits on exists / over its second
	// connection or, on a loaded machine, is still getting it after the
	// first went silent.
	{fake: "silent-after-handshake", args: []string{"--session-timeout", "3s", "tree", "--timeout", "4s", "/"}, status: 1,
		says: []string{"--timeout 4s reached"}, within: 4*time.Second + 5*time.Second,
		oneOf: []string{"has not answered exists /", "went silent: it answered neither exists / nor its pings"}},
	{fake: "random-bytes", args: []string{"ls", "--timeout", "30s", "/"}, status: 1,
		says: []string{"does not speak ZooKeeper: its answer to the session request announces a frame of"}, within: 9 * time.Second},
	{fake: "huge-frame", args: []string{"ls", "--timeout", "30s", "/"}, status: 1,
		says: []string{"does not speak ZooKeeper: its answer to the session request announces a frame of 2147483648 bytes"}, within: 9 * time.Second},
	{fake: "http", args: []string{"ls", "--timeout", "30s", "/"}, status: 1,
		says: []string{`does not speak ZooKeeper: it answered in HTTP ("HTTP/1.1 400 Bad Request")`}, within: 9 * time.Second},
	{fake: "silent", args: []string{"ls", "--timeout", "30s", "/"}, status: 1,
		says: []string{"does not speak ZooKeeper: no answer to the session request within 4s"}, within: 9 * time.Second},
}

// TestHostileServers runs the real binary against each fake server: it
// ends by itself, with the status, the named error and within the time of
// its case, and never panics.
func TestHostileServers(t *testing.T) {
	t.Parallel()
	bin := goBuild(t)
	for _, hc := range hostileCases {
		t.Run(hc.fake+" "+strings.Join(hc.args, " "), func(t *testing.T) {
			t.Parallel() // each its own fake server and process; most wait out a timeout
			c, ok := fakezk.Lookup(hc.fake)
			if !ok {
				t.Fatalf("no fake server %s", hc.fake)
			}
			server := fakezk.New(t, c.Behaviour)
			status, stderr, took := runBinary(t, bin, nil, append([]string{"--server", server.Addr()}, hc.args...)...)
			t.Logf("exit %d after %v: %s", status, took.Round(100*time.Millisecond), strings.TrimSpace(stderr))
			if status != hc.status {
				t.Errorf("exit status %d, want %d", status, hc.status)
			}
			for _, s := range hc.says {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr does not say %q", s)
				}
			}
			if len(hc.oneOf) > 0 && !slices.ContainsFunc(hc.oneOf, func(s string) bool { return strings.Contains(stderr, s) }) {
				t.Errorf("stderr says none of %q", hc.oneOf)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Errorf("a panic or a runtime trace on stderr")
			}
			if took > hc.within {
				t.Errorf("took %v, want at most %v", took.Round(100*time.Millisecond), hc.within)
			}
		})
	}
}

// TestNoTerminalInjection: an escape sequence or a bell in --server or in
// $ZK_SERVERS reaches the terminal escaped, never raw.
func TestNoTerminalInjection(t *testing.T) {
	t.Parallel()
	bin := goBuild(t)
	evil := "127.0.0.1:1\x1b]0;pwned\x07\x1b[2J"
	for name, run := range map[string]func() (int, string, time.Duration){
		"--server": func() (int, string, time.Duration) { return runBinary(t, bin, nil, "--server", evil, "ls", "/") },
		"$ZK_SERVERS": func() (int, string, time.Duration) {
			return runBinary(t, bin, []string{"ZK_SERVERS=" + evil}, "ls", "/")
		},
	} {
		status, stderr, _ := run()
		if status == 0 || strings.ContainsAny(stderr, "\x1b\x07") || !strings.Contains(stderr, `\x1b]0;pwned\x07`) {
			t.Errorf("%s: exit %d, stderr %q: want the sequence shown escaped", name, status, stderr)
		}
	}
}

// runBinary runs zkx with args (and env added) and returns its exit
// status, stderr and wall time; it kills a run still going after two
// minutes.
func runBinary(t *testing.T, bin string, env []string, args ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+filepath.Join(t.TempDir(), "config")), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("zkx %v still running after 2 minutes; stderr:\n%s", args, stderr.String())
	}
	took := time.Since(begin)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String(), took
	case errors.As(err, &exit):
		return exit.ExitCode(), stderr.String(), took
	}
	t.Fatal(err)
	return 0, "", 0
}

// TestExplorerConnectScreen: while the explorer waits for a server that
// does not answer, it says what it waits for, and q quits at once with
// status 0.
func TestExplorerConnectScreen(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, fake := range []string{"pings-only", "silent"} {
		t.Run(fake, func(t *testing.T) {
			c, _ := fakezk.Lookup(fake)
			server := fakezk.New(t, c.Behaviour)
			dir := t.TempDir()
			stderr, exitFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "exit")
			m := newTmux(t, "connect")
			m.start(bin + " --server " + server.Addr() + " 2>" + stderr + "; echo $? >" + exitFile)
			want := map[string]string{"pings-only": "asking its first question (exists /)", "silent": "waiting for its answer to the session request"}[fake]
			m.waitFor("the connecting screen", 10*time.Second, stderr, func(s string) bool {
				return strings.Contains(s, "connecting to "+server.Addr()) && strings.Contains(s, want) && strings.Contains(s, "q quits")
			})
			begin := time.Now()
			m.keys("q")
			if code := m.waitExit(exitFile, stderr); code != "0" {
				t.Fatalf("exit status %s after q", code)
			}
			if took := time.Since(begin); took > 2*time.Second {
				t.Errorf("q took %v to quit", took)
			} else {
				t.Logf("q quit in %v", took.Round(time.Millisecond))
			}
		})
	}
}
