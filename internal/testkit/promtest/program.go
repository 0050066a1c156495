package promtest

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// Install is what puts prometheus and promtool on PATH.
const Install = "apt-get install -y prometheus"

// skipPrefix starts every skip for a missing Prometheus, so that
// scripts/testreport counts it as a missing peer.
const skipPrefix = "SKIPPING Prometheus test: "

// Program returns the path of a program of Debian's prometheus package
// (prometheus, promtool), or skips the test when it is not on PATH (fails
// it under ZKX_REAL_ZK=required).
func Program(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	what := fmt.Sprintf("%s is not on PATH (fix: %s)", name, Install)
	if zktest.RequireReal() {
		t.Fatalf("Prometheus test cannot run but ZKX_REAL_ZK=required: %s", what)
	}
	t.Skipf("%s%s (set ZKX_REAL_ZK=required to make this a failure)", skipPrefix, what)
	return ""
}
