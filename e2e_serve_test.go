package main

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeStopsCleanlyAtOnce: a SIGTERM that comes right after zkx serve
// says it listens stops it cleanly (exit 0), as the demo's sweep and the
// interop tests stop it: the signal is caught before the announcement.
func TestServeStopsCleanlyAtOnce(t *testing.T) {
	t.Parallel()
	bin := goBuild(t)
	for i := 0; i < 5; i++ {
		cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		listening := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(out)
			said := false
			for sc.Scan() {
				if !said && strings.Contains(sc.Text(), "listening on ") {
					said = true
					listening <- true
				}
			}
			if !said {
				listening <- false
			}
		}()
		select {
		case ok := <-listening:
			if !ok {
				t.Fatalf("zkx serve ended without saying where it listens: %s", stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatal("zkx serve did not say where it listens")
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("run %d: zkx serve after an immediate SIGTERM: %v (want a clean exit); stderr:\n%s", i, err, stderr.String())
		}
	}
}
