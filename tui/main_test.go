package tui

import (
	"fmt"
	"os"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestMain stops the shared real ZooKeeper of zktest.Each when the tests
// end. The package's TMPDIR is a directory of its own, removed then: an
// edit that fails keeps its file for the user (zkview/edit), so the tests
// that make edits fail leave files there, and a t.Setenv per test would
// keep those tests from running in parallel.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "zkx-tui-test-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "tui tests: a TMPDIR of their own: %v\n", err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	zktest.Main(m, func() { os.RemoveAll(tmp) })
}
