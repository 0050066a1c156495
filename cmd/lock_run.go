package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/recipes"
)

// Exit codes of `zkx lock` besides the command's own status.
const (
	exitLockLost    = 75  // the lock was lost while the command ran (sysexits' EX_TEMPFAIL: try again)
	exitLockTimeout = 124 // the lock was not acquired within --timeout (as timeout(1))
	exitLockFailure = 125 // zkx could not do its part (connect, create the lock)
	exitCannotRun   = 126 // the command could not be run
	exitNotFound    = 127 // the command was not found
)

// lockRunOptions says what to lock and what to run.
type lockRunOptions struct {
	Servers     []string
	Dir         string // the lock directory, as a server path (chroot applied)
	DisplayDir  string // the lock directory as the user wrote it, for messages
	Format      recipes.Format
	Timeout     time.Duration // 0: wait as long as it takes
	Data        []byte        // nil: the default owner data
	SessionOpts []recipes.SessionOption
	Command     []string
	Stdin       io.Reader
	Stdout      io.Writer
	Stderr      io.Writer
	// KillGrace is how long a command that lost its lock has between
	// SIGTERM and SIGKILL (default 10s).
	KillGrace time.Duration
}

// runLocked acquires the lock, runs the command with the token in its
// environment, releases the lock when the command exits, and returns the
// exit code zkx should end with. Signals to zkx while waiting cancel the
// wait; while the command runs they are passed on to it.
func runLocked(ctx context.Context, o lockRunOptions) int {
	if o.KillGrace <= 0 {
		o.KillGrace = 10 * time.Second
	}
	if _, isFile := o.Stderr.(*os.File); !isFile {
		// The command's stderr is then copied by a goroutine of exec while
		// we write our own messages: serialise the two.
		o.Stderr = &lockedWriter{out: o.Stderr}
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(o.Stderr, "zkx lock: %s\n", cliout.Clean(fmt.Sprintf(format, args...)))
	}

	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)

	s, err := recipes.Dial(o.Servers, o.SessionOpts...)
	if err != nil {
		logf("%v", err)
		return exitLockFailure
	}
	defer s.Close()

	var opts []recipes.Option
	opts = append(opts, recipes.WithFormat(o.Format))
	if o.Data != nil {
		opts = append(opts, recipes.WithData(o.Data))
	}
	m := recipes.NewMutex(s, o.Dir, opts...)
	if code, ok := acquireForRun(ctx, m, o, signals, logf); !ok {
		return code
	}
	code := runHolding(s, m, o, signals, logf)

	release, cancel := context.WithTimeout(context.Background(), s.Timeout())
	defer cancel()
	if err := m.Unlock(release); err != nil {
		if errors.Is(err, recipes.ErrSessionLost) || errors.Is(err, recipes.ErrNotLocked) {
			logf("the lock on %s was lost before it could be released (%v); mutual exclusion may not have held", o.DisplayDir, err)
			return exitLockLost
		}
		logf("releasing %s: %v (the lock node goes when the session ends)", o.DisplayDir, err)
	}
	return code
}

// acquireForRun waits for the lock, giving up at the timeout or on a signal.
func acquireForRun(ctx context.Context, m *recipes.Mutex, o lockRunOptions, signals <-chan os.Signal, logf func(string, ...any)) (int, bool) {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	interrupted := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-signals:
			interrupted <- sig
			cancel()
		case <-ctx.Done():
		}
	}()
	err := m.Lock(ctx)
	switch {
	case err == nil:
		return 0, true
	case len(interrupted) > 0:
		sig := <-interrupted
		logf("interrupted while waiting for %s", o.DisplayDir)
		return 128 + signalNumber(sig), false
	case errors.Is(err, context.DeadlineExceeded):
		logf("timed out after %v waiting for the lock on %s", o.Timeout, o.DisplayDir)
		return exitLockTimeout, false
	default:
		logf("locking %s: %v", o.DisplayDir, err)
		return exitLockFailure, false
	}
}

// runHolding runs the command while the lock is held. If the lock is lost,
// the command gets SIGTERM, then SIGKILL after the grace period.
func runHolding(s *recipes.Session, m *recipes.Mutex, o lockRunOptions, signals <-chan os.Signal, logf func(string, ...any)) int {
	token := m.Token()
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	cmd.Env = append(os.Environ(),
		"ZKX_LOCK_TOKEN="+strconv.FormatInt(token.Zxid, 10),
		"ZKX_LOCK_PATH="+token.Path,
		fmt.Sprintf("ZKX_LOCK_SESSION=0x%x", token.Session),
	)
	if err := cmd.Start(); err != nil {
		logf("cannot run %s: %v", o.Command[0], err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return exitNotFound
		}
		return exitCannotRun
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	lost := m.Done()
	wasLost := false
	var killAfter <-chan time.Time
	for {
		select {
		case err := <-exited:
			if wasLost {
				return exitLockLost
			}
			return commandExit(err)
		case sig := <-signals:
			cmd.Process.Signal(sig)
		case <-lost:
			lost, wasLost = nil, true
			reason := "its lock node was deleted"
			if err := s.Err(); err != nil {
				reason = err.Error()
			}
			logf("lost the lock on %s (%s); sending SIGTERM to %s", o.DisplayDir, reason, o.Command[0])
			cmd.Process.Signal(syscall.SIGTERM)
			killAfter = time.After(o.KillGrace)
		case <-killAfter:
			logf("%s did not exit within %v of SIGTERM; killing it", o.Command[0], o.KillGrace)
			cmd.Process.Kill()
			killAfter = nil
		}
	}
}

// commandExit is the exit status of the command zkx lock ran: its own,
// 128+N for a signal, or exitLockFailure when it could not be run.
func commandExit(err error) int {
	if err == nil {
		return 0
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			return 128 + int(status.Signal())
		}
		return exit.ExitCode()
	}
	return exitLockFailure
}

type lockedWriter struct {
	mu  sync.Mutex
	out io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.Write(p)
}

func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 1
}
