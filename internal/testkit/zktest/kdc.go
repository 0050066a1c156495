package zktest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// kdcTools are the MIT Kerberos programs a throwaway KDC needs.
var kdcTools = []string{"kdb5_util", "kadmin.local", "krb5kdc"}

// kdcInstall says how to get them.
const kdcInstall = "apt-get install -y krb5-kdc krb5-admin-server"

// KDC is a throwaway MIT Kerberos KDC on a free loopback port, its realm
// and database under a test's temporary directory.
type KDC struct {
	// Realm is the KDC's realm, ZKX.TEST.
	Realm string
	// Conf is a krb5.conf for clients of this KDC (KRB5_CONFIG).
	Conf string
	// Addr is the KDC's address, 127.0.0.1:port (UDP and TCP).
	Addr string

	dir, kdcConf string
	mu           sync.Mutex // kadmin.local runs one at a time
}

// StartKDC creates a realm, starts krb5kdc and stops it at cleanup. It
// skips the test loudly when the MIT tools are missing (fails under
// ZKX_REAL_ZK=required).
func StartKDC(t testing.TB) *KDC {
	t.Helper()
	var missing []string
	for _, tool := range kdcTools {
		if _, err := lookTool(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		what := strings.Join(missing, ", ") + " not found"
		if RequireReal() {
			t.Fatalf("Kerberos test cannot run but ZKX_REAL_ZK=required: %s (fix: %s)", what, kdcInstall)
		}
		t.Skipf("SKIPPING Kerberos test: %s (fix: %s)", what, kdcInstall)
	}
	ports, err := freePorts(1)
	if err != nil {
		t.Fatalf("zktest: KDC: %v", err)
	}
	dir := t.TempDir()
	k := &KDC{Realm: "ZKX.TEST", Conf: filepath.Join(dir, "krb5.conf"), kdcConf: filepath.Join(dir, "kdc.conf"),
		Addr: "127.0.0.1:" + strconv.Itoa(ports[0]), dir: dir}
	if err := k.writeConfigs(ports[0]); err != nil {
		t.Fatalf("zktest: KDC: %v", err)
	}
	if out, err := k.run("kdb5_util", "create", "-s", "-r", k.Realm, "-P", "zktest-master-key"); err != nil {
		t.Fatalf("zktest: KDC: kdb5_util create: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	bin, _ := lookTool("krb5kdc")
	cmd := exec.CommandContext(ctx, bin, "-n", "-r", k.Realm)
	cmd.Env = k.env()
	logf, err := os.Create(filepath.Join(dir, "krb5kdc.out"))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("zktest: start krb5kdc: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	deadline := time.Now().Add(startTimeout)
	for {
		conn, err := net.DialTimeout("tcp", k.Addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(dir, "kdc.log"))
			t.Fatalf("zktest: krb5kdc exited: %s", log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("zktest: krb5kdc did not listen on %s within %v: %v", k.Addr, startTimeout, err)
		}
		time.Sleep(50 * time.Millisecond) // polling a port: nothing to wait on
	}
	return k
}

func (k *KDC) writeConfigs(port int) error {
	krb5 := fmt.Sprintf(`[libdefaults]
 default_realm = %[1]s
 dns_lookup_realm = false
 dns_lookup_kdc = false
 rdns = false
 udp_preference_limit = 1
 ticket_lifetime = 10h
 forwardable = false
[realms]
 %[1]s = {
  kdc = %[2]s
 }
[domain_realm]
 localhost = %[1]s
 127.0.0.1 = %[1]s
`, k.Realm, k.Addr)
	kdc := fmt.Sprintf(`[kdcdefaults]
 kdc_ports = %[2]d
 kdc_tcp_ports = %[2]d
[realms]
 %[1]s = {
  database_name = %[3]s/principal
  key_stash_file = %[3]s/stash
  acl_file = %[3]s/kadm5.acl
  kdc_ports = %[2]d
  kdc_tcp_ports = %[2]d
  max_life = 10h
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }
[logging]
 kdc = FILE:%[3]s/kdc.log
`, k.Realm, port, k.dir)
	if err := os.WriteFile(k.Conf, []byte(krb5), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(k.dir, "kadm5.acl"), nil, 0o644); err != nil {
		return err
	}
	return os.WriteFile(k.kdcConf, []byte(kdc), 0o644)
}

// env points the MIT tools at this realm's files only.
func (k *KDC) env() []string {
	return append(os.Environ(), "KRB5_CONFIG="+k.Conf, "KRB5_KDC_PROFILE="+k.kdcConf)
}

func (k *KDC) run(tool string, args ...string) (string, error) {
	bin, err := lookTool(tool)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = k.env()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// kadmin runs one kadmin.local query.
func (k *KDC) kadmin(query string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	out, err := k.run("kadmin.local", "-r", k.Realm, "-q", query)
	if err != nil || strings.Contains(out, "error") || strings.Contains(out, "rror ") {
		return fmt.Errorf("kadmin.local %q: %v\n%s", query, err, out)
	}
	return nil
}

// addPrincipal creates principal with a random key and writes its key to
// keytab.
func (k *KDC) addPrincipal(principal, keytab string) error {
	if err := k.kadmin("addprinc -randkey " + principal); err != nil {
		return err
	}
	return k.kadmin("ktadd -k " + keytab + " " + principal)
}

// AddPrincipal creates NAME@realm (name may hold a /instance) with a
// random key and returns a keytab holding it.
func (k *KDC) AddPrincipal(t testing.TB, name string) (principal, keytab string) {
	t.Helper()
	principal = name + "@" + k.Realm
	keytab = filepath.Join(t.TempDir(), strings.ReplaceAll(name, "/", "_")+".keytab")
	if err := k.addPrincipal(principal, keytab); err != nil {
		t.Fatalf("zktest: %v", err)
	}
	return principal, keytab
}

// Kinit gets principal's ticket with keytab into a new credential cache
// and returns its path (for KRB5CCNAME, FILE:path); lifetime as kinit's
// -l ("10h", "5s").
func (k *KDC) Kinit(t testing.TB, principal, keytab, lifetime string) string {
	t.Helper()
	ccache := filepath.Join(t.TempDir(), "ccache")
	if out, err := k.run("kinit", "-c", "FILE:"+ccache, "-l", lifetime, "-k", "-t", keytab, principal); err != nil {
		t.Fatalf("zktest: kinit %s: %v\n%s", principal, err, out)
	}
	return ccache
}

// lookTool finds an MIT tool on PATH or in the sbin directories, which a
// non-root PATH often lacks.
func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := filepath.Join(dir, name)
		if fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}
