package zktest

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// compiledJava keeps what javac made in this test binary, by classpath and
// sources, so that a peer is compiled once however many tests start it:
// javac costs one to two seconds of CPU, and cmd's tests alone start peers
// from the same few sources some thirty times. The classes live under a
// directory Main removes; without Main, each compilation goes to the
// test's own TempDir as before.
var compiledJava struct {
	mu    sync.Mutex
	dir   string // made on first use
	bySrc map[string]*javacRun
}

// javacRun is one compilation, shared by the tests that asked for it.
type javacRun struct {
	done    chan struct{} // closed once javac has run
	classes string
	program Program // what javac did
	err     error   // no directory for the classes, or javac failed (program says how)
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
			run.classes, run.err = javacDir()
			if run.err == nil {
				run.program = runJavac(t, javac, run.classes, classpath, sources)
				run.err = run.program.Err
			}
		}()
	}
	<-run.done
	return run.result(t, sources)
}

// javacDir makes a directory for one compilation under the binary's own.
func javacDir() (string, error) {
	compiledJava.mu.Lock()
	defer compiledJava.mu.Unlock()
	if compiledJava.dir == "" {
		dir, err := os.MkdirTemp("", "zktest-javac-")
		if err != nil {
			return "", fmt.Errorf("a directory for javac's classes: %w", err)
		}
		compiledJava.dir = dir
	}
	dir, err := os.MkdirTemp(compiledJava.dir, "classes-")
	if err != nil {
		return "", fmt.Errorf("a directory for javac's classes: %w", err)
	}
	return dir, nil
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

// removeCompiledJava removes what compileJava made; Main calls it once the
// tests have run.
func removeCompiledJava() error {
	compiledJava.mu.Lock()
	defer compiledJava.mu.Unlock()
	if compiledJava.dir == "" {
		return nil
	}
	err := os.RemoveAll(compiledJava.dir)
	compiledJava.dir, compiledJava.bySrc = "", nil
	return err
}
