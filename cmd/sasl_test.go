package cmd

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/jcmturner/gokrb5/v8/credentials"

	"github.com/zkx-dev/zkx/internal/sasl"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zksasl"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/zkview"
)

// saslSecret is written by principal under an ACL naming only it.
const saslSecret = "only for the principal"

// createSecret creates path readable only by sasl:id, over a session
// authenticated by cfg.
func createSecret(t *testing.T, connect, path, id string, cfg *zksasl.Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := zkview.Dial(ctx, connect, zkview.WithConnWrap(cfg.Wrap()))
	if err != nil {
		t.Fatalf("dial as %s: %v", id, err)
	}
	defer c.Close()
	if _, err := c.Conn().Create(path, []byte(saslSecret), zk.FlagPersistent, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: id}}); err != nil {
		t.Fatalf("create %s as %s: %v", path, id, err)
	}
}

// runTimed is run, with how long it took.
func runTimed(t *testing.T, args ...string) (string, time.Duration, error) {
	t.Helper()
	start := time.Now()
	out, _, err := run(t, args...)
	return out, time.Since(start), err
}

// TestSASLDigestRealZooKeeper: ZooKeeper 3.8 with a DigestLoginModule and
// SASL required of every session. zkx reads, as bob, a node whose ACL
// names only sasl:bob; alice (authenticated too) is refused it; a session
// without SASL, a wrong password and a wrong mechanism each fail at once,
// named, not at --timeout.
func TestSASLDigestRealZooKeeper(t *testing.T) {
	e := zktest.RealWith(t, zktest.RealOptions{SASL: &zktest.SASL{
		DigestUsers: map[string]string{"bob": "bob-secret", "alice": "alice-secret"}, Required: true}})
	server := e.ConnectString()
	createSecret(t, server, "/secret", "bob", &zksasl.Config{Mechanism: zksasl.DigestMD5, User: "bob", Password: "bob-secret"})

	t.Setenv(saslPasswordEnv, "bob-secret")
	out, took, err := runTimed(t, "--server", server, "--sasl", "DIGEST-MD5", "--sasl-user", "bob", "get", "/secret")
	if err != nil || !strings.Contains(out, saslSecret) {
		t.Fatalf("bob's get: %v\n%s", err, out)
	}
	t.Logf("bob reads /secret in %v", took)

	t.Setenv(saslPasswordEnv, "alice-secret")
	_, _, err = runTimed(t, "--server", server, "--sasl", "digest-md5", "--sasl-user", "alice", "get", "/secret")
	if err == nil || !strings.Contains(err.Error(), "no access") {
		t.Errorf("alice's get of bob's node: %v, want no access", err)
	}

	for _, tc := range []struct {
		name, password string
		args           []string
		want           string
	}{
		{"no SASL", "", nil, "requires SASL authentication"},
		{"wrong password", "not-bobs", []string{"--sasl", "DIGEST-MD5", "--sasl-user", "bob"}, "refused SASL DIGEST-MD5 as bob: wrong credentials or mechanism"},
		{"unknown user", "whatever", []string{"--sasl", "DIGEST-MD5", "--sasl-user", "mallory"}, "refused SASL DIGEST-MD5 as mallory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(saslPasswordEnv, tc.password)
			_, took, err := runTimed(t, append([]string{"--server", server, "--timeout", "30s", "get", "/secret"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "--timeout") || (tc.password != "" && strings.Contains(err.Error(), tc.password)) {
				t.Errorf("ended by the timeout, or shows the password: %v", err)
			}
			t.Logf("%s: failed after %v: %v", tc.name, took, err)
		})
	}
}

// TestSASLDigestServe: zkx serve's DIGEST-MD5, SASL required, as zkx and
// Kazoo (pure-sasl, a client that is not ours) see it.
func TestSASLDigestServe(t *testing.T) {
	srv := zktest.EmbeddedServer(t, zkserver.Config{
		SASLUsers: map[string]string{"bob": "bob-secret", "alice": "alice-secret"}, SASLRequired: true})
	server := srv.ConnectString()
	createSecret(t, server, "/secret", "bob", &zksasl.Config{Mechanism: zksasl.DigestMD5, User: "bob", Password: "bob-secret"})

	t.Setenv(saslPasswordEnv, "bob-secret")
	if out, _, err := run(t, "--server", server, "--sasl", "DIGEST-MD5", "--sasl-user", "bob", "get", "/secret"); err != nil || !strings.Contains(out, saslSecret) {
		t.Fatalf("bob's get: %v\n%s", err, out)
	}
	t.Setenv(saslPasswordEnv, "alice-secret")
	if _, _, err := run(t, "--server", server, "--sasl", "DIGEST-MD5", "--sasl-user", "alice", "get", "/secret"); err == nil || !strings.Contains(err.Error(), "no access") {
		t.Errorf("alice's get of bob's node: %v, want no access", err)
	}
	if _, _, err := run(t, "--server", server, "--sasl", "DIGEST-MD5", "--sasl-user", "bob", "get", "/secret"); err == nil || !strings.Contains(err.Error(), "wrong credentials or mechanism") {
		t.Errorf("bob with alice's password: %v", err)
	}
	t.Setenv(saslPasswordEnv, "")
	if _, _, err := run(t, "--server", server, "get", "/secret"); err == nil || !strings.Contains(err.Error(), "requires SASL") {
		t.Errorf("no SASL: %v", err)
	}
	// The same from a context, the password in the variable it names.
	cfg := t.TempDir() + "/config.yaml"
	os.WriteFile(cfg, []byte("current-context: secured\ncontexts:\n  secured:\n    server: "+server+
		"\n    sasl:\n      mechanism: DIGEST-MD5\n      user: bob\n      password-env: BOB_PW\n"), 0o600)
	if _, _, err := run(t, "--config", cfg, "get", "/secret"); err == nil || !strings.Contains(err.Error(), "$BOB_PW") {
		t.Errorf("a context whose password variable is unset: %v", err)
	}
	t.Setenv("BOB_PW", "bob-secret")
	if out, _, err := run(t, "--config", cfg, "get", "/secret"); err != nil || !strings.Contains(out, saslSecret) {
		t.Errorf("bob's get from a context: %v\n%s", err, out)
	}

	py := zktest.KazooPython(t)
	script := `
import sys
from kazoo.client import KazooClient
from kazoo.exceptions import NoAuthError
def read(user, password):
    zk = KazooClient(hosts=sys.argv[1], sasl_options={"mechanism": "DIGEST-MD5", "username": user, "password": password})
    zk.start(timeout=20)
    try:
        return zk.get("/secret")[0].decode()
    except NoAuthError:
        return "NoAuth"
    finally:
        zk.stop()
print("bob:", read("bob", "bob-secret"))
print("alice:", read("alice", "alice-secret"))
`
	p := zktest.RunProgram(t, time.Minute, "", false, py, "-c", script, server)
	if p.Err != nil || !strings.Contains(p.Stdout, "bob: "+saslSecret) || !strings.Contains(p.Stdout, "alice: NoAuth") {
		p.Log(t)
		t.Errorf("Kazoo with DIGEST-MD5: %v", p.Err)
	}
}

func TestReadSASLUsers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := dir + "/users.txt"
	jaas := dir + "/jaas.conf"
	bad := dir + "/bad.txt"
	os.WriteFile(lines, []byte("# users\nbob:s3:cret\n\nalice:pw\n"), 0o600)
	os.WriteFile(jaas, []byte("Server {\n org.apache.zookeeper.server.auth.DigestLoginModule required\n user_bob=\"a\\\"b\"\n user_super=\"adminpw\";\n};\n"), 0o600)
	os.WriteFile(bad, []byte("bob:ok\nnopassword\n"), 0o600)
	if u, err := readSASLUsers(lines); err != nil || u["bob"] != "s3:cret" || u["alice"] != "pw" || len(u) != 2 {
		t.Errorf("user:password lines: %v %v", u, err)
	}
	if u, err := readSASLUsers(jaas); err != nil || u["bob"] != `a"b` || u["super"] != "adminpw" || len(u) != 2 {
		t.Errorf("JAAS file: %v %v", u, err)
	}
	if _, err := readSASLUsers(bad); err == nil || !strings.Contains(err.Error(), "bad.txt:2") || strings.Contains(err.Error(), "ok") {
		t.Errorf("bad line: %v", err)
	}
}

// TestSASLGSSAPIRealZooKeeper: ZooKeeper 3.8 logged in to a throwaway MIT
// KDC (Krb5LoginModule, zookeeper/localhost), SASL required. zkx reads,
// as bob (keytab, then credential cache), a node whose ACL names only
// sasl:bob@REALM; alice is refused it; an unknown service, DIGEST-MD5
// offered to a GSSAPI server and an expired ticket fail at once, named.
func TestSASLGSSAPIRealZooKeeper(t *testing.T) {
	kdc := zktest.StartKDC(t)
	bob, bobKeytab := kdc.AddPrincipal(t, "bob")
	alice, aliceKeytab := kdc.AddPrincipal(t, "alice")
	// The ticket of the last case, granted for seconds: it expires while
	// the server starts and the other cases run, instead of after them.
	// (This test runs alone: t.Setenv keeps go test's other tests waiting.)
	expiring := kdc.Kinit(t, bob, bobKeytab, "2s")
	e := zktest.RealWith(t, zktest.RealOptions{SASL: &zktest.SASL{KDC: kdc, Required: true}})
	// The server principal's host is the member as the connect string
	// writes it.
	server := strings.Replace(e.ConnectString(), "127.0.0.1", "localhost", 1)
	t.Setenv("KRB5_CONFIG", kdc.Conf) // what --krb5-conf would say, read as gokrb5 does not

	login, err := sasl.NewKerberos(sasl.KerberosOptions{Principal: bob, Keytab: bobKeytab})
	if err != nil {
		t.Fatal(err)
	}
	createSecret(t, server, "/secret", bob, &zksasl.Config{Mechanism: zksasl.GSSAPI, Kerberos: login})

	out, took, err := runTimed(t, "--server", server, "--sasl", "GSSAPI", "--principal", bob, "--keytab", bobKeytab, "get", "/secret")
	if err != nil || !strings.Contains(out, saslSecret) {
		t.Fatalf("bob's get with a keytab: %v\n%s", err, out)
	}
	t.Logf("bob (keytab) reads /secret in %v", took)
	if _, _, err := runTimed(t, "--server", server, "--sasl", "GSSAPI", "--principal", alice, "--keytab", aliceKeytab, "get", "/secret"); err == nil || !strings.Contains(err.Error(), "no access") {
		t.Errorf("alice's get of bob's node: %v, want no access", err)
	}

	t.Setenv("KRB5CCNAME", "FILE:"+kdc.Kinit(t, bob, bobKeytab, "10h"))
	if out, _, err := runTimed(t, "--server", server, "--sasl", "GSSAPI", "--krb5-conf", kdc.Conf, "get", "/secret"); err != nil || !strings.Contains(out, saslSecret) {
		t.Fatalf("bob's get with his credential cache: %v\n%s", err, out)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no SASL", nil, "requires SASL authentication"},
		{"unknown service", []string{"--sasl", "GSSAPI", "--sasl-service", "nosuch"}, "the KDC does not know the server's principal"},
		{"DIGEST-MD5 to a GSSAPI server", []string{"--sasl", "DIGEST-MD5", "--sasl-user", "bob"}, "wrong credentials or mechanism"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(saslPasswordEnv, "whatever")
			_, took, err := runTimed(t, append([]string{"--server", server, "--timeout", "30s", "get", "/secret"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "--timeout") {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
			t.Logf("%s: failed after %v: %v", tc.name, took, err)
		})
	}

	t.Run("expired ticket", func(t *testing.T) {
		t.Setenv("KRB5CCNAME", expiring)
		waitExpired(t, expiring)
		_, took, err := runTimed(t, "--server", server, "--timeout", "30s", "--sasl", "GSSAPI", "get", "/secret")
		if err == nil || !strings.Contains(err.Error(), "expired") {
			t.Fatalf("err = %v, want it to say the ticket expired", err)
		}
		t.Logf("expired ticket: failed after %v: %v", took, err)
	})
}

// waitExpired waits until every ticket of the credential cache has
// expired (the KDC gave it a lifetime of seconds).
func waitExpired(t *testing.T, ccache string) {
	t.Helper()
	cc, err := credentials.LoadCCache(ccache)
	if err != nil {
		t.Fatal(err)
	}
	var end time.Time
	for _, c := range cc.GetEntries() {
		if c.EndTime.After(end) {
			end = c.EndTime
		}
	}
	if time.Until(end) > time.Minute {
		t.Fatalf("the ticket lives until %v: the KDC did not grant a short lifetime", end)
	}
	<-time.After(time.Until(end) + time.Second) // the event waited for is the clock passing the ticket's end
}
