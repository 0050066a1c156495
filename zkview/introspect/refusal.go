package introspect

import "fmt"

// missingFor says what a refusal of cmd by m costs, given what m and the
// other members did answer.
func missingFor(cmd string, m *Member, in *Snapshot) string {
	if m.AdminURL != "" && tableWord(cmd) {
		return "read from its AdminServer instead"
	}
	switch cmd {
	case "srvr":
		if m.Stats != nil && m.Monitor != nil {
			return "mode, version and counters taken from mntr instead"
		}
		return "mode, version, zxid, node count, latency and connection counts are unknown"
	case "mntr":
		return "monitoring counters (watch and ephemeral counts, synced followers, file descriptors) are unknown"
	case "cons":
		if m.Dump != nil && len(m.Dump.Connections) > 0 {
			return "client addresses taken from dump instead; last operations, session timeouts and latencies are unknown"
		}
		return "client addresses, last operations and session timeouts of its connections are unknown, and whether a session is still connected cannot be confirmed"
	case "wchc", "wchp":
		if m.Watches == nil {
			return "watches cannot be confirmed"
		}
		if cmd == "wchc" {
			return "watches by session derived from wchp instead"
		}
		return "watches by path derived from wchc instead"
	case "dump":
		for i := range in.Members {
			if o := &in.Members[i]; o.Addr != m.Addr && o.Dump != nil {
				return fmt.Sprintf("ephemeral nodes taken from %s's dump instead; this member's session expiry and connection list are unknown", o.Addr)
			}
		}
		return "sessions' ephemeral nodes and expiry are unknown"
	case "conf":
		return "its configuration is unknown"
	case "ruok":
		return "whether it is alive could not be confirmed"
	case "isro":
		return "whether it is read-only could not be confirmed"
	}
	return "its answer is unknown"
}
