package zktest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// compiledJava keeps what javac made in this test binary, by classpath and
// sources, so that a peer is compiled once however many tests start it:
// javac costs one to three seconds of CPU, and cmd's tests alone start
// peers from the same few sources some thirty times. Under Main the
// classes come from the cache (javacCacheDir), shared by every test binary
// and run; without Main, each compilation goes to the test's own TempDir.
var compiledJava struct {
	mu       sync.Mutex
	bySrc    map[string]*javacRun
	tempDirs []string // compilations kept outside the cache, removed by Main
}

// javacRun is one compilation, shared by the tests that asked for it.
type javacRun struct {
	done    chan struct{} // closed once the classes are there or err is set
	classes string
	program Program // what javac did, when it ran
	err     error   // no place for the classes, or javac failed (program says how)
}

// compileJava compiles sources against classpath and returns the
// directory of the classes; a failure fails the test with javac's output.
func compileJava(t testing.TB, classpath []string, sources ...string) string {
	t.Helper()
	javac := LookPath(t, "javac", CuratorInstall)
	if !mainRunning.Load() {
		run := &javacRun{classes: t.TempDir()}
		run.program = runJavac(t, javac, run.classes, classpath, sources)
		run.err = run.program.Err
		return run.result(t, sources)
	}
	key := strings.Join(classpath, ":") + "\x00" + strings.Join(sources, "\x00")
	compiledJava.mu.Lock()
	if compiledJava.bySrc == nil {
		compiledJava.bySrc = map[string]*javacRun{}
	}
	run, started := compiledJava.bySrc[key]
	if !started {
		run = &javacRun{done: make(chan struct{})}
		compiledJava.bySrc[key] = run
	}
	compiledJava.mu.Unlock()
	if !started {
		func() {
			defer close(run.done)
			run.classes, run.program, run.err = cachedJavac(t, javacCacheDir(), javac, classpath, sources)
		}()
	}
	<-run.done
	return run.result(t, sources)
}

// javacCacheDir is where compiled peers are kept across test binaries and
// runs, one directory per javac, classpath and sources (see javacKey),
// as Go's build cache keeps packages: the test binaries of one
// `go test ./...` ask for the same peers, and each compilation costs
// seconds of CPU on a machine the real servers already keep busy.
// ZKX_JAVAC_CACHE names another directory; "off" (or no cache directory)
// gives "" and each binary compiles for itself.
func javacCacheDir() string {
	switch v := os.Getenv("ZKX_JAVAC_CACHE"); v {
	case "off":
		return ""
	case "":
		return userCacheDir("test-javac")
	default:
		return v
	}
}

// cachedJavac returns the classes of sources compiled against classpath,
// from the cache under root when an identical compilation is there, else
// compiling them once (other test binaries wait on the lock, then find
// them). A cache that cannot be used (root "", no directory, no lock) is
// done without.
func cachedJavac(t testing.TB, root, javac string, classpath, sources []string) (classes string, program Program, err error) {
	t.Helper()
	if root == "" {
		return uncachedJavac(t, javac, classpath, sources)
	}
	key, err := javacKey(root, javac, classpath, sources)
	if err != nil {
		return "", Program{}, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Logf("zktest: javac's cache: %v; compiling without it", err)
		return uncachedJavac(t, javac, classpath, sources)
	}
	final := filepath.Join(root, key)
	unlock, err := lockFile(final + ".lock")
	if err != nil {
		t.Logf("zktest: javac's cache: %v; compiling without it", err)
		return uncachedJavac(t, javac, classpath, sources)
	}
	defer unlock()
	now := time.Now()
	_ = os.Chtimes(final+".lock", now, now) // a lock in use is not pruned
	if st, err := os.Stat(final); err == nil && st.IsDir() {
		_ = os.Chtimes(final, now, now) // kept by pruneCache while used
		return final, Program{}, nil
	}
	pruneCache(root)
	tmp, err := os.MkdirTemp(root, key+".tmp-")
	if err != nil {
		return "", Program{}, fmt.Errorf("a directory for javac's classes: %w", err)
	}
	program = runJavac(t, javac, tmp, classpath, sources)
	if program.Err != nil {
		os.RemoveAll(tmp)
		return "", program, program.Err
	}
	// A whole directory or none: an interrupted javac leaves only a .tmp-.
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		if st, statErr := os.Stat(final); statErr == nil && st.IsDir() {
			return final, program, nil // compiled meanwhile where the lock does not reach
		}
		return "", program, fmt.Errorf("javac's cache: %w", err)
	}
	return final, program, nil
}

// uncachedJavac compiles into a directory of the binary's own, which Main
// removes.
func uncachedJavac(t testing.TB, javac string, classpath, sources []string) (string, Program, error) {
	t.Helper()
	dir, err := os.MkdirTemp("", "zktest-javac-")
	if err != nil {
		return "", Program{}, fmt.Errorf("a directory for javac's classes: %w", err)
	}
	compiledJava.mu.Lock()
	compiledJava.tempDirs = append(compiledJava.tempDirs, dir)
	compiledJava.mu.Unlock()
	program := runJavac(t, javac, dir, classpath, sources)
	return dir, program, program.Err
}

// javacKey names one compilation: the javac binary, each classpath entry
// (path, size, modification time: an upgraded jar is another key) and each
// source (path and contents). A classpath entry that is a compilation of
// the cache under root is named by its path alone: its name is its key,
// and its modification time changes at each use (pruneCache keeps
// what is used), which made a compilation against it a new one each time.
func javacKey(root, javac string, classpath, sources []string) (string, error) {
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved
	}
	h := sha256.New()
	describe := func(path string) error {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("javac's cache: %w", err)
		}
		st, err := os.Stat(resolved)
		if err != nil {
			return fmt.Errorf("javac's cache: %w", err)
		}
		if st.IsDir() && filepath.Dir(resolved) == root {
			fmt.Fprintf(h, "%s\x00", resolved)
			return nil
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", resolved, st.Size(), st.ModTime().UnixNano())
		return nil
	}
	if err := describe(javac); err != nil {
		return "", err
	}
	for _, jar := range classpath {
		if err := describe(jar); err != nil {
			return "", err
		}
	}
	for _, src := range sources {
		abs, err := filepath.Abs(src)
		if err != nil {
			return "", fmt.Errorf("javac's cache: %w", err)
		}
		f, err := os.Open(abs)
		if err != nil {
			return "", fmt.Errorf("javac's cache: %w", err)
		}
		fmt.Fprintf(h, "%s\x00", abs)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("javac's cache: %s: %w", abs, err)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// runJavac compiles sources into classes.
func runJavac(t testing.TB, javac, classes string, classpath []string, sources []string) Program {
	t.Helper()
	args := append([]string{"-d", classes, "-cp", strings.Join(classpath, ":")}, sources...)
	return RunProgram(t, 2*time.Minute, "", false, javac, args...)
}

// result returns the classes, or fails the test with what went wrong.
func (r *javacRun) result(t testing.TB, sources []string) string {
	t.Helper()
	if r.err != nil {
		if r.program.Cmdline != "" {
			r.program.Log(t)
		}
		t.Fatalf("javac %v: %v", sources, r.err)
	}
	return r.classes
}

// removeCompiledJava forgets what compileJava made in this binary, and
// removes it when it was not kept in the shared cache
// (ZKX_JAVAC_CACHE=off); Main calls it once the tests have run.
func removeCompiledJava() error {
	compiledJava.mu.Lock()
	defer compiledJava.mu.Unlock()
	var errs []error
	for _, dir := range compiledJava.tempDirs {
		errs = append(errs, os.RemoveAll(dir))
	}
	compiledJava.tempDirs, compiledJava.bySrc = nil, nil
	return errors.Join(errs...)
}
