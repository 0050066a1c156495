package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SASL configures the members' SASL (RealOptions.SASL): a JAAS Server
// section, the sasl authentication provider (so that ACLs may name
// sasl:PRINCIPAL), and, with Required, SASL demanded of every session.
type SASL struct {
	// DigestUsers are DIGEST-MD5's users and their passwords
	// (DigestLoginModule). Ignored when KDC is set.
	DigestUsers map[string]string
	// KDC, when set, makes the members speak GSSAPI: each logs in as
	// zookeeper/Host@realm with a keytab made on this KDC
	// (Krb5LoginModule).
	KDC *KDC
	// Host is the server principal's host, the name clients dial
	// (default "localhost").
	Host string
	// Required sets sessionRequireClientSASLAuth: any request from a
	// session that did not authenticate is answered -124, and the
	// connection closed.
	Required bool
}

// configureSASL writes the member's JAAS file (and keytab), adds the JVM
// properties it needs and returns its zoo.cfg lines.
func (m *Member) configureSASL(s *SASL) (string, error) {
	jaas := filepath.Join(m.dir, "jaas.conf")
	var section string
	if s.KDC != nil {
		host := s.Host
		if host == "" {
			host = "localhost"
		}
		principal := "zookeeper/" + host + "@" + s.KDC.Realm
		keytab := filepath.Join(m.dir, "zookeeper.keytab")
		if err := s.KDC.addPrincipal(principal, keytab); err != nil {
			return "", err
		}
		section = fmt.Sprintf("  com.sun.security.auth.module.Krb5LoginModule required\n"+
			"  useKeyTab=true keyTab=%q storeKey=true useTicketCache=false isInitiator=false\n"+
			"  principal=%q;\n", keytab, principal)
		m.jvmArgs = append(m.jvmArgs, "-Djava.security.krb5.conf="+s.KDC.Conf)
	} else {
		if len(s.DigestUsers) == 0 {
			return "", fmt.Errorf("SASL: neither DigestUsers nor a KDC")
		}
		var users []string
		for u, p := range s.DigestUsers {
			users = append(users, fmt.Sprintf("  user_%s=%q", u, p))
		}
		slices.Sort(users)
		section = "  org.apache.zookeeper.server.auth.DigestLoginModule required\n" + strings.Join(users, "\n") + ";\n"
	}
	if err := os.WriteFile(jaas, []byte("Server {\n"+section+"};\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", jaas, err)
	}
	m.jvmArgs = append(m.jvmArgs, "-Djava.security.auth.login.config="+jaas)
	// zoo.cfg keys ZooKeeper does not know become zookeeper.* system
	// properties: authProvider.1, sessionRequireClientSASLAuth.
	lines := "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n"
	if s.Required {
		lines += "sessionRequireClientSASLAuth=true\n"
	}
	return lines, nil
}
