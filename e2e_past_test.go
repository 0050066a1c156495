package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/pmfixture"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestPastExplorerSteps runs the explorer on the post-mortem fixtures'
// past, in tmux at 120×40 as a user would: at the zxid where A held the
// Curator lock with B and C queued, the lock's page shows that chain; >
// steps to A's release (B holds, C waits), < steps back to the chain, }
// (the next transaction touching the lock) moves on to B's release.
func TestPastExplorerSteps(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	chain := pmfixture.Fact(t, filepath.Join("testdata", "postmortem", "datadir"), "chain_zxid")
	if chain == "" {
		t.Fatal("scenario.txt names no chain_zxid")
	}
	dir := t.TempDir()
	stderr := filepath.Join(dir, "stderr")
	m := newTmux(t, "past")
	m.start(bin + " --data-dir testdata/postmortem/datadir --at " + chain + " --path /pm/curator-lock 2>" + stderr)
	m.waitFor("the past's header", 30*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "past of") && strings.Contains(s, "zxid "+chain+" ") && strings.Contains(s, "READ-ONLY")
	})
	// The past is read within the process: zkx listens on no TCP port
	// another user could read it through.
	if pid := paneProcess(t, m, bin); pid > 0 {
		if listening, err := zktest.ListeningTCP(pid); err != nil {
			t.Errorf("the sockets of zkx (pid %d): %v", pid, err)
		} else if len(listening) > 0 {
			t.Errorf("the past explorer listens on TCP: %v", listening)
		}
	}
	// The tree's count of the lock's nodes follows a step and a step back
	// (stats older than those on screen are taken too).
	m.waitFor("three nodes in the lock at "+chain, 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "curator-lock  3 [lock")
	})
	m.keys(">")
	m.waitFor("two after A's release", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "curator-lock  2 [lock")
	})
	m.keys("<")
	m.waitFor("three again, back at "+chain, 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "curator-lock  3 [lock") && strings.Contains(s, "zxid "+chain+" ")
	})
	m.keys(":locks /pm", "Enter")
	m.waitFor("the locks list", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 lock under /pm") && strings.Contains(s, "› /pm/curator-lock")
	})
	m.keys("Enter")
	m.waitFor("the chain at "+chain, 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 holding · 2 waiting") && strings.Contains(s, "waiter 2")
	})
	m.keys(">")
	s := m.waitFor("A's release", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 holding · 1 waiting") && strings.Contains(s, "delete /pm/curator-lock")
	})
	if strings.Contains(s, "zxid "+chain+" ") {
		t.Errorf("the header still shows %s after a step:\n%s", chain, s)
	}
	m.keys("<")
	m.waitFor("back at the chain", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 holding · 2 waiting") && strings.Contains(s, "zxid "+chain+" ")
	})
	m.keys("}", "}")
	m.waitFor("B's release, two touching transactions on", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 holding · 0 waiting") || strings.Contains(s, "1 holding") && !strings.Contains(s, "waiting")
	})
}

// paneProcess finds the process of the tmux session running program:
// the pane's process or one of its descendants whose argv[0] it is.
func paneProcess(t *testing.T, m tmuxRun, program string) int {
	t.Helper()
	out, err := m.cmd("display-message", "-p", "-t", m.session, "#{pane_pid}")
	if err != nil {
		t.Fatalf("tmux pane_pid: %v: %s", err, out)
	}
	pane, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("tmux pane_pid: %q", out)
	}
	for queue := []int{pane}; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
			if argv0, _, _ := strings.Cut(string(cmdline), "\x00"); argv0 == program {
				return pid
			}
		}
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		for _, f := range strings.Fields(string(children)) {
			if child, err := strconv.Atoi(f); err == nil {
				queue = append(queue, child)
			}
		}
	}
	t.Errorf("no process of the tmux session runs %s (pane %d)", program, pane)
	return 0
}
