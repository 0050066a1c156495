package zktest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tlsJars are what Netty's TLS needs beyond what Debian's zookeeper.jar
// lists in its manifest (netty-buffer, -common, -handler, -transport):
// without them ZooKeeper starts, and fails each TLS handshake with
// NoClassDefFoundError (ByteToMessageDecoder), as Debian's netty-all.jar
// is empty.
var tlsJars = []string{"netty-codec.jar", "netty-resolver.jar"}

// addTLSJars puts tlsJars on the member's classpath.
func (m *Member) addTLSJars() error {
	for _, jar := range tlsJars {
		p := filepath.Join(filepath.Dir(m.rt.jar), jar)
		if !fileExists(p) {
			return fmt.Errorf("TLS needs %s (fix: apt-get install -y libnetty-java)", p)
		}
		m.rt.classpath += string(filepath.ListSeparator) + p
	}
	return nil
}

// tlsConfig is the zoo.cfg part of a secureClientPort. Unknown keys become
// "zookeeper." system properties, where Netty and X509Util read them.
func tlsConfig(port int, c *Certs) string {
	return fmt.Sprintf("secureClientPort=%d\nsecureClientPortAddress=127.0.0.1\n"+
		"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n"+
		"ssl.keyStore.location=%s\nssl.keyStore.type=PEM\n"+
		"ssl.trustStore.location=%s\nssl.trustStore.type=PEM\n", port, c.ServerPEM, c.CA)
}

// adminTLSConfig is the zoo.cfg part of an AdminServer that speaks https
// only. ZooKeeper 3.8's Jetty AdminServer takes its key and trust stores
// from the quorum's TLS settings (QuorumX509Util), not the client port's;
// it asks for no client certificate.
func adminTLSConfig(c *Certs) string {
	return fmt.Sprintf("admin.forceHttps=true\n"+
		"ssl.quorum.keyStore.location=%s\nssl.quorum.keyStore.type=PEM\n"+
		"ssl.quorum.trustStore.location=%s\nssl.quorum.trustStore.type=PEM\n", c.ServerPEM, c.CA)
}

// SecureAddr returns the member's TLS client address,
// "127.0.0.1:secureClientPort", or "" when it has none (see RealOptions.TLS).
// It reads the member's zoo.cfg.
func (m *Member) SecureAddr() string {
	f, err := os.Open(m.cfgPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "secureClientPort="); ok {
			if port, err := strconv.Atoi(v); err == nil {
				return "127.0.0.1:" + strconv.Itoa(port)
			}
		}
	}
	return ""
}

// SecureConnectString is the members' TLS addresses, comma-separated.
func (e *Ensemble) SecureConnectString() string {
	addrs := make([]string, 0, len(e.members))
	for _, m := range e.members {
		addrs = append(addrs, m.SecureAddr())
	}
	return strings.Join(addrs, ",")
}

// secureListening checks once whether every live member's secureClientPort
// accepts connections: ZooKeeper binds it after its plain port (a second
// or more later on a busy machine), so srvr answering says nothing of it.
func (e *Ensemble) secureListening() (bool, string) {
	for _, m := range e.members {
		if st, _ := m.state(); st != stateRunning {
			continue
		}
		c, err := net.DialTimeout("tcp", m.SecureAddr(), pollTimeout)
		if err != nil {
			return false, fmt.Sprintf("%v: TLS port %s: %v", m, m.SecureAddr(), err)
		}
		c.Close()
	}
	return true, ""
}
