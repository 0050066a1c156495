package zktest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// builtZkx is the zkx binary of this test binary's tests, built on first
// use.
var builtZkx struct {
	once   sync.Once
	path   string
	output []byte // go build's, when it failed
	err    error
	temp   string // a directory of the binary's own, without a cache; removed by Main
}

// ZkxBinary returns the zkx binary built from the sources of the module the
// test runs in, for tests that run it as a user does; they only run it.
// It is built once per test binary, into a cache of one directory per
// checkout (under the user's cache directory, beside the javac cache):
// go build leaves a binary that is up to date as it is, so the test
// binaries of a run, and later runs, link it once at most instead of each
// of them once, and a link of zkx costs seconds of CPU. Without a cache
// directory it goes to a directory Main removes.
func ZkxBinary(t testing.TB) string {
	t.Helper()
	goTool := LookPath(t, "go", "install Go")
	builtZkx.once.Do(func() { builtZkx.path, builtZkx.output, builtZkx.err = buildZkx(goTool) })
	if builtZkx.err != nil {
		t.Fatalf("go build zkx: %v\n%s", builtZkx.err, builtZkx.output)
	}
	return builtZkx.path
}

// buildZkx runs go build for the module's main package in its binary's
// directory, under that directory's lock (the test binaries of one run
// build it side by side).
func buildZkx(goTool string) (string, []byte, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", nil, err
	}
	dir := zkxBinaryDir(root)
	if dir == "" {
		if dir, err = os.MkdirTemp("", "zktest-zkx-"); err != nil {
			return "", nil, fmt.Errorf("a directory for the binary: %w", err)
		}
		builtZkx.temp = dir
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, fmt.Errorf("the binary's cache: %w", err)
		}
		unlock, err := lockFile(dir + ".lock")
		if err != nil {
			return "", nil, fmt.Errorf("the binary's cache: %w", err)
		}
		defer unlock()
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // kept by pruneCache while used
		_ = os.Chtimes(dir+".lock", now, now)
		pruneCache(filepath.Dir(dir))
	}
	bin := filepath.Join(dir, "zkx")
	out, err := zkxBuild(goTool, root, bin).CombinedOutput()
	return bin, out, err
}

// zkxBuild is go build of the module at root's main package into bin,
// with flags before the package.
func zkxBuild(goTool, root, bin string, flags ...string) *exec.Cmd {
	cmd := exec.Command(goTool, append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	cmd.Dir = root
	return cmd
}

// zkxBinaryDir is the cache directory of the checkout at root, "" when
// there is no user cache directory.
func zkxBinaryDir(root string) string {
	base := userCacheDir("test-bin")
	if base == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, hex.EncodeToString(sum[:8]))
}

// moduleRoot is the directory of the go.mod above the test's working
// directory (its package's).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// removeZkxBinary removes a binary built outside the cache; Main calls it
// once the tests have run.
func removeZkxBinary() error {
	if builtZkx.temp == "" {
		return nil
	}
	return os.RemoveAll(builtZkx.temp)
}
