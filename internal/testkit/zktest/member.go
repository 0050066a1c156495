package zktest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// modeTimeout bounds one srvr exchange of Member.Mode.
	modeTimeout = 2 * time.Second
	// killTimeout bounds the wait for a SIGKILLed JVM to be reaped.
	killTimeout = 10 * time.Second
	// stopTimeout bounds the wait for a SIGSTOPped JVM's threads to stop.
	stopTimeout = 5 * time.Second
	// logTailBytes is how much of a server's log a failure prints.
	logTailBytes = 4096
)

// Member is one real ZooKeeper server process of an Ensemble.
type Member struct {
	id           int
	clientPort   int
	quorumPort   int // 0 for a standalone server
	electionPort int // 0 for a standalone server
	dir          string
	cfgPath      string
	logPath      string
	rt           runtimePaths
	jvmArgs      []string // system properties zoo.cfg cannot set (JAAS, Kerberos)

	mu     sync.Mutex
	proc   *process // nil before the first start and after Kill
	paused bool
}

// ID returns the server's myid, 1-based (1 for a standalone server).
func (m *Member) ID() int { return m.id }

// Addr returns the member's client address, "127.0.0.1:clientPort".
func (m *Member) Addr() string { return "127.0.0.1:" + strconv.Itoa(m.clientPort) }

// String names the member in messages.
func (m *Member) String() string { return fmt.Sprintf("zk%d(%s)", m.id, m.Addr()) }

// DataDir returns the member's dataDir, which holds version-2 with its
// transaction logs and snapshots.
func (m *Member) DataDir() string { return filepath.Join(m.dir, "data") }

// Mode asks the member's srvr and returns its mode: "leader", "follower" or
// "standalone"; an error when it does not serve (down, paused, not in a
// quorum).
func (m *Member) Mode() (string, error) {
	return m.mode(modeTimeout)
}

func (m *Member) mode(timeout time.Duration) (string, error) {
	out, err := FourLetter(m.Addr(), "srvr", timeout)
	if err != nil {
		return "", err
	}
	return parseMode(out)
}

// parseMode finds the "Mode: X" line of a srvr answer.
func parseMode(srvr string) (string, error) {
	for _, line := range strings.Split(srvr, "\n") {
		if mode, ok := strings.CutPrefix(strings.TrimSpace(line), "Mode: "); ok {
			return mode, nil
		}
	}
	if strings.Contains(srvr, "not currently serving") {
		return "", errors.New("zktest: server is not currently serving requests")
	}
	return "", fmt.Errorf("zktest: no Mode in srvr answer %q", srvr)
}

// Kill sends SIGKILL to the member's process group and waits for it to
// exit. Killing a member that is not running does nothing.
func (m *Member) Kill(t testing.TB) {
	t.Helper()
	if err := m.kill(); err != nil {
		t.Fatalf("zktest: kill %v: %v", m, err)
	}
}

// WaitSnapshots waits (at most 30 s) until every snapshot the member's
// snapshot thread began is written: ZooKeeper takes snapshots on a thread
// of its own, and a member killed in the middle of one leaves a file
// ZooKeeper's own readers refuse. Tests that kill a member and then read
// its snapshots call it first.
func (m *Member) WaitSnapshots(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		log, err := os.ReadFile(m.logPath)
		if err != nil {
			t.Fatalf("zktest: %v: %v", m, err)
		}
		begun, taken := 0, 0
		for _, line := range strings.Split(string(log), "\n") {
			// "[Snapshot Thread]" under slf4j-simple, "[Snapshot
			// Thread:…" under log4j's layout (RealOptions.Audit).
			if !strings.Contains(line, "[Snapshot Thread") {
				continue
			}
			switch {
			case strings.Contains(line, "Snapshotting: "):
				begun++
			case strings.Contains(line, "Snapshot taken in "):
				taken++
			}
		}
		if taken >= begun {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("zktest: %v: %d snapshots begun, %d written after 30s", m, begun, taken)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline
	}
}

func (m *Member) kill() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil {
		return nil
	}
	err := m.proc.kill(killTimeout)
	m.proc = nil
	m.paused = false
	return err
}

// Restart starts the member again, after Kill, with the same configuration
// and data directory. It does not wait until the member serves: use
// Ensemble.WaitServing.
func (m *Member) Restart(t testing.TB) {
	t.Helper()
	if err := m.start(); err != nil {
		t.Fatalf("zktest: restart %v: %v", m, err)
	}
}

// start launches the member's JVM.
func (m *Member) start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc != nil {
		if !m.proc.exited() {
			return errors.New("still running (Kill it first)")
		}
		m.proc = nil // it died on its own: start afresh
	}
	args := append([]string{
		"-Dzookeeper.extendedTypesEnabled=true",
		// No fsync per write: a killed JVM's writes are in the page cache
		// all the same, and only a power cut would lose them; every test's
		// server shares one disk.
		"-Dzookeeper.forceSync=no",
		"-Dznode.container.checkIntervalMs=100",
		"-Dzookeeper.admin.enableServer=false",
		"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-XX:-UsePerfData", // no hsperfdata files left in /tmp by SIGKILLed JVMs
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
	}, m.jvmArgs...)
	args = append(args, "-cp", m.rt.classpath, "org.apache.zookeeper.server.quorum.QuorumPeerMain", m.cfgPath)
	cmd := exec.Command(m.rt.java, args...)
	cmd.Dir = m.dir
	p, err := startProcess(cmd, m.logPath)
	if err != nil {
		return err
	}
	m.proc = p
	m.paused = false
	return nil
}

// Pause stops the member with SIGSTOP: it keeps its sockets but answers
// nothing, like a server stuck in a long GC pause. Resume undoes it.
func (m *Member) Pause(t testing.TB) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil || m.proc.exited() {
		t.Fatalf("zktest: pause %v: not running", m)
	}
	pid := m.proc.cmd.Process.Pid
	if err := stopGroup(pid); err != nil {
		t.Fatalf("zktest: pause %v: %v", m, err)
	}
	m.paused = true
	if err := waitStopped(pid, stopTimeout); err != nil {
		t.Fatalf("zktest: pause %v: %v", m, err)
	}
}

// Resume continues a paused member with SIGCONT.
func (m *Member) Resume(t testing.TB) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil || m.proc.exited() {
		t.Fatalf("zktest: resume %v: not running", m)
	}
	if err := contGroup(m.proc.cmd.Process.Pid); err != nil {
		t.Fatalf("zktest: resume %v: %v", m, err)
	}
	m.paused = false
}

// memberState is a snapshot of what a member's process is doing.
type memberState int

const (
	stateDown    memberState = iota // never started or killed
	stateRunning                    // running and not paused
	statePaused                     // running but stopped by Pause
	stateExited                     // died on its own
)

func (m *Member) state() (memberState, *process) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.proc == nil:
		return stateDown, nil
	case m.proc.exited():
		return stateExited, m.proc
	case m.paused:
		return statePaused, m.proc
	default:
		return stateRunning, m.proc
	}
}

// logTail returns the end of the member's log file.
func (m *Member) logTail() string {
	f, err := os.Open(m.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(log: %v)", err)
	}
	off := fi.Size() - logTailBytes
	if off < 0 {
		off = 0
	}
	b := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(b, off)
	if err != nil && n == 0 {
		return fmt.Sprintf("(log: %v)", err)
	}
	s := string(b[:n])
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = "...\n" + s
	}
	if strings.TrimSpace(s) == "" {
		return "(log empty)"
	}
	return s
}
