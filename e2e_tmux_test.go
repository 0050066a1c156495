package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// tmuxRun is a tmux server of the test's own (its own socket), so the
// test neither sees nor touches anyone else's sessions.
type tmuxRun struct {
	test    *testing.T
	socket  string
	session string
}

func (m tmuxRun) cmd(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", m.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (m tmuxRun) screen() string {
	out, err := m.cmd("capture-pane", "-p", "-t", m.session)
	if err != nil {
		return ""
	}
	return out
}

func (m tmuxRun) keys(keys ...string) {
	m.test.Helper()
	if out, err := m.cmd(append([]string{"send-keys", "-t", m.session}, keys...)...); err != nil {
		m.test.Fatalf("tmux send-keys %v: %v: %s", keys, err, out)
	}
}

// waitFor polls the screen until cond holds, failing at the deadline
// with the last screen and the program's stderr.
func (m tmuxRun) waitFor(what string, deadline time.Duration, stderr string, cond func(screen string) bool) string {
	m.test.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	end := time.After(deadline)
	for {
		s := m.screen()
		if cond(s) {
			return s
		}
		select {
		case <-tick.C:
		case <-end:
			errs, _ := os.ReadFile(stderr)
			m.test.Fatalf("%s: not within %v; screen:\n%s\nstderr:\n%s", what, deadline, s, errs)
		}
	}
}

// newTmux starts a tmux server of the test's own, removed at cleanup.
func newTmux(t *testing.T, session string) tmuxRun {
	t.Helper()
	var rnd [4]byte
	rand.Read(rnd[:])
	m := tmuxRun{test: t, socket: "zkx-e2e-" + hex.EncodeToString(rnd[:]), session: session}
	t.Cleanup(func() { m.cmd("kill-server") })
	return m
}

// start runs script in a new tmux session of 120×40, colours allowed.
func (m tmuxRun) start(script string) {
	m.test.Helper()
	if out, err := m.cmd("new-session", "-d", "-s", m.session, "-x", "120", "-y", "40", "env", "-u", "NO_COLOR", "sh", "-c", script); err != nil {
		m.test.Fatalf("tmux new-session: %v: %s", err, out)
	}
}

// waitExit waits for a script started with "; echo $? >exitFile" to end,
// and for its tmux session to end with it, and returns its exit status.
func (m tmuxRun) waitExit(exitFile, stderr string) string {
	m.test.Helper()
	m.waitFor("the program exits", time.Minute, stderr, func(string) bool {
		_, err := os.Stat(exitFile)
		return err == nil
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := m.cmd("has-session", "-t", m.session); err != nil {
			break // the session ended with the process
		}
		if time.Now().After(deadline) {
			m.test.Fatal("the tmux session outlived the program")
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
	// Read once the shell has ended: the file exists as soon as the
	// redirection opens it, before echo has written the status.
	code, _ := os.ReadFile(exitFile)
	return strings.TrimSpace(string(code))
}

// buildBinary builds zkx for an end-to-end test, or skips the test when
// it cannot run (-short, no go tool; no tmux, which is a missing peer:
// a failure under ZKX_REAL_ZK=required).
func buildBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		const what = "tmux is not installed: the end-to-end tests drive the binary in it (fix: apt-get install -y tmux)"
		if zktest.RequireReal() {
			t.Fatal("end-to-end test cannot run but ZKX_REAL_ZK=required: " + what)
		}
		t.Skip("SKIPPING end-to-end test: " + what)
	}
	return goBuild(t)
}

// goBuild returns the zkx binary the end-to-end tests share
// (zktest.ZkxBinary), skipping under -short.
func goBuild(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the end-to-end tests build and run the binary")
	}
	return zktest.ZkxBinary(t)
}
