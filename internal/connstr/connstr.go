// Package connstr parses ZooKeeper connect strings:
// "host1:port1,host2:port2[/chroot]". go-zookeeper takes the server list
// but knows nothing of the chroot, so callers apply it to their paths.
package connstr

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultPort is ZooKeeper's client port, used when a host has none.
const DefaultPort = 2181

// ConnectString is a parsed connect string.
type ConnectString struct {
	Servers []string // host:port, in the order given
	Chroot  string   // "" or an absolute path without a trailing slash
}

// Parse reads a connect string, with a clear error for every way it can be
// malformed.
func Parse(s string) (ConnectString, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return ConnectString{}, fmt.Errorf("empty connect string (want host:port[,host:port...][/chroot])")
	}
	hosts, chroot := s, ""
	if i := strings.IndexByte(s, '/'); i >= 0 {
		hosts, chroot = s[:i], s[i:]
		if err := checkChroot(chroot); err != nil {
			return ConnectString{}, fmt.Errorf("connect string %q: %w", s, err)
		}
		if chroot == "/" {
			chroot = ""
		}
	}
	var cs ConnectString
	for _, h := range strings.Split(hosts, ",") {
		server, err := parseServer(strings.TrimSpace(h))
		if err != nil {
			return ConnectString{}, fmt.Errorf("connect string %q: %w", s, err)
		}
		cs.Servers = append(cs.Servers, server)
	}
	cs.Chroot = chroot
	return cs, nil
}

func parseServer(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("empty server address")
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		// No port given (or an IPv6 address without brackets): use the default.
		if strings.Count(h, ":") > 1 && !strings.HasPrefix(h, "[") {
			return "", fmt.Errorf("server %q: write IPv6 addresses as [addr]:port", h)
		}
		if strings.Contains(h, ":") {
			return "", fmt.Errorf("server %q: %v", h, err)
		}
		host, port = h, strconv.Itoa(DefaultPort)
	}
	if host == "" {
		return "", fmt.Errorf("server %q has no host", h)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("server %q: port must be a number from 1 to 65535", h)
	}
	return net.JoinHostPort(host, port), nil
}

func checkChroot(c string) error {
	if c == "/" {
		return nil
	}
	if strings.HasSuffix(c, "/") {
		return fmt.Errorf("chroot %q must not end with /", c)
	}
	for _, part := range strings.Split(c[1:], "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("chroot %q is not a valid absolute path", c)
		}
	}
	return nil
}

// Abs maps a path as the user wrote it (relative to the chroot) to the path
// on the server.
func (cs ConnectString) Abs(path string) string {
	if cs.Chroot == "" {
		return path
	}
	if path == "/" {
		return cs.Chroot
	}
	return cs.Chroot + path
}

// Rel maps a server path back to the user's view under the chroot.
func (cs ConnectString) Rel(path string) string {
	if cs.Chroot == "" {
		return path
	}
	if path == cs.Chroot {
		return "/"
	}
	return strings.TrimPrefix(path, cs.Chroot)
}

// String writes the connect string back.
func (cs ConnectString) String() string { return strings.Join(cs.Servers, ",") + cs.Chroot }
