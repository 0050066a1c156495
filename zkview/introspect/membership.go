package introspect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Membership is the ensemble's configuration as the servers hold it in
// /zookeeper/config (3.5+): every member with its role and addresses, and
// the configuration's version. A standalone server, and an ensemble with
// no dynamic configuration written yet, leave it empty.
type Membership struct {
	Members []ConfigMember `json:"members"`
	// Version is the configuration's version (hex, as ZooKeeper writes it:
	// the zxid of the reconfig that made it; 0 for a static one).
	Version string `json:"version"`
}

// ConfigMember is one server.N line of the configuration.
type ConfigMember struct {
	ID int64 `json:"id"`
	// Role is participant or observer.
	Role string `json:"role"`
	// Quorum and Election are the peer ports' addresses (host:port); a
	// member may have several (3.6+ multi-address, "|" between them).
	Quorum   []string `json:"quorum"`
	Election []string `json:"election"`
	// Client is the client address when the configuration names it
	// (dynamic configuration); empty when it comes from the member's
	// static clientPort, which /zookeeper/config does not show.
	Client string `json:"client,omitempty"`
}

// ParseMembership reads /zookeeper/config as QuorumMaj.toString writes it:
// server.ID=HOST:QPORT:EPORT[|HOST:QPORT:EPORT…][:ROLE][;[CLIENTHOST:]CLIENTPORT]
// lines and version=HEX (QuorumPeer.QuorumServer.toString). Hosts may be
// IPv6 in brackets.
func ParseMembership(data []byte) (Membership, error) {
	var m Membership
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return m, fmt.Errorf("/zookeeper/config line %d: %q is not key=value", n+1, line)
		}
		switch {
		case key == "version":
			m.Version = value
		case strings.HasPrefix(key, "server."):
			id, err := strconv.ParseInt(strings.TrimPrefix(key, "server."), 10, 64)
			if err != nil {
				return m, fmt.Errorf("/zookeeper/config line %d: %q is not server.ID", n+1, key)
			}
			mem, err := parseConfigMember(id, value)
			if err != nil {
				return m, fmt.Errorf("/zookeeper/config line %d: %w", n+1, err)
			}
			m.Members = append(m.Members, mem)
		}
		// Other keys (group., weight. of hierarchical quorums) are not shown.
	}
	sort.Slice(m.Members, func(i, j int) bool { return m.Members[i].ID < m.Members[j].ID })
	return m, nil
}

func parseConfigMember(id int64, value string) (ConfigMember, error) {
	mem := ConfigMember{ID: id, Role: "participant"}
	peers, client, _ := strings.Cut(value, ";")
	if client != "" {
		if !strings.Contains(client, ":") || strings.HasPrefix(client, "[") && !strings.Contains(client, "]:") {
			client = "0.0.0.0:" + client // a port alone: every address
		}
		mem.Client = client
	}
	for i, addr := range strings.Split(peers, "|") {
		host, rest, err := splitHost(addr)
		if err != nil {
			return mem, err
		}
		parts := strings.Split(rest, ":")
		if len(parts) < 2 {
			return mem, fmt.Errorf("server.%d: %q has no quorum and election ports", id, addr)
		}
		if i == len(strings.Split(peers, "|"))-1 && len(parts) == 3 {
			mem.Role = parts[2]
		}
		mem.Quorum = append(mem.Quorum, host+":"+parts[0])
		mem.Election = append(mem.Election, host+":"+parts[1])
	}
	if mem.Role != "participant" && mem.Role != "observer" {
		return mem, fmt.Errorf("server.%d: role %q is neither participant nor observer", id, mem.Role)
	}
	return mem, nil
}

// splitHost takes the host off host:rest, with an IPv6 host in brackets.
func splitHost(addr string) (host, rest string, err error) {
	if strings.HasPrefix(addr, "[") {
		end := strings.Index(addr, "]:")
		if end < 0 {
			return "", "", fmt.Errorf("%q: unclosed IPv6 address", addr)
		}
		return addr[:end+1], addr[end+2:], nil
	}
	host, rest, ok := strings.Cut(addr, ":")
	if !ok {
		return "", "", fmt.Errorf("%q has no ports", addr)
	}
	return host, rest, nil
}
