package tui

import (
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestRegistryRowsAreComplete(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range commands {
		if c.open == nil {
			t.Errorf(":%s has no open", c.name)
		}
		if seen[c.name] {
			t.Errorf(":%s is registered twice", c.name)
		}
		seen[c.name] = true
		if !strings.HasPrefix(c.usage, c.name) {
			t.Errorf(":%s usage %q does not start with its name", c.name, c.usage)
		}
	}
}

func TestParseCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, name, arg, err string
	}{
		{line: "loc", name: "locks", arg: "/"},
		{line: "locks /app/x", name: "locks", arg: "/app/x"},
		{line: "locks /app/x/", err: "ends with /"},
		{line: "cd /a", name: "cd", arg: "/a"},
		{line: "cd", err: "needs a path"},
		{line: "sessions /x", err: "takes no argument"},
		{line: "locks /a /b", err: "at most one path"},
		{line: "s", err: "could be"},
		{line: "nope", err: "unknown command"},
		{line: "", err: "no command"},
	} {
		pc, err := parseCommand(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || pc.cmd.name != tc.name || pc.arg != tc.arg {
			t.Errorf("%q: got %q %q %v, want %q %q", tc.line, pc.cmd.name, pc.arg, err, tc.name, tc.arg)
		}
	}
}

func TestParseTextArgument(t *testing.T) {
	t.Parallel()
	saved := commands
	defer func() { commands = saved }()
	commands = append(commands[:len(commands):len(commands)], command{name: "echo", usage: "echo TEXT", arg: argText})
	pc, err := parseCommand("echo  a, b  c ")
	if err != nil || pc.arg != "a, b  c" {
		t.Fatalf("got %q %v, want the text as typed, trimmed", pc.arg, err)
	}
}

// TestAdminCommand: :admin sets the AdminServers the servers' tables are
// read from, and the port one is looked for on; pages ask again at once.
func TestAdminCommand(t *testing.T) {
	t.Parallel()
	a := newTestApp(t, zktest.Embedded(t), true)
	a.run("admin http://zk1:9181, https://zk2:9181/commands/")
	if got := a.shared.introspectOptions().AdminURLs; strings.Join(got, " ") != "http://zk1:9181/commands https://zk2:9181/commands" || a.message.err {
		t.Errorf("AdminURLs %q, status %+v", got, a.message)
	}
	a.run("admin port 9181")
	if o := a.shared.introspectOptions(); o.AdminPort != 9181 || len(o.AdminURLs) != 2 {
		t.Errorf("after :admin port: %+v", o)
	}
	a.run("admin")
	if !strings.Contains(a.message.text, "AdminServers: http://zk1:9181/commands, https://zk2:9181/commands; looked for on port 9181") {
		t.Errorf(":admin says %q", a.message.text)
	}
	for _, bad := range []string{"admin ftp://zk1", "admin port x", "admin port 1 2"} {
		a.run(bad)
		if !a.message.err {
			t.Errorf(":%s: no error (%q)", bad, a.message.text)
		}
	}
	// A URL's password is never shown, set or refused.
	a.run("admin http://ops:S3cretURL@zk1:9181")
	a.run("admin")
	if strings.Contains(a.message.text, "S3cretURL") || !strings.Contains(a.message.text, "http://ops:xxxxx@zk1:9181/commands") {
		t.Errorf(":admin shows %q", a.message.text)
	}
	a.run("admin http://ops:S3cretURL@zk1:port")
	if !a.message.err || strings.Contains(a.message.text, "S3cretURL") {
		t.Errorf("a bad URL with a password: %+v", a.message)
	}
	a.run("admin off")
	if o := a.shared.introspectOptions(); o.AdminPort != 0 || len(o.AdminURLs) != 0 {
		t.Errorf("after :admin off: %+v", o)
	}
	if o := a.shared.introspectOptions(); o.Touch == nil {
		t.Error("the explorer's own session is not touched before the servers are asked")
	}
}
