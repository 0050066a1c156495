package zktest

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// servletJar is libservlet-api-java's jar, beside zookeeper.jar.
const servletJar = "servlet-api.jar"

// adminProbeTimeout bounds one HTTP request while waiting for an AdminServer.
const adminProbeTimeout = 2 * time.Second

// RealOptions configures RealWith.
type RealOptions struct {
	// Nodes is 1 (the default) or 3.
	Nodes int
	// FourLetterWords, when not nil, is the members' 4lw.commands.whitelist
	// instead of "*". ZooKeeper always allows srvr on top of it, whatever
	// the list says.
	FourLetterWords []string
	// AdminServer enables ZooKeeper's AdminServer (Jetty, HTTP) on a free
	// loopback port for every member; see Member.AdminURL.
	AdminServer bool
	// MaxClientCnxns, when positive, is the members' maxClientCnxns: the
	// connections each accepts from one address (the harness's default is
	// no limit; ZooKeeper's own is 60).
	MaxClientCnxns int
	// TLS, when set, gives every member a secureClientPort (Netty, PEM key
	// and trust stores from these certificates, client certificates
	// required, as ZooKeeper does by default); see Member.SecureAddr. With
	// AdminServer too, the AdminServers speak https only
	// (admin.forceHttps), with the same server certificate.
	TLS *Certs
	// SASL, when set, configures the members' SASL; see SASL.
	SASL *SASL
	// ExtraConfig are zoo.cfg lines added as they are, e.g. "snapCount=20"
	// or "preAllocSize=4". Keys ZooKeeper does not know become
	// "zookeeper."-prefixed system properties (QuorumPeerConfig), which is
	// how snapshot.compression.method=gz reaches SnapStream.
	ExtraConfig []string
	// Audit enables ZooKeeper's audit log (audit.enable=true) and routes
	// it to files through log4j 1.2: see AuditDir, Member.AuditDir. The
	// members then log through log4j instead of slf4j-simple.
	Audit bool
	// NoExtendedTypes starts the members without
	// zookeeper.extendedTypesEnabled (ZooKeeper's own default; the harness
	// enables it otherwise): they create no TTL nodes.
	NoExtendedTypes bool
}

// RealWith is Real with options: a restricted four-letter-word whitelist,
// the AdminServer, a connection limit. It waits until every member serves, judged by srvr
// alone (which ZooKeeper never refuses), with TLS until every member's TLS port
// accepts connections, and, with AdminServer, until every member's AdminServer answers.
func RealWith(t testing.TB, opts RealOptions) *Ensemble {
	t.Helper()
	rt := requireRuntime(t)
	if opts.Nodes == 0 {
		opts.Nodes = 1
	}
	if opts.Nodes != 1 && opts.Nodes != 3 {
		t.Fatalf("zktest: RealWith(Nodes: %d): nodes must be 1 or 3", opts.Nodes)
	}
	dir := t.TempDir()
	e, err := newEnsemble(dir, opts.Nodes, rt)
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	if err := e.configure(opts); err != nil {
		t.Fatalf("zktest: %v", err)
	}
	begin := e.launch(t, func() error { return e.poll(startTimeout, e.servingBySrvr) })
	if opts.TLS != nil {
		if err := e.poll(startTimeout, e.secureListening); err != nil {
			t.Fatalf("zktest: the TLS ports of %s did not open: %v", e.SecureConnectString(), err)
		}
	}
	if opts.AdminServer {
		e.adminTLS = opts.TLS
		if err := e.poll(startTimeout, e.adminServing); err != nil {
			t.Fatalf("zktest: AdminServer of %s did not answer: %v", e.ConnectString(), err)
		}
	}
	t.Logf("zktest: real ZooKeeper (%s, 4lw whitelist %s, AdminServer %v) serving at %s after %v",
		e.kind(), whitelist(opts.FourLetterWords), opts.AdminServer, e.ConnectString(),
		time.Since(begin).Round(time.Millisecond))
	return e
}

func whitelist(words []string) string {
	if words == nil {
		return "*"
	}
	return strings.Join(words, ",")
}

// configure rewrites the zoo.cfg that newEnsemble wrote: the whitelist and
// the AdminServer lines. Keys ZooKeeper does not know become "zookeeper."
// system properties when it reads the file, so these override the JVM's
// -Dzookeeper.admin.enableServer=false.
func (e *Ensemble) configure(opts RealOptions) error {
	var ports, securePorts []int
	if opts.AdminServer {
		var err error
		if ports, err = freePorts(len(e.members)); err != nil {
			return err
		}
	}
	if opts.TLS != nil {
		var err error
		if securePorts, err = freePorts(len(e.members)); err != nil {
			return err
		}
	}
	for i, m := range e.members {
		var auditLine string
		if opts.Audit {
			var err error
			if auditLine, err = m.configureAudit(); err != nil {
				return err
			}
		}
		if opts.NoExtendedTypes {
			m.jvmArgs = append(m.jvmArgs, "-Dzookeeper.extendedTypesEnabled=false") // after the harness's =true: the last one wins
		}
		if opts.AdminServer {
			// Debian's zookeeper.jar lists Jetty in its manifest but not
			// the servlet API Jetty needs: without it ZooKeeper logs
			// "Unable to load jetty" and runs without an AdminServer.
			servlet := filepath.Join(filepath.Dir(m.rt.jar), servletJar)
			if !fileExists(servlet) {
				return fmt.Errorf("AdminServer needs %s (fix: apt-get install -y libservlet-api-java)", servlet)
			}
			m.rt.classpath += string(filepath.ListSeparator) + servlet
		}
		if opts.TLS != nil {
			if err := m.addTLSJars(); err != nil {
				return err
			}
		}
		cfg, err := os.ReadFile(m.cfgPath)
		if err != nil {
			return fmt.Errorf("read %s: %w", m.cfgPath, err)
		}
		var b strings.Builder
		for _, line := range strings.Split(strings.TrimRight(string(cfg), "\n"), "\n") {
			switch {
			case strings.HasPrefix(line, "4lw.commands.whitelist="):
				line = "4lw.commands.whitelist=" + whitelist(opts.FourLetterWords)
			case strings.HasPrefix(line, "maxClientCnxns=") && opts.MaxClientCnxns > 0:
				line = fmt.Sprintf("maxClientCnxns=%d", opts.MaxClientCnxns)
			case strings.HasPrefix(line, "admin.enableServer=") && opts.AdminServer:
				line = fmt.Sprintf("admin.enableServer=true\nadmin.serverAddress=127.0.0.1\nadmin.serverPort=%d", ports[i])
			}
			b.WriteString(line + "\n")
		}
		if opts.TLS != nil {
			b.WriteString(tlsConfig(securePorts[i], opts.TLS))
			if opts.AdminServer {
				b.WriteString(adminTLSConfig(opts.TLS))
			}
		}
		b.WriteString(auditLine)
		for _, line := range opts.ExtraConfig {
			b.WriteString(line + "\n")
		}
		if opts.SASL != nil {
			cfgLines, err := m.configureSASL(opts.SASL)
			if err != nil {
				return err
			}
			b.WriteString(cfgLines)
		}
		if err := os.WriteFile(m.cfgPath, []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", m.cfgPath, err)
		}
	}
	return nil
}

// adminServing checks once that every live member's AdminServer answers
// its ruok command.
func (e *Ensemble) adminServing() (bool, string) {
	client := &http.Client{Timeout: adminProbeTimeout}
	if e.adminTLS != nil {
		cfg, err := e.adminTLS.ClientConfig()
		if err != nil {
			return false, err.Error()
		}
		client.Transport = &http.Transport{TLSClientConfig: cfg}
	}
	for _, m := range e.members {
		if st, _ := m.state(); st != stateRunning {
			continue
		}
		url := m.AdminURL() + "/ruok"
		resp, err := client.Get(url)
		if err != nil {
			return false, fmt.Sprintf("%v: GET %s: %v", m, url, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Sprintf("%v: GET %s: %s", m, url, resp.Status)
		}
	}
	return true, ""
}

// AdminURL returns the base URL of the member's AdminServer commands,
// "http://127.0.0.1:port/commands" ("https://…" when it speaks TLS), or ""
// when it was not started with one (see RealWith). It reads the member's
// zoo.cfg.
func (m *Member) AdminURL() string {
	f, err := os.Open(m.cfgPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	enabled, port, scheme := false, 0, "http"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "admin.enableServer":
			enabled = v == "true"
		case "admin.forceHttps":
			if v == "true" {
				scheme = "https"
			}
		case "admin.serverPort":
			port, _ = strconv.Atoi(v)
		}
	}
	if !enabled || port == 0 {
		return ""
	}
	return scheme + "://127.0.0.1:" + strconv.Itoa(port) + "/commands"
}
