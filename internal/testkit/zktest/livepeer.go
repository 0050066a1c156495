package zktest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
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

	mu     sync.Mutex
	log    strings.Builder // stdout and stderr
	lines  []string        // stdout, line by line
	said   chan struct{}   // closed (and replaced) at each new line
	paused bool
	killed bool // by Kill: its exit status is the test's doing
}

// StartLivePeer starts a peer program in a process group of its own; the
// test's cleanup closes its stdin and waits for it to clean up and exit.
func StartLivePeer(t testing.TB, name string, args ...string) *LivePeer {
	t.Helper()
	return startLivePeerEnv(t, nil, name, args...)
}

// startLivePeerEnv is StartLivePeer with env added to the environment.
func startLivePeerEnv(t testing.TB, env []string, name string, args ...string) *LivePeer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), livePeerDeadline)
	p := &LivePeer{name: filepath.Base(name), cancel: cancel, ready: make(chan struct{}), exited: make(chan struct{}), said: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, name, args...)
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
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
			p.mu.Lock()
			p.lines = append(p.lines, lines.Text())
			close(p.said)
			p.said = make(chan struct{})
			p.mu.Unlock()
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
type peerLog struct{ peer *LivePeer }

func (w peerLog) Write(b []byte) (int, error) {
	w.peer.mu.Lock()
	defer w.peer.mu.Unlock()
	return w.peer.log.Write(b)
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

// WaitLine waits until the peer prints a line starting with prefix (at or
// after line from, counting from 0) and returns it with its index.
func (p *LivePeer) WaitLine(t testing.TB, from int, prefix string) (string, int) {
	t.Helper()
	deadline := time.After(livePeerDeadline)
	for {
		p.mu.Lock()
		for i := from; i < len(p.lines); i++ {
			if strings.HasPrefix(p.lines[i], prefix) {
				line := p.lines[i]
				p.mu.Unlock()
				return line, i
			}
		}
		said := p.said
		p.mu.Unlock()
		select {
		case <-said:
		case <-p.exited:
			t.Fatalf("%s exited before printing %q: %v\n%s", p.name, prefix, p.err, p.Output())
		case <-deadline:
			t.Fatalf("%s did not print %q within %v:\n%s", p.name, prefix, livePeerDeadline, p.Output())
		}
	}
}

// Said reports whether the peer printed a line starting with prefix.
func (p *LivePeer) Said(prefix string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// Send writes one line to the peer's stdin.
func (p *LivePeer) Send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatalf("%s: write %q: %v", p.name, line, err)
	}
}

// Pause stops the peer's process group with SIGSTOP: its sockets stay
// open and it answers nothing, like a process frozen in a GC pause.
// Resume (or the cleanup) continues it.
func (p *LivePeer) Pause(t testing.TB) {
	t.Helper()
	pid := p.cmd.Process.Pid
	if err := stopGroup(pid); err != nil {
		t.Fatalf("%s: SIGSTOP: %v", p.name, err)
	}
	p.mu.Lock()
	p.paused = true
	p.mu.Unlock()
	if err := waitStopped(pid, 10*time.Second); err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
}

// Resume continues a paused peer with SIGCONT.
func (p *LivePeer) Resume(t testing.TB) {
	t.Helper()
	if err := contGroup(p.cmd.Process.Pid); err != nil {
		t.Fatalf("%s: SIGCONT: %v", p.name, err)
	}
	p.mu.Lock()
	p.paused = false
	p.mu.Unlock()
}

// Kill sends SIGKILL to the peer's process group and waits for it: its
// sessions end without a word, and expire on the server.
func (p *LivePeer) Kill(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	if err := killGroup(p.cmd.Process.Pid); err != nil {
		select {
		case <-p.exited:
			return
		default:
			t.Fatalf("kill %s: %v", p.name, err)
		}
	}
	select {
	case <-p.exited:
	case <-time.After(killTimeout):
		t.Fatalf("%s did not exit within %v of SIGKILL", p.name, killTimeout)
	}
}

// String names the peer in messages.
func (p *LivePeer) String() string { return fmt.Sprintf("%s[%d]", p.name, p.cmd.Process.Pid) }

// Pid is the peer's process id (its process group's too).
func (p *LivePeer) Pid() int { return p.cmd.Process.Pid }

// stop closes the peer's stdin, which tells it to clean up, and waits for
// it (killing its group if it does not exit).
func (p *LivePeer) stop(t testing.TB) {
	p.mu.Lock()
	paused, killed := p.paused, p.killed
	p.mu.Unlock()
	if paused {
		contGroup(p.cmd.Process.Pid)
	}
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.cancel()
		<-p.exited
	}
	p.cancel()
	if p.err != nil && !killed {
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

// interopTestdata is the project's testdata/interop, which holds the lock
// peers.
func interopTestdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "interop")
}

// StartKazooLock starts testdata/interop/kazoo/lock_peer.py: a Kazoo Lock
// on path (with extra_lock_patterns when given) that prints SESSION, then
// HOLDING when Kazoo believes it holds, and releases on Send("release").
// Its session times out after sessionTimeout.
func StartKazooLock(t testing.TB, connect, path, id string, sessionTimeout time.Duration, extra ...string) *LivePeer {
	t.Helper()
	args := append([]string{filepath.Join(interopTestdata(), "kazoo", "lock_peer.py"), connect, path, id}, extra...)
	p := startLivePeerEnv(t, []string{fmt.Sprintf("PEER_SESSION_TIMEOUT=%g", sessionTimeout.Seconds())}, KazooPython(t), args...)
	return p
}

// StartCuratorLock compiles and starts testdata/interop/curator/LockPeer:
// a Curator InterProcessMutex on path that prints SESSION, then HOLDING
// when Curator believes it holds, and releases on Send("release"). Its
// session times out after sessionTimeout.
func StartCuratorLock(t testing.TB, connect, path string, sessionTimeout time.Duration) *LivePeer {
	t.Helper()
	classpath := CompileCurator(t, filepath.Join(interopTestdata(), "curator", "LockPeer.java"))
	args := append(append([]string{}, JavaQuietFlags...), fmt.Sprintf("-Dpeer.sessionTimeoutMs=%d", sessionTimeout.Milliseconds()),
		"-cp", classpath, "LockPeer", connect, path)
	return StartLivePeer(t, Java(t), args...)
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
	classes := compileJava(t, filepath.SplitList(classpath), filepath.Join(src, "ZkRecipes.java"), filepath.Join(src, "RecognizeMain.java"))
	args := append(append([]string{}, JavaQuietFlags...), "-cp", classes+string(filepath.ListSeparator)+classpath, "RecognizeMain", connect, base)
	return StartLivePeer(t, Java(t), args...)
}

// StartCuratorLocks compiles and starts testdata/interop/curator/LocksPeer:
// one Curator session that takes locks as it is told, line by line
// ("lock PATH" → "locked PATH", "read PATH", "write PATH", "unlock PATH"),
// and printed "SESSION 0x…" first. Its session times out after
// sessionTimeout.
func StartCuratorLocks(t testing.TB, connect string, sessionTimeout time.Duration) *LinePeer {
	t.Helper()
	classpath := CompileCurator(t, filepath.Join(interopTestdata(), "curator", "LocksPeer.java"))
	args := append(append([]string{}, JavaQuietFlags...), fmt.Sprintf("-Dpeer.sessionTimeoutMs=%d", sessionTimeout.Milliseconds()),
		"-cp", classpath, "LocksPeer", connect)
	return &LinePeer{LivePeer: StartLivePeer(t, Java(t), args...), taken: map[int]bool{}}
}

// StartKazooLocks starts testdata/interop/kazoo/locks_peer.py: one Kazoo
// session that takes locks as it is told, line by line ("lock PATH
// [EXTRA_LOCK_PATTERN...]" → "locked PATH", "unlock PATH"), and printed
// "SESSION 0x…" first. Its session times out after sessionTimeout.
func StartKazooLocks(t testing.TB, connect, id string, sessionTimeout time.Duration) *LinePeer {
	t.Helper()
	p := startLivePeerEnv(t, []string{fmt.Sprintf("PEER_SESSION_TIMEOUT=%g", sessionTimeout.Seconds())}, KazooPython(t),
		filepath.Join(interopTestdata(), "kazoo", "locks_peer.py"), connect, id)
	return &LinePeer{LivePeer: p, taken: map[int]bool{}}
}

// StartCuratorRoles compiles and starts testdata/interop/curator/RolePeer:
// one Curator session (timing out after sessionTimeout) that takes each
// ROLE:PATH in order — read or write (InterProcessReadWriteLock), mutex
// (InterProcessMutex), latch (LeaderLatch) — and prints SESSION 0x…,
// "QUEUED ROLE PATH" once each recipe's node is in place and "HOLDING ROLE
// PATH" once Curator believes it holds (leads). touch, when positive,
// makes it ask the server something that often, as a busy client does.
// It returns once every recipe is queued.
func StartCuratorRoles(t testing.TB, connect string, sessionTimeout, touch time.Duration, roles ...string) *LivePeer {
	t.Helper()
	classpath := CompileCurator(t, filepath.Join(interopTestdata(), "curator", "RolePeer.java"))
	args := append(append([]string{}, JavaQuietFlags...),
		fmt.Sprintf("-Dpeer.sessionTimeoutMs=%d", sessionTimeout.Milliseconds()), fmt.Sprintf("-Dpeer.touchMs=%d", touch.Milliseconds()),
		"-cp", classpath, "RolePeer", connect)
	p := StartLivePeer(t, Java(t), append(args, roles...)...)
	from := 0
	for _, r := range roles {
		role, path, _ := strings.Cut(r, ":")
		_, at := p.WaitLine(t, from, "QUEUED "+role+" "+path)
		from = at + 1
	}
	return p
}
