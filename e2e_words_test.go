package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/recipes"
)

// TestOneSceneSameWords feeds one scene to both front ends of the real
// binary — a read-write lock of zkx's recipes, a reader holding, a writer
// and a reader waiting — and compares their words: the head line, every
// contender's role, and the holder's facts as zkx unlock prints them
// before asking and as the explorer's force-release dialog shows them.
// The words come from one presenter; the front ends only lay them out, so
// the test compares them with the layout taken away (box drawing, padding,
// line breaks).
func TestOneSceneSameWords(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	connect := startServe(t, bin)
	dir := "/words/rw"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hold := func(take func(*recipes.RWMutex) func(context.Context) error, wait bool) {
		s, err := recipes.Dial([]string{connect})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		rw := recipes.NewRWMutex(s, dir)
		if !wait {
			if err := take(rw)(ctx); err != nil {
				t.Fatal(err)
			}
			return
		}
		go take(rw)(ctx)
	}
	hold(func(rw *recipes.RWMutex) func(context.Context) error { return rw.RLock }, false)
	hold(func(rw *recipes.RWMutex) func(context.Context) error { return rw.Lock }, true)
	waitNodes(t, bin, connect, dir, 2)
	hold(func(rw *recipes.RWMutex) func(context.Context) error { return rw.RLock }, true)
	waitNodes(t, bin, connect, dir, 3)

	// The command line: the long table, and unlock's description (it
	// refuses to delete off a terminal without --yes, after describing).
	table := runOut(t, bin, false, "--server", connect, "locks", "-l", dir)
	describe := runOut(t, bin, true, "--server", connect, "unlock", dir)

	// The explorer: :locks, the lock's page, F.
	tmpdir := t.TempDir()
	stderr, exitFile := filepath.Join(tmpdir, "stderr"), filepath.Join(tmpdir, "exit")
	m := newTmux(t, "words")
	m.start(bin + " --server " + connect + " 2>" + stderr + "; echo $? >" + exitFile)
	m.waitFor("the explorer connected", 30*time.Second, stderr, func(s string) bool { return strings.Contains(s, "connected") })
	m.keys(":", "locks", "Enter")
	m.waitFor(":locks listing the lock", 20*time.Second, stderr, func(s string) bool { return strings.Contains(s, "› "+dir) })
	m.keys("Enter")
	page := m.waitFor("the lock's page, with the servers' tables", 20*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "1 holding · 2 waiting") && strings.Contains(s, "server tables read")
	})
	m.keys("F")
	dialog := m.waitFor("the force-release dialog", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "Force-release") && strings.Contains(s, "y yes")
	})
	m.keys("n")
	m.keys(":", "q", "Enter")
	if code := m.waitExit(exitFile, stderr); code != "0" {
		errs, _ := os.ReadFile(stderr)
		t.Fatalf("zkx exited with %s:\n%s", code, errs)
	}

	head := "rwlock · zkx · 1 holding · 2 waiting"
	for what, out := range map[string]string{"zkx unlock": describe, "the explorer's page": page} {
		if !strings.Contains(out, head) {
			t.Errorf("%s lacks the head line %q:\n%s", what, head, out)
		}
	}
	for _, role := range []string{"holder (read)", "waiter 1 (write)", "waiter 2 (read)"} {
		if !strings.Contains(table, "  "+role+"  ") || !strings.Contains(page, " "+role+" ") {
			t.Errorf("the role %q is not in both the table and the page:\n%s\n%s", role, table, page)
		}
	}
	// Every fact unlock states that does not move with the clock, the
	// dialog states in the same words.
	inDialog := words(dialog)
	facts := 0
	for _, line := range strings.Split(describe, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(line, "  ") {
			continue
		}
		switch f[0] {
		case "holder", "format", "session", "client", "next":
			facts++
			if !strings.Contains(inDialog, strings.Join(f, " ")) {
				t.Errorf("zkx unlock says %q; the dialog does not:\n%s", strings.Join(f, " "), dialog)
			}
		}
	}
	if facts != 5 {
		t.Errorf("zkx unlock stated %d of the 5 facts compared:\n%s", facts, describe)
	}
	if !strings.Contains(inDialog, "next zkx __WRIT__0000000001 (session ") {
		t.Errorf("the dialog does not say the writer takes over:\n%s", dialog)
	}
}

// words is a screen without its layout: box drawing and runs of spaces
// and line breaks become single spaces.
func words(screen string) string {
	r := strings.NewReplacer("│", " ", "┌", " ", "┐", " ", "└", " ", "┘", " ", "─", " ")
	return strings.Join(strings.Fields(r.Replace(screen)), " ")
}

// runOut runs the binary and returns its stdout, or with wantStderr its
// stderr (a command that describes, then refuses).
func runOut(t *testing.T, bin string, wantStderr bool, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	if wantStderr {
		if err == nil {
			t.Fatalf("zkx %v: went ahead off a terminal:\n%s", args, out.String())
		}
		return errs.String()
	}
	if err != nil {
		t.Fatalf("zkx %v: %v\n%s", args, err, errs.String())
	}
	return out.String()
}

// waitNodes waits until dir has n children, as zkx ls lists them.
func waitNodes(t *testing.T, bin, connect, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := exec.Command(bin, "--server", connect, "ls", dir).Output()
		if got := len(strings.Fields(string(out))); got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not %d children within 30s:\n%s", dir, n, out)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
}

// TestUnlockAnswerAfterTimeout: --timeout bounds unlock's reads and its
// delete, not the person answering its question: answered after the
// timeout has passed, it still deletes, and says what happened.
func TestUnlockAnswerAfterTimeout(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	connect := startServe(t, bin)
	dir := "/late/lock"
	s, err := recipes.Dial([]string{connect})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := recipes.NewMutex(s, dir).Lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	tmpdir := t.TempDir()
	stderr, exitFile, outFile := filepath.Join(tmpdir, "stderr"), filepath.Join(tmpdir, "exit"), filepath.Join(tmpdir, "out")
	m := newTmux(t, "late")
	// stdin and stderr stay on the terminal: the question is asked there.
	m.start(bin + " --server " + connect + " unlock --timeout 1s " + dir + " >" + outFile + "; echo $? >" + exitFile)
	m.waitFor("the question", 20*time.Second, stderr, func(s string) bool { return strings.Contains(s, "[y/N]") })
	asked := time.Now()
	// The condition under test is the time itself: the answer comes after
	// --timeout has run out.
	time.Sleep(1500 * time.Millisecond)
	if time.Since(asked) < time.Second {
		t.Fatalf("answered within the timeout")
	}
	m.keys("y", "Enter")
	code := m.waitExit(exitFile, stderr)
	out, _ := os.ReadFile(outFile)
	if code != "0" || !strings.Contains(string(out), "deleted "+dir+"/") ||
		!strings.Contains(string(out), "now: the lock is free: nobody holds it and nobody waits") {
		t.Errorf("after a late answer: exit %s\n%s", code, out)
	}
}
