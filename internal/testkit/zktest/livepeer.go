package zktest

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// livePeerDeadline bounds a live peer's start (a JVM compiling and
// setting up state) and its READY.
const livePeerDeadline = 3 * time.Minute

// LivePeer is a peer program that sets up coordination state with another
// library (Curator, Kazoo), prints READY once its holders hold and its
// waiters wait, and keeps the state live until its stdin closes.
type LivePeer struct {
	name   string
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	ready  chan struct{}
	exited chan struct{}
	err    error // once exited

	mu  sync.Mutex
	log strings.Builder // stdout and stderr
}

// StartLivePeer starts a peer program in a process group of its own; the
// test's cleanup closes its stdin and waits for it to clean up and exit.
func StartLivePeer(t testing.TB, name string, args ...string) *LivePeer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), livePeerDeadline)
	p := &LivePeer{name: filepath.Base(name), cancel: cancel, ready: make(chan struct{}), exited: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, name, args...)
	setProcessGroup(p.cmd)
	p.cmd.WaitDelay = 10 * time.Second
	p.cmd.Stderr = peerLog{p}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		lines := bufio.NewScanner(stdout)
		readied := false
		for lines.Scan() {
			peerLog{p}.Write([]byte(lines.Text() + "\n"))
			if lines.Text() == "READY" && !readied {
				readied = true
				close(p.ready)
			}
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// peerLog appends to a peer's log.
type peerLog struct{ p *LivePeer }

func (w peerLog) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.log.Write(b)
}

// WaitReady waits for the peer's READY.
func (p *LivePeer) WaitReady(t testing.TB) {
	t.Helper()
	select {
	case <-p.ready:
	case <-p.exited:
		t.Fatalf("%s exited before READY: %v\n%s", p.name, p.err, p.Output())
	case <-time.After(livePeerDeadline):
		t.Fatalf("%s not READY within %v:\n%s", p.name, livePeerDeadline, p.Output())
	}
}

// stop closes the peer's stdin, which tells it to clean up, and waits for
// it (killing its group if it does not exit).
func (p *LivePeer) stop(t testing.TB) {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.cancel()
		<-p.exited
	}
	p.cancel()
	if p.err != nil {
		t.Errorf("%s: %v\n%s", p.name, p.err, p.Output())
	} else if t.Failed() {
		t.Logf("%s output:\n%s", p.name, p.Output())
	}
}

// Output is what the peer printed so far.
func (p *LivePeer) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// recipesTestdata is the project's testdata/recognize, which holds the
// peer programs.
func recipesTestdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "recognize")
}

// StartKazooRecipes starts testdata/recognize/kazoo_recipes.py against
// connect: Kazoo's lock, read-write lock, semaphore, election, queues under
// base (its docstring lists them).
func StartKazooRecipes(t testing.TB, connect, base string) *LivePeer {
	t.Helper()
	return StartLivePeer(t, KazooPython(t), filepath.Join(recipesTestdata(), "kazoo_recipes.py"), connect, base)
}

// StartCuratorRecipes compiles and starts testdata/recognize/RecognizeMain
// against connect: Curator's and ZooKeeper's own recipes under base.
func StartCuratorRecipes(t testing.TB, connect, base string) *LivePeer {
	t.Helper()
	src := recipesTestdata()
	classpath := CompileCurator(t, filepath.Join(src, "CuratorRecipes.java"))
	const install = "apt-get install -y libzookeeper-java"
	for _, jar := range []string{"lock", "election", "queue"} {
		classpath += string(filepath.ListSeparator) + DebianFile(t, "libzookeeper-java", "/zookeeper-recipes-"+jar+".jar", install)
	}
	classes := t.TempDir()
	javac := LookPath(t, "javac", CuratorInstall)
	if p := RunProgram(t, 2*time.Minute, "", false, javac, "-d", classes, "-cp", classpath,
		filepath.Join(src, "ZkRecipes.java"), filepath.Join(src, "RecognizeMain.java")); p.Err != nil {
		p.Log(t)
		t.Fatalf("javac: %v", p.Err)
	}
	args := append(append([]string{}, JavaQuietFlags...), "-cp", classes+string(filepath.ListSeparator)+classpath, "RecognizeMain", connect, base)
	return StartLivePeer(t, Java(t), args...)
}
