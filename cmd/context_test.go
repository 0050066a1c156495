package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const contextsFile = `current-context: prod
contexts:
  prod:
    server: zk1:2181,zk2:2181/app
    auth-env: PROD_AUTH
    held-too-long: 5m
    admin-urls: [http://zk1:8080/commands]
  staging:
    server: staging:2181
    chroot: /svc
    readonly: true
    session-timeout: 30s
`

// resolved parses args as zkx would (running `zkx ARGS version`) and
// returns the options every command then sees.
func resolved(t *testing.T, args ...string) (*globalOptions, error) {
	t.Helper()
	g := &globalOptions{}
	root := newRoot(g)
	root.SetArgs(append(args, "version"))
	root.SetOut(&strings.Builder{})
	err := root.Execute()
	return g, err
}

// TestContextPrecedence: a flag wins over the context, the context over
// the environment, the environment over the default.
func TestContextPrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "zkx"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "zkx", "config.yaml"), []byte(contextsFile), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZK_SERVERS", "env:2181")
	t.Setenv("ZKX_AUTH", "digest:env:pw")
	t.Setenv("PROD_AUTH", "digest:prod:pw")
	t.Setenv("ZKX_ADMIN_URL", "http://env:8080/commands")

	g, err := resolved(t) // the current context
	if err != nil {
		t.Fatal(err)
	}
	if g.contextName != "prod" || g.server != "zk1:2181,zk2:2181/app" || g.auth != "digest:prod:pw" ||
		strings.Join(g.adminURLs, ",") != "http://zk1:8080/commands" || g.readonly {
		t.Errorf("context over environment: %+v", g)
	}
	g, _ = resolved(t, "--server", "flag:2181", "--auth", "digest:flag:pw", "--admin-url", "http://flag:8080/commands")
	if g.server != "flag:2181" || g.auth != "digest:flag:pw" || strings.Join(g.adminURLs, ",") != "http://flag:8080/commands" {
		t.Errorf("flags over context: %+v", g)
	}
	// What the environment holds for one ensemble is not given to a
	// context that does not name it.
	t.Setenv("ZKX_SASL_PASSWORD", "env-sasl-pw")
	t.Setenv("ZKX_TLS_CA", filepath.Join(dir, "no-such-ca.pem")) // loaded, it would fail the context
	g, err = resolved(t, "--context", "staging")
	if err != nil {
		t.Errorf("--context staging with $ZKX_TLS_CA set: %v", err)
	}
	if g.server != "staging:2181/svc" || !g.readonly || g.sessionTimeout != 30*time.Second || g.auth != "" ||
		len(g.adminURLs) != 0 || g.tls != nil || g.sasl != nil {
		t.Errorf("a context without auth, admin URLs, TLS or SASL takes none from the environment: %+v", g)
	}
	if g, err := resolved(t, "--context", "staging", "--sasl", "DIGEST-MD5", "--sasl-user", "bob"); err != nil || g.sasl == nil || g.sasl.Password != "env-sasl-pw" {
		t.Errorf("--sasl on the command line reads $ZKX_SASL_PASSWORD: %+v %v", g, err)
	}
	t.Setenv("ZKX_TLS_CA", "")
	g, _ = resolved(t, "--context", "staging", "--session-timeout", "4s")
	if g.sessionTimeout != 4*time.Second {
		t.Errorf("--session-timeout over the context: %v", g.sessionTimeout)
	}

	// No contexts file: the environment, then the defaults.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	g, err = resolved(t)
	if err != nil || g.contextName != "" || g.server != "env:2181" || g.auth != "digest:env:pw" {
		t.Errorf("environment without a context: %+v %v", g, err)
	}
	os.Unsetenv("ZK_SERVERS")
	os.Unsetenv("ZKX_AUTH")
	g, _ = resolved(t)
	if g.server != defaultServer || g.auth != "" || g.sessionTimeout != defaultSessionTimeout {
		t.Errorf("defaults: %+v", g)
	}
}

// TestContextErrors: a bad file names its line; an unknown context names
// the ones there are; a context's auth variable left unset says so,
// never printing a credential.
func TestContextErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("contexts:\n  prod:\n    servers: zk1:2181\n"), 0o600)
	if _, err := resolved(t, "--config", bad); err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), bad) {
		t.Errorf("misspelt key: %v", err)
	}
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(contextsFile), 0o600)
	if _, err := resolved(t, "--config", good, "--context", "nope"); err == nil || !strings.Contains(err.Error(), "prod, staging") {
		t.Errorf("unknown context: %v", err)
	}
	os.Unsetenv("PROD_AUTH")
	if _, err := resolved(t, "--config", good); err == nil || !strings.Contains(err.Error(), "$PROD_AUTH") {
		t.Errorf("unset auth-env: %v", err)
	}
	t.Setenv("PROD_AUTH", "digest:secretonly")
	if _, err := resolved(t, "--config", good); err == nil || strings.Contains(err.Error(), "secretonly") || !strings.Contains(err.Error(), "PROD_AUTH") {
		t.Errorf("a bad credential from a context: %v", err)
	}
	sasl := filepath.Join(dir, "sasl.yaml")
	os.WriteFile(sasl, []byte("contexts:\n  s:\n    server: s:1\n    sasl: {mechanism: DIGEST-MD5, user: bob}\n"), 0o600)
	t.Setenv("ZKX_SASL_PASSWORD", "not-for-this-context")
	if _, err := resolved(t, "--config", sasl, "--context", "s"); err == nil || !strings.Contains(err.Error(), "sasl.password-env") {
		t.Errorf("a context's DIGEST-MD5 without password-env: %v, want it to ask for one", err)
	}
	if _, err := resolved(t, "--config", filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a --config that does not exist is not an error")
	}
}

// TestContextCommands: list marks the current context, use changes it in
// the file, show prints one without its secrets.
func TestContextCommands(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte(contextsFile+"  secret:\n    server: s:1\n    auth: digest:ops:hunter2\n"), 0o600)
	t.Setenv("PROD_AUTH", "digest:prod:pw")
	out, _, err := run(t, "--config", path, "context", "list")
	if err != nil || !strings.Contains(out, "*        prod") || !strings.Contains(out, "staging  staging:2181/svc") {
		t.Errorf("list: %v\n%s", err, out)
	}
	if _, _, err := run(t, "--config", path, "context", "use", "staging"); err != nil {
		t.Fatal(err)
	}
	out, _, err = run(t, "--config", path, "context", "show")
	if err != nil || !strings.Contains(out, "# context staging") || !strings.Contains(out, "readonly: true") {
		t.Errorf("show after use: %v\n%s", err, out)
	}
	out, _, err = run(t, "--config", path, "context", "show", "secret")
	if err != nil || strings.Contains(out, "hunter2") || !strings.Contains(out, "not shown") {
		t.Errorf("show of a context with a password: %v\n%s", err, out)
	}
}

// TestContextCommandsBesideABrokenContext: the current context cannot be
// used (its credentials' variable is unset), yet the context commands
// list, show and switch away from it; any other command names why it
// cannot run.
func TestContextCommandsBesideABrokenContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte(contextsFile), 0o600)
	t.Setenv("PROD_AUTH", "")
	if _, _, err := run(t, "--config", path, "ls", "/"); err == nil || !strings.Contains(err.Error(), "$PROD_AUTH") {
		t.Errorf("ls with the broken context: %v, want it to name $PROD_AUTH", err)
	}
	if out, _, err := run(t, "--config", path, "context", "list"); err != nil || !strings.Contains(out, "prod") {
		t.Errorf("list: %v\n%s", err, out)
	}
	if out, _, err := run(t, "--config", path, "context", "show", "staging"); err != nil || !strings.Contains(out, "# context staging") {
		t.Errorf("show staging: %v\n%s", err, out)
	}
	if _, _, err := run(t, "--config", path, "context", "use", "staging"); err != nil {
		t.Errorf("use staging: %v", err)
	}
}

// TestExposedContextsFileWarnsOnce: a contexts file holding a password
// that others may read is named once on stderr, whatever the command;
// never on stdout, never with the password.
func TestExposedContextsFileWarnsOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte("current-context: s\ncontexts:\n  s:\n    server: 127.0.0.1:1\n    auth: digest:ops:hunter2\n"), 0o600)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"version"}, {"context", "list"}} {
		out, errOut, err := run(t, append([]string{"--config", path}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if n := strings.Count(errOut, "readable by others"); n != 1 || strings.Contains(errOut+out, "hunter2") || strings.Contains(out, "readable") {
			t.Errorf("zkx %v: %d warnings on stderr, want 1 (without the password, not on stdout):\n%s%s", args, n, errOut, out)
		}
	}
	os.Chmod(path, 0o600)
	if _, errOut, _ := run(t, "--config", path, "version"); strings.Contains(errOut, "readable") {
		t.Errorf("an owner-only file was warned about: %s", errOut)
	}
}
