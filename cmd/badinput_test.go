package cmd

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestBadInput: every mistake a user can make on the command line ends in
// a clear error naming it, a non-zero exit, no panic and no hang.
func TestBadInput(t *testing.T) {
	t.Parallel()
	server := zktest.Embedded(t)
	big := strings.Repeat("x", 1<<20+1)
	cases := []struct {
		name string
		args []string
		want string // in the error
	}{
		{"empty path", []string{"ls", ""}, "empty path"},
		{"relative path", []string{"get", "app/config"}, "is relative"},
		{"trailing slash", []string{"stat", "/app/"}, `write "/app"`},
		{"empty component", []string{"tree", "/a//b"}, "empty component"},
		{"dot component", []string{"locks", "/a/../b"}, `".." component`},
		{"unicode path missing", []string{"get", "/nöde/ü"}, "/nöde/ü"},
		{"control characters in a path", []string{"get", "/a\x1b[2Jb"}, "U+001B"},
		{"unknown output", []string{"ls", "-o", "yaml", "/"}, `-o "yaml"`},
		{"unknown decoder", []string{"get", "--decode", "base64", "/"}, "base64"},
		{"empty connect string", []string{"--server", "", "ls", "/"}, "empty connect string"},
		{"port not a number", []string{"--server", "h1:x", "ls", "/"}, "port must be a number"},
		{"empty server", []string{"--server", "h1:2181,,h2:2181", "ls", "/"}, "empty server address"},
		{"bad chroot", []string{"--server", "h1:2181/a//b", "ls", "/"}, "chroot"},
		{"bad auth", []string{"--auth", "digest:nocolon", "ls", "/"}, "digest:user:password"},
		{"bad session timeout", []string{"--session-timeout", "0s", "ls", "/"}, "--session-timeout"},
		{"negative timeout", []string{"ls", "--timeout", "-1s", "/"}, "--timeout"},
		{"unreachable server", []string{"--server", "127.0.0.1:1", "ls", "--timeout", "2s", "/"}, "127.0.0.1:1"},
		{"lock data over 1 MiB", []string{"lock", "--data", big, "/big-data-lock", "--", "true"}, "1 MiB"},
		{"lock without a command", []string{"lock", "/l"}, "PATH -- CMD"},
		{"demo contenders", []string{"demo", "--headless", "--contenders", "0"}, "--contenders"},
		{"demo chart as png", []string{"demo", "--headless", "--sweep", "10", "--chart", "sweep.png"}, "only .svg charts are drawn"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if args[0] != "--server" {
				args = append([]string{"--server", server}, args...)
			}
			done := make(chan error, 1)
			go func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("panic: %v", r)
						done <- nil
					}
				}()
				_, stderr, err := run(t, args...)
				if err != nil && stderr != "" {
					err = fmt.Errorf("%w; stderr: %s", err, stderr)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%s: error %.300v, want one containing %q", c.name, err, c.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: no answer within 30s", c.name)
			}
		})
	}
}
