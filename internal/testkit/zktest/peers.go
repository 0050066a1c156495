package zktest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Real peers: the Curator, Kazoo and zkCli.sh programs Debian ships, run by
// interop tests. A missing one skips the test loudly, or fails it under
// ZKX_REAL_ZK=required, like a missing ZooKeeper.

// Program is what an external program did.
type Program struct {
	Cmdline        string
	Stdout, Stderr string
	Elapsed        time.Duration
	ExitCode       int
	TimedOut       bool
	Err            error
}

// Log writes the program's command line and output to the test log.
func (p Program) Log(t testing.TB) {
	t.Helper()
	t.Logf("$ %s\n(%v, %v)\n--- stdout:\n%s--- stderr:\n%s", p.Cmdline, p.Elapsed.Round(time.Millisecond), p.Err, p.Stdout, p.Stderr)
}

// ExpectLine requires a clean exit and want among the printed lines.
func (p Program) ExpectLine(t testing.TB, want string) {
	t.Helper()
	if p.Err != nil {
		p.Log(t)
		t.Fatalf("%v", p.Err)
	}
	if p.HasLine(want) {
		t.Logf("%s (%v)", want, p.Elapsed.Round(time.Millisecond))
		return
	}
	p.Log(t)
	t.Fatalf("want the line\n\t%s", want)
}

// HasLine reports whether the program printed want as a whole line.
func (p Program) HasLine(want string) bool {
	return slices.Contains(strings.Split(p.Stdout, "\n"), want)
}

// RunProgram runs a program with stdin within timeout, in its own process
// group (a script that starts java is killed whole on timeout, and with the
// test process). With combined, stderr goes to stdout, interleaved as written.
func RunProgram(t testing.TB, timeout time.Duration, stdin string, combined bool, name string, args ...string) Program {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if combined {
		cmd.Stderr = &stdout // the same writer: exec shares one pipe
	}
	p := Program{Cmdline: name + " " + strings.Join(args, " ")}
	begin := time.Now()
	p.Err = cmd.Run()
	p.Elapsed = time.Since(begin)
	p.ExitCode = cmd.ProcessState.ExitCode()
	if ctx.Err() == context.DeadlineExceeded {
		p.TimedOut = true
		p.Err = fmt.Errorf("killed after %v: %w", timeout, p.Err)
	}
	p.Stdout, p.Stderr = stdout.String(), stderr.String()
	return p
}

// setProcessGroup puts cmd in a process group of its own that dies with the
// test and is killed whole when the context ends.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
}

// LookPath finds a program on PATH, or reports it missing with the command
// that installs it.
func LookPath(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, fmt.Sprintf("%s is not on PATH", name), install)
	}
	return p
}

// DebianFile finds the file of a Debian package whose path ends in suffix,
// or reports it missing.
func DebianFile(t testing.TB, pkg, suffix, install string) string {
	t.Helper()
	out, err := exec.Command("dpkg", "-L", pkg).Output()
	if err != nil {
		Missing(t, fmt.Sprintf("dpkg -L %s: %v", pkg, err), install)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, suffix) {
			if _, err := os.Stat(line); err == nil {
				return line
			}
		}
	}
	Missing(t, fmt.Sprintf("package %s has no file *%s", pkg, suffix), install)
	return ""
}

// Missing skips the test loudly, or fails it when real peers are required
// (ZKX_REAL_ZK=required).
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if RequireReal() {
		t.Fatalf("interop test cannot run but ZKX_REAL_ZK=required: %s (fix: %s)", what, install)
	}
	t.Skipf("SKIPPING interop test: %s (fix: %s)", what, install)
}

// curatorJars are the jars a Curator client needs, by Debian package.
var curatorJars = []struct{ pkg, jar string }{
	{"libcurator-client-java", "curator-client.jar"},
	{"libcurator-framework-java", "curator-framework.jar"},
	{"libcurator-recipes-java", "curator-recipes.jar"},
	{"libguava-java", "guava.jar"},
	{"libslf4j-java", "slf4j-api.jar"},
	{"libslf4j-java", "slf4j-simple.jar"}, // client logs (warnings only) on stderr
	{"libzookeeper-java", "zookeeper.jar"},
	{"libzookeeper-java", "zookeeper-jute.jar"},
}

// CuratorInstall is what installs the Curator peers.
const CuratorInstall = "apt-get install -y default-jdk-headless libcurator-recipes-java"

// CompileCurator compiles Java sources against Debian's Curator (once per
// machine while they do not change, see compileJava) and returns the
// classpath to run them with.
func CompileCurator(t testing.TB, sources ...string) string {
	t.Helper()
	var classpath []string
	for _, j := range curatorJars {
		classpath = append(classpath, DebianFile(t, j.pkg, "/"+j.jar, CuratorInstall))
	}
	classes := compileJava(t, classpath, sources...)
	return strings.Join(append([]string{classes}, classpath...), string(filepath.ListSeparator))
}

// Java returns the java binary, or reports it missing.
func Java(t testing.TB) string { return LookPath(t, "java", CuratorInstall) }

// JavaQuietFlags keep Curator clients' logs to warnings and start the JVM fast.
var JavaQuietFlags = []string{
	"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
	// A client closing its own session logs a harmless EndOfStreamException.
	"-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn=error",
	"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
}

// KazooInstall is what installs the Kazoo peer.
const KazooInstall = "apt-get install -y python3-kazoo"

// KazooPython returns Debian's python3, which python3-kazoo is installed
// for (the python3 first on PATH need not be it), after checking it can
// import kazoo: once per test binary, as the suite starts Kazoo peers some
// fifty times.
func KazooPython(t testing.TB) string {
	t.Helper()
	py := DebianFile(t, "python3-minimal", "/bin/python3", KazooInstall)
	kazooChecked.mu.Lock()
	if kazooChecked.byPython == nil {
		kazooChecked.byPython = map[string]Program{}
	}
	p, ok := kazooChecked.byPython[py]
	if !ok {
		p = RunProgram(t, time.Minute, "", false, py, "-c", "import kazoo.client")
		kazooChecked.byPython[py] = p
	}
	kazooChecked.mu.Unlock()
	if p.Err != nil {
		p.Log(t)
		Missing(t, fmt.Sprintf("%s cannot import kazoo: %v", py, p.Err), KazooInstall)
	}
	return py
}

// kazooChecked is what KazooPython's import check found, by python.
var kazooChecked struct {
	mu       sync.Mutex
	byPython map[string]Program
}
