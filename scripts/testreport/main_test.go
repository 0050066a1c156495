package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sample is a module whose packages pass, skip (for a missing peer and
// otherwise), fail, die and do not build: what testreport must tell apart.
var sample = map[string]string{
	"go.mod": "module example.com/sample\n\ngo 1.26\n",
	"ok/ok_test.go": `package ok

import "testing"

func TestPasses(t *testing.T) {}

func TestNeedsZooKeeper(t *testing.T) {
	t.Parallel()
	t.Skip("SKIPPING real ZooKeeper test: java is not on PATH")
}

func TestLong(t *testing.T) {
	t.Parallel()
	t.Skip("long: not with -short")
}

func TestTable(t *testing.T) {
	t.Parallel()
	t.Run("fast", func(t *testing.T) {})
	t.Run("needs-kazoo", func(t *testing.T) {
		t.Skipf("SKIPPING interop test: %s", "python3 cannot import kazoo")
	})
}
`,
	"fails/fails_test.go": `package fails

import "testing"

func TestPasses(t *testing.T) {}

func TestFails(t *testing.T) {
	t.Parallel()
	t.Log("looking")
	t.Fatal("the answer was 41")
}
`,
	"dies/dies_test.go": `package dies

import (
	"os"
	"testing"
)

func TestDies(t *testing.T) {
	t.Parallel()
	t.Log("about to go")
	os.Exit(3)
}
`,
	"broken/broken_test.go": `package broken

import "testing"

func TestBroken(t *testing.T) { undefined() }
`,
}

// goTestJSON runs go test -json on patterns of the sample module and
// returns its output: real events, not hand-written ones.
func goTestJSON(t *testing.T, patterns ...string) []byte {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH: cannot run go test on the sample module")
	}
	dir := t.TempDir()
	for name, src := range sample {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, append([]string{"test", "-json", "-count=1"}, patterns...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	out, _ := cmd.Output() // failing packages make go test exit 1: the point
	if len(out) == 0 {
		t.Fatalf("go test -json %v wrote nothing", patterns)
	}
	return out
}

func run(t *testing.T, input []byte, required bool) (string, bool) {
	t.Helper()
	var out bytes.Buffer
	r := newReport(&out)
	if err := r.read(bytes.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	ok := r.finish(required)
	return out.String(), ok
}

func mustContain(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
}

func TestListsEverySkipWithItsReason(t *testing.T) {
	t.Parallel()
	input := goTestJSON(t, "./ok")
	out, ok := run(t, input, false)
	if !ok {
		t.Errorf("passing package with skips reported as failed:\n%s", out)
	}
	mustContain(t, out,
		"ok    example.com/sample/ok",
		"Skipped (3):",
		"example.com/sample/ok TestLong: long: not with -short",
		"example.com/sample/ok TestNeedsZooKeeper: SKIPPING real ZooKeeper test: java is not on PATH",
		"example.com/sample/ok TestTable/needs-kazoo: SKIPPING interop test: python3 cannot import kazoo",
		"3 passed, 0 failed, 3 skipped (2 for a missing peer) in 1 packages",
	)
}

func TestPeerSkipFailsWhenRequired(t *testing.T) {
	t.Parallel()
	out, ok := run(t, goTestJSON(t, "./ok"), true)
	if ok {
		t.Errorf("skips for a missing peer passed under ZKX_REAL_ZK=required:\n%s", out)
	}
	mustContain(t, out, "FAIL: ZKX_REAL_ZK=required but 2 tests skipped for a missing peer")
}

func TestFailuresShowTheirOutput(t *testing.T) {
	t.Parallel()
	out, ok := run(t, goTestJSON(t, "./fails", "./dies", "./broken"), false)
	if ok {
		t.Errorf("failing packages reported as a success:\n%s", out)
	}
	mustContain(t, out,
		"--- FAIL  example.com/sample/fails TestFails",
		"the answer was 41",
		"FAIL  example.com/sample/fails",
		"FAIL  example.com/sample/dies",
		"about to go",
		"BUILD FAIL  example.com/sample/broken",
		"undefined: undefined",
		"FAIL: 1 packages did not build: example.com/sample/broken",
	)
}

func TestNothingReadIsAFailure(t *testing.T) {
	t.Parallel()
	out, ok := run(t, []byte("no Go files in /tmp/x\n"), false)
	if ok {
		t.Errorf("an empty stream passed:\n%s", out)
	}
	mustContain(t, out, "no Go files in /tmp/x", "FAIL: no test events read")
}

func TestReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ output, want string }{
		{"=== RUN   TestX\n    locate.go:118: SKIPPING real ZooKeeper test: java is not on PATH\n--- SKIP: TestX (0.00s)\n",
			"SKIPPING real ZooKeeper test: java is not on PATH"},
		{"=== RUN   TestX\n    x_test.go:9: one\n    x_test.go:10: two\n--- SKIP: TestX (0.00s)\n", "one / two"},
		{"=== RUN   TestX\n--- SKIP: TestX (0.00s)\n", "(no reason given)"},
	} {
		if got := reason(tc.output); got != tc.want {
			t.Errorf("reason(%q) = %q, want %q", tc.output, got, tc.want)
		}
	}
}
