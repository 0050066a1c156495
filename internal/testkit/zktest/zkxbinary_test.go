package zktest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestZkxBinary: the binary is built once and runs; built again, as
// another test binary of the run builds it, an up-to-date binary in the
// cache is not linked again.
func TestZkxBinary(t *testing.T) {
	t.Parallel()
	bin := ZkxBinary(t)
	if again := ZkxBinary(t); again != bin {
		t.Fatalf("a second call built elsewhere: %s, then %s", bin, again)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "zkx ") {
		t.Fatalf("%s version: %v\n%s", bin, err, out)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if zkxBinaryDir(root) == "" {
		t.Skip("no user cache directory here: the binary is built once per test binary")
	}
	// Another test binary's build, as buildZkx runs it, under the lock,
	// with -x to print what it runs.
	unlock, err := lockFile(filepath.Dir(bin) + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	out, err = zkxBuild(LookPath(t, "go", "install Go"), root, bin, "-x").CombinedOutput()
	if err != nil {
		t.Fatalf("go build again: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "/link ") {
		t.Errorf("an up-to-date binary was linked again:\n%s", out)
	}
}
