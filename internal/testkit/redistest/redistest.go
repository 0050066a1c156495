package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// install is what makes redis-server available.
const install = "apt-get install redis-server"

// Embedded starts miniredis on a free loopback port with ClockTTL on, so
// leases run out on the wall clock (or on SetTime's clock, for tests that
// move time themselves).
func Embedded(t testing.TB) *miniredis.Miniredis {
	t.Helper()
	m := miniredis.NewMiniRedis()
	m.ClockTTL(true)
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		t.Fatalf("start miniredis: %v", err)
	}
	t.Cleanup(m.Close)
	return m
}

// Server is a running redis-server.
type Server struct {
	Addr string
	cmd  *exec.Cmd
}

// Real starts Debian's redis-server on a free loopback port, with no
// persistence, and stops it when the test ends.
func Real(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		zktest.Missing(t, "redis-server is not on PATH", install)
	}
	dir := t.TempDir()
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port := zktest.FreePort(t)
		s, err := start(bin, dir, port)
		if err == nil {
			t.Cleanup(s.stop)
			return s
		}
		lastErr = err // most likely the port was taken meanwhile
	}
	t.Fatalf("start redis-server: %v", lastErr)
	return nil
}

func start(bin, dir string, port int) (*Server, error) {
	logPath := filepath.Join(dir, fmt.Sprintf("redis-%d.log", port))
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--logfile", logPath, "--protected-mode", "no")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), cmd: cmd}
	deadline := time.Now().Add(15 * time.Second)
	for {
		if err := ping(s.Addr); err == nil {
			return s, nil
		} else if time.Now().After(deadline) {
			cmd.Process.Kill()
			return nil, fmt.Errorf("redis-server on %s did not answer PING in 15s: %v (log %s)", s.Addr, err, logPath)
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("redis-server on port %d exited: %v: %s", port, err, strings.TrimSpace(string(log)))
		case <-time.After(20 * time.Millisecond): // polling the port: the server has no other signal
		}
	}
}

// ping sends an inline PING and wants +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

func (s *Server) stop() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	s.cmd.Process.Wait()
}
