package cmd

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/recipes"
)

func lockRunTestOptions(connect, dir string, command ...string) (lockRunOptions, *bytes.Buffer, *bytes.Buffer) {
	var out, errs bytes.Buffer
	return lockRunOptions{
		Servers: []string{connect}, Dir: dir, DisplayDir: dir, Command: command,
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs,
	}, &out, &errs
}

func TestRunsWithTokenAndExitStatus(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		o, out, errs := lockRunTestOptions(connect, dir, "sh", "-c", `echo "$ZKX_LOCK_TOKEN $ZKX_LOCK_PATH"; exit 3`)
		if code := runLocked(context.Background(), o); code != 3 {
			t.Fatalf("exit %d, want the command's 3; stderr: %s", code, errs)
		}
		token, path, _ := strings.Cut(strings.TrimSpace(out.String()), " ")
		if token == "" || token == "0" || !strings.HasPrefix(path, dir+"/_c_") {
			t.Fatalf("command saw token %q path %q", token, path)
		}
	})
}

func TestTimeoutAndMissingCommand(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	dir := zktest.Path(t)
	s, err := recipes.Dial([]string{srv.ConnectString()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holder := recipes.NewMutex(s, dir)
	if err := holder.Lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	o, _, errs := lockRunTestOptions(srv.ConnectString(), dir, "true")
	o.Timeout = 200 * time.Millisecond
	if code := runLocked(context.Background(), o); code != exitLockTimeout || !strings.Contains(errs.String(), "timed out") {
		t.Fatalf("exit %d, stderr %q; want %d and a message", code, errs, exitLockTimeout)
	}
	holder.Unlock(context.Background())
	o, _, _ = lockRunTestOptions(srv.ConnectString(), dir, "/nonexistent/command")
	if code := runLocked(context.Background(), o); code != exitNotFound {
		t.Fatalf("missing command: exit %d, want %d", code, exitNotFound)
	}
	if c, _, _ := s.Conn().Children(dir); len(c) != 0 {
		t.Fatalf("lock nodes left behind: %v", c)
	}
}

// TestLockLostTerminatesCommand expires the session of a running zkx lock:
// the command must get SIGTERM and zkx must exit exitLockLost (75).
func TestLockLostTerminatesCommand(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	dir := zktest.Path(t)
	pr, pw := io.Pipe()
	var errs bytes.Buffer
	o := lockRunOptions{
		Servers: []string{srv.ConnectString()}, Dir: dir, DisplayDir: dir,
		Command: []string{"sh", "-c", `trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 0.05; done`},
		Stdin:   strings.NewReader(""), Stdout: pw, Stderr: &errs,
	}
	done := make(chan int, 1)
	go func() { done <- runLocked(context.Background(), o); pw.Close() }()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("command did not start: %q", lines.Text())
	}
	ids := srv.SessionIDs()
	if len(ids) != 1 {
		t.Fatalf("sessions %v, want the lock's alone", ids)
	}
	srv.ExpireSession(ids[0])
	if !lines.Scan() || lines.Text() != "got-term" {
		t.Fatalf("command was not sent SIGTERM: %q", lines.Text())
	}
	select {
	case code := <-done:
		if code != exitLockLost || !strings.Contains(errs.String(), "lost the lock") {
			t.Fatalf("exit %d, stderr %q; want %d and a message", code, errs.String(), exitLockLost)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("zkx lock did not exit after losing its lock")
	}
}
