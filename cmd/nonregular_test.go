//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// copyDataDir copies the post-mortem data directory's files into a new
// folder, where a test may add its own.
func copyDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(pmFixtures, "version-2")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fifo makes a named pipe that nothing writes to: opening it to read
// blocks forever.
func fifo(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return path
}

// runBounded is run, failing the test when zkx has not ended within a
// deadline (a reader blocked on a named pipe never does).
func runBounded(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	type result struct {
		out, errOut string
		err         error
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, err := run(t, args...)
		done <- result{out, errOut, err}
	}()
	select {
	case r := <-done:
		return r.out, r.errOut, r.err
	case <-time.After(20 * time.Second):
		t.Fatalf("zkx %s: still running after 20s (blocked on a named pipe?)", strings.Join(args, " "))
		return "", "", nil
	}
}

// TestNamedPipesNeverHang: a named pipe (or any file that is not a
// regular one) where zkx reads a file is named, never read: in a data
// directory it is skipped with a warning and the rest is read; named
// on the command line it is an error saying what it is.
func TestNamedPipesNeverHang(t *testing.T) {
	t.Parallel()
	dir := copyDataDir(t)
	fifo(t, filepath.Join(dir, "log.ffff"))
	fifo(t, filepath.Join(dir, "snapshot.ffff"))
	lone := fifo(t, filepath.Join(t.TempDir(), "pipe"))

	for _, tc := range []struct {
		name string
		args []string
		ok   bool // the rest of the data directory is read
	}{
		{"txnlog DIR", []string{"txnlog", dir}, true},
		{"history --data-dir", []string{"history", "/", "--data-dir", dir}, true},
		{"txnlog FILE", []string{"txnlog", lone}, false},
		{"snapshot FILE", []string{"snapshot", filepath.Join(dir, "snapshot.ffff")}, false},
		{"import FILE", []string{"--server", "127.0.0.1:1", "import", lone}, false},
		{"--config", []string{"--config", lone, "version"}, false},
		{"--tls-ca", []string{"--server", "127.0.0.1:1", "--tls-ca", lone, "ls", "/"}, false},
		{"serve --sasl-users", []string{"serve", "--listen", "127.0.0.1:0", "--sasl-users", lone}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := runBounded(t, tc.args...)
			said := errOut
			if err != nil {
				said += err.Error()
			}
			if !strings.Contains(said, "not a regular file (a named pipe)") {
				t.Errorf("zkx %s: the pipe is not named as one:\n%s", strings.Join(tc.args, " "), said)
			}
			if tc.ok && (err != nil || out == "") {
				t.Errorf("zkx %s: the rest of the data directory was not read: %v\n%s", strings.Join(tc.args, " "), err, errOut)
			}
			if !tc.ok && err == nil {
				t.Errorf("zkx %s: no error", strings.Join(tc.args, " "))
			}
		})
	}
}
