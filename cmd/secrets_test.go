package cmd

import (
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestCredentialsNeverEchoed runs commands that fail in every way we know
// with digest credentials, from --auth and from $ZKX_AUTH: neither the
// error, nor the output, nor the help shows the password.
func TestCredentialsNeverEchoed(t *testing.T) {
	const password = "hunter2-do-not-print"
	srv := zktest.Embedded(t)
	base := zktest.Path(t)
	cases := []struct {
		name string
		env  string
		args []string
	}{
		{"missing node", "", []string{"--server", srv, "--auth", "digest:alice:" + password, "get", base + "/missing"}},
		{"unreachable", "", []string{"--server", "127.0.0.1:1", "--auth", "digest:alice:" + password, "ls", "--timeout", "1s", "/"}},
		{"malformed digest", "", []string{"--server", srv, "--auth", "digest:" + password, "ls", "/"}},
		{"malformed scheme", "", []string{"--server", srv, "--auth", password, "ls", "/"}},
		{"bad subcommand", "", []string{"--server", srv, "--auth", "digest:alice:" + password, "nope"}},
		{"bad flag", "", []string{"--server", srv, "--auth", "digest:alice:" + password, "ls", "--nope"}},
		{"from the environment", "digest:alice:" + password, []string{"--server", srv, "locks", base + "/missing"}},
		{"malformed in the environment", "digest:" + password, []string{"--server", srv, "ls", "/"}},
		{"help", "digest:alice:" + password, []string{"--help"}},
		{"help of a command", "digest:alice:" + password, []string{"ls", "--help"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(authEnv, c.env)
			out, errs, err := run(t, c.args...)
			all := out + errs
			if err != nil {
				all += err.Error()
			}
			if strings.Contains(all, password) {
				t.Errorf("zkx %v printed the password:\n%s", c.args, all)
			}
			if strings.HasPrefix(c.name, "malformed") && err == nil {
				t.Errorf("zkx %v: no error for malformed credentials", c.args)
			}
		})
	}

	// The environment's credentials are used, not only hidden.
	c := zktest.Conn(t, srv)
	create(t, c, base, nil, 0, zk.WorldACL(zk.PermAll))
	create(t, c, base+"/secret", []byte("s3cr3t"), 0, zk.DigestACL(zk.PermAll, "alice", password))
	t.Setenv(authEnv, "digest:alice:"+password)
	if out, _, err := run(t, "--server", srv, "get", base+"/secret"); err != nil || !strings.Contains(out, "s3cr3t") {
		t.Errorf("get with $%s: %v\n%s", authEnv, err, out)
	}
}
