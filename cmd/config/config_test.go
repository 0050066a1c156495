package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const sample = `# contexts for the on-call team
current-context: prod
contexts:
  prod:
    server: zk1:2181,zk2:2181,zk3:2181
    chroot: /app
    auth-env: ZKX_PROD_AUTH   # the credentials stay in the environment
    readonly: true
    held-too-long: 5m
    admin-urls: [http://zk1:8080/commands, http://zk2:8080/commands]
    tls:
      ca: /etc/zk/ca.pem
  staging:
    server: zk-staging:2181
    admin-urls: [http://ops:UrlS3cret@zk-staging:8080/commands]
    auth: digest:ops:s3cret
    sasl:
      mechanism: DIGEST-MD5
      user: bob
      password-env: STAGING_SASL
`

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	f, err := Load(write(t, sample), true)
	if err != nil {
		t.Fatal(err)
	}
	name, c, err := f.Select("")
	if err != nil || name != "prod" {
		t.Fatalf("Select current: %q %v", name, err)
	}
	if c.Server != "zk1:2181,zk2:2181,zk3:2181" || c.Chroot != "/app" || c.AuthEnv != "ZKX_PROD_AUTH" || !c.ReadOnly ||
		time.Duration(c.HeldTooLong) != 5*time.Minute || len(c.AdminURLs) != 2 || c.TLS == nil || c.TLS.CA != "/etc/zk/ca.pem" {
		t.Errorf("prod = %+v", c)
	}
	if _, s, _ := f.Select("staging"); s.SASL == nil || s.SASL.User != "bob" || s.SASL.PasswordEnv != "STAGING_SASL" {
		t.Errorf("staging = %+v", s)
	}
	if got := strings.Join(f.Names(), ","); got != "prod,staging" {
		t.Errorf("Names = %s", got)
	}
}

func TestBadFiles(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"misspelt key", "contexts:\n  prod:\n    sever: zk1:2181\n", "line 3"},
		{"bad duration", "contexts:\n  prod:\n    held-too-long: five minutes\n", "line 3"},
		{"not yaml", "contexts: [unclosed\n", "line"},
		{"unknown current", "current-context: nope\ncontexts:\n  prod: {server: a:1}\n", `current-context "nope"`},
		{"wrong type", "contexts:\n  prod:\n    readonly: perhaps\n", "line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.text)
			_, err := Load(p, true)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("Load: %v, want an error naming %s and %q", err, p, tc.want)
			}
		})
	}
}

func TestMissingAndEmpty(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.yaml")
	if f, err := Load(missing, false); err != nil || len(f.Contexts) != 0 {
		t.Errorf("missing default file: %v %v", f, err)
	}
	if _, err := Load(missing, true); err == nil {
		t.Error("a missing file named with --config is not an error")
	}
	f, err := Load(write(t, ""), true)
	if err != nil || len(f.Contexts) != 0 {
		t.Errorf("empty file: %v %v", f, err)
	}
	if name, c, err := f.Select(""); name != "" || c != nil || err != nil {
		t.Errorf("no current context: %q %v %v", name, c, err)
	}
	if _, _, err := f.Select("prod"); err == nil || !strings.Contains(err.Error(), `no context "prod"`) {
		t.Errorf("Select of a missing context: %v", err)
	}
}

func TestSetCurrentKeepsTheFile(t *testing.T) {
	p := write(t, sample)
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := SetCurrent(p, "staging"); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p, true)
	if err != nil || f.Current != "staging" {
		t.Fatalf("after use: current %q, %v", f.Current, err)
	}
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), "# the credentials stay in the environment") || !strings.Contains(string(b), "# contexts for the on-call team") {
		t.Errorf("comments lost:\n%s", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's 0640 kept", st.Mode().Perm())
	}
	if err := SetCurrent(p, "nope"); err == nil || !strings.Contains(err.Error(), "prod, staging") {
		t.Errorf("use of an unknown context: %v", err)
	}
	// A file without current-context gets one.
	p = write(t, "contexts:\n  a: {server: h:1}\n")
	if err := SetCurrent(p, "a"); err != nil {
		t.Fatal(err)
	}
	if f, _ := Load(p, true); f.Current != "a" {
		t.Errorf("current %q", f.Current)
	}
}

func TestShowHidesSecrets(t *testing.T) {
	f, err := Load(write(t, sample), true)
	if err != nil {
		t.Fatal(err)
	}
	_, c, _ := f.Select("staging")
	b, err := Show(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "S3cret") || !strings.Contains(string(b), "auth: (set in the file, not shown)") ||
		!strings.Contains(string(b), "http://ops:xxxxx@zk-staging:8080/commands") ||
		!strings.Contains(string(b), "password-env: STAGING_SASL") {
		t.Errorf("Show:\n%s", b)
	}
}

// TestSetCurrentWritesThroughASymlink: a contexts file that is a link
// (to a dotfiles repository, say) stays a link; the file it points to
// changes, keeping its mode.
func TestSetCurrentWritesThroughASymlink(t *testing.T) {
	target := write(t, sample)
	if err := os.Chmod(target, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := SetCurrent(link, "staging"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v %v", st.Mode(), err)
	}
	f, err := Load(target, true)
	if err != nil || f.Current != "staging" {
		t.Errorf("the file the link points to: current %q, %v", f.Current, err)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the target's 0640 kept", st.Mode().Perm())
	}
}

// TestExposedSecret: a file holding a password (auth) that others may
// read is named, with the context and the mode; one whose credentials
// stay in the environment, or that only its owner reads, is not.
func TestExposedSecret(t *testing.T) {
	p := write(t, sample) // staging holds auth: digest:ops:s3cret
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p, true)
	if err != nil {
		t.Fatal(err)
	}
	warning := f.ExposedSecret()
	for _, want := range []string{p, "staging", "0644", "chmod 600"} {
		if !strings.Contains(warning, want) {
			t.Errorf("warning %q lacks %q", warning, want)
		}
	}
	if strings.Contains(warning, "s3cret") {
		t.Errorf("the warning shows the secret: %q", warning)
	}
	os.Chmod(p, 0o600)
	if f, _ := Load(p, true); f.ExposedSecret() != "" {
		t.Errorf("owner-only file: %q", f.ExposedSecret())
	}
	envOnly := write(t, "contexts:\n  prod:\n    server: a:1\n    auth-env: PROD_AUTH\n")
	os.Chmod(envOnly, 0o644)
	if f, _ := Load(envOnly, true); f.ExposedSecret() != "" {
		t.Errorf("credentials in the environment only: %q", f.ExposedSecret())
	}
}
