//go:build unix

package zktest

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestDaemonStopKillsItsGroup starts a shell that starts a child, and
// checks that Stop ends both (the process group) and may be called again.
func TestDaemonStopKillsItsGroup(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	logPath := filepath.Join(t.TempDir(), "daemon.log")
	d := StartDaemon(t, logPath, sh, "-c", "sleep 300 & echo child $!; wait")
	childLine := regexp.MustCompile(`child (\d+)`)
	var child int
	Eventually(t, 30*time.Second, "the shell names its child", func() error {
		m := childLine.FindStringSubmatch(d.Log(5))
		if m == nil {
			return fmt.Errorf("log so far: %q", d.Log(5))
		}
		child, _ = strconv.Atoi(m[1])
		return nil
	})
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.Exited():
	default:
		t.Fatal("Stop returned before the daemon was reaped")
	}
	if err := d.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	// The orphaned child is reaped by init: gone once kill(0) finds nothing.
	Eventually(t, 30*time.Second, "the child killed with the group", func() error {
		if err := syscall.Kill(child, 0); !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("process %d: kill 0: %v", child, err)
		}
		return nil
	})
}

// TestDaemonExitSeen checks that a program that ends by itself is seen on
// Exited with its status.
func TestDaemonExitSeen(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	d := StartDaemon(t, filepath.Join(t.TempDir(), "daemon.log"), sh, "-c", "echo bye; exit 3")
	select {
	case <-d.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("the program did not exit")
	}
	var ee *exec.ExitError
	if !errors.As(d.ExitErr(), &ee) || ee.ExitCode() != 3 {
		t.Errorf("ExitErr = %v, want exit status 3", d.ExitErr())
	}
	if got := d.Log(1); got != "bye" {
		t.Errorf("Log(1) = %q, want bye", got)
	}
	if err := d.Stop(); err != nil {
		t.Errorf("Stop after exit: %v", err)
	}
}

func TestFreePortIsNotHandedOutTwice(t *testing.T) {
	t.Parallel()
	a, b := FreePort(t), FreePort(t)
	if a == b || a <= 0 || b <= 0 {
		t.Errorf("FreePort gave %d then %d", a, b)
	}
}
