package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxRun is a tmux server of the test's own (its own socket), so the
// test neither sees nor touches anyone else's sessions.
type tmuxRun struct {
	t      *testing.T
	socket string
}

func (m tmuxRun) cmd(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", m.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (m tmuxRun) screen() string {
	out, err := m.cmd("capture-pane", "-p", "-t", "demo")
	if err != nil {
		return ""
	}
	return out
}

func (m tmuxRun) keys(keys ...string) {
	m.t.Helper()
	if out, err := m.cmd(append([]string{"send-keys", "-t", "demo"}, keys...)...); err != nil {
		m.t.Fatalf("tmux send-keys %v: %v: %s", keys, err, out)
	}
}

// waitFor polls the screen until cond holds, failing at the deadline
// with the last screen and the demo's stderr.
func (m tmuxRun) waitFor(what string, deadline time.Duration, stderr string, cond func(screen string) bool) string {
	m.t.Helper()
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
			m.t.Fatalf("%s: not within %v; screen:\n%s\nstderr:\n%s", what, deadline, s, errs)
		}
	}
}

// acquisitionsLine reads the three lanes' acquisition totals.
var acquisitionsLine = regexp.MustCompile(`acquisitions\s+[0-9.…]+(?:/s)?\s+([0-9,]+)`)

func acquisitions(screen string) []int {
	var out []int
	for _, m := range acquisitionsLine.FindAllStringSubmatch(screen, -1) {
		n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

// TestDemoEndToEnd runs the real binary's demo in tmux as a presenter
// would: the three lanes count up, ? lists the demo's keys, + adds a
// contender to each lane, q leaves the demo page and q again quits, and
// the process exits cleanly.
func TestDemoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the end-to-end demo builds and runs the binary")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end demo test needs it (apt-get install tmux; CI installs it)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH: cannot build the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "zkx")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	var rnd [4]byte
	rand.Read(rnd[:])
	m := tmuxRun{t: t, socket: "zkx-e2e-" + hex.EncodeToString(rnd[:])}
	t.Cleanup(func() { m.cmd("kill-server") })
	stderr, exitFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "exit")
	script := bin + " demo 2>" + stderr + "; echo $? >" + exitFile
	if out, err := m.cmd("new-session", "-d", "-s", "demo", "-x", "120", "-y", "40", "env", "-u", "NO_COLOR", "sh", "-c", script); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}

	// All three lanes on screen, counting.
	var first []int
	m.waitFor("three lanes with acquisitions", time.Minute, stderr, func(s string) bool {
		first = acquisitions(s)
		return strings.Contains(s, "CHAIN") && strings.Contains(s, "HERD") && strings.Contains(s, "SPIN") &&
			len(first) == 3 && first[0] > 0 && first[1] > 0 && first[2] > 0
	})
	m.waitFor("acquisitions counting up in every lane", 30*time.Second, stderr, func(s string) bool {
		now := acquisitions(s)
		return len(now) == 3 && now[0] > first[0] && now[1] > first[1] && now[2] > first[2]
	})

	m.keys("?")
	m.waitFor("the demo's keys in the help", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "more contenders") && strings.Contains(s, "crash holder") &&
			strings.Contains(s, "close holder") && strings.Contains(s, "hold longer") && strings.Contains(s, "reset counters")
	})
	m.keys("x") // any key closes the help
	m.waitFor("the help closed", 10*time.Second, stderr, func(s string) bool { return strings.Contains(s, "CHAIN") })

	m.keys("+")
	m.waitFor("13 contenders", 30*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "13 contenders per lane") && strings.Count(s, "13 contenders") >= 4
	})

	m.keys("q")
	m.waitFor("back on the browser", 10*time.Second, stderr, func(s string) bool {
		return !strings.Contains(s, "CHAIN") && strings.Contains(s, "tree")
	})
	m.keys("q")
	m.waitFor("the demo exits", time.Minute, stderr, func(string) bool {
		_, err := os.Stat(exitFile)
		return err == nil
	})
	code, _ := os.ReadFile(exitFile)
	if strings.TrimSpace(string(code)) != "0" {
		errs, _ := os.ReadFile(stderr)
		t.Fatalf("zkx demo exited with %s; stderr:\n%s", code, errs)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := m.cmd("has-session", "-t", "demo"); err != nil {
			break // the session ended with the process
		}
		if time.Now().After(deadline) {
			t.Fatal("the tmux session outlived the demo")
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
}
