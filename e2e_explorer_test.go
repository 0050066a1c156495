package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestExplorerEndToEnd runs the real binary twice, as a user would: `zkx
// serve` on a free port, and the explorer against it in tmux. Someone
// holds a lock; the user navigates to it, opens :locks, opens the lock's
// chain, acquires (and sees "you" wait behind the holder, then hold once
// the holder goes), releases, and quits.
func TestExplorerEndToEnd(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	connect := startServe(t, bin)
	base := "/e2e"
	lock := base + "/lock"
	admin := zktest.Conn(t, connect)
	for _, p := range []string{base, lock} {
		if _, err := admin.Create(p, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	holder := zktest.Conn(t, connect)
	if _, err := holder.Create(lock+"/_c_5d0f6c1e-8f4b-4a57-9d0e-1b2c3d4e5f60-lock-", []byte("10.1.2.3"),
		zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	stderr, exitFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "exit")
	m := newTmux(t, "explorer")
	m.start(bin + " --server " + connect + " 2>" + stderr + "; echo $? >" + exitFile)
	m.waitFor("the explorer connected", 30*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "connected") && strings.Contains(s, "zookeeper")
	})

	// Navigate: the command line jumps to the lock directory, labelled as
	// Curator's; the right arrow opens it.
	m.keys(":", "cd "+lock, "Enter")
	m.waitFor("the lock directory in the tree", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "[lock·curator]")
	})
	m.keys("Right")
	m.waitFor("the holder's node", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "lock-0000000000")
	})

	m.keys(":", "locks", "Enter")
	m.waitFor(":locks listing the lock", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 lock under /") && strings.Contains(s, "› "+lock)
	})
	m.keys("Enter")
	m.waitFor("the lock's chain", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 holding · 0 waiting")
	})

	m.keys("a")
	m.waitFor("you waiting behind the holder", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 holding · 1 waiting") && youIn(s)
	})
	holder.Close() // the holder goes: its ephemeral node with it
	m.waitFor("you holding", 20*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 holding · 0 waiting") && youIn(s)
	})
	m.keys("u")
	m.waitFor("the lock released", 10*time.Second, stderr, func(s string) bool {
		return !youIn(s) && strings.Contains(s, "(free)")
	})

	m.keys(":", "q", "Enter")
	if code := m.waitExit(exitFile, stderr); code != "0" {
		errs, _ := os.ReadFile(stderr)
		t.Fatalf("zkx exited with %s; stderr:\n%s", code, errs)
	}
}

// youIn reports whether the screen shows the explorer's own contender.
func youIn(screen string) bool { return regexp.MustCompile(`\byou\b`).MatchString(screen) }

// startServe runs `zkx serve` on a free loopback port until the test ends
// and returns its address. Every four-letter word is answered: the
// explorer confirms watches and client addresses with them.
func startServe(t *testing.T, bin string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--4lw-whitelist", "*")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), "listening on "); ok {
				addr <- strings.Fields(a)[0]
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("zkx serve did not say where it listens")
		return ""
	}
}
