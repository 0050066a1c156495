package introspect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Answers of ZooKeeper 3.8 that are not the command's output.
const (
	// refusalSuffix ends the answer to a word missing from
	// 4lw.commands.whitelist: "<cmd> is not executed because it is not in
	// the whitelist."
	refusalSuffix = " is not executed because it is not in the whitelist."
	// notServingText is the answer of a server outside a quorum.
	notServingText = "This ZooKeeper instance is not currently serving requests"
)

// errNotServing is the answer of a member that is up but not serving
// (e.g. out of quorum, or still electing a leader).
var errNotServing = errors.New("not currently serving requests")

// refusedWord reports whether text is the server's refusal of cmd.
func refusedWord(cmd, text string) bool {
	t := strings.TrimSpace(text)
	return t == cmd+refusalSuffix
}

// ServerStats is what srvr (or the AdminServer's server_stats) reports of
// a member.
type ServerStats struct {
	Version  string     `json:"version"`
	Mode     MemberMode `json:"mode"`
	ReadOnly bool       `json:"read_only,omitempty"`
	// Zxid is the last zxid the member processed.
	Zxid      int64 `json:"zxid"`
	NodeCount int64 `json:"node_count"`
	// Connections is the number of live client connections.
	Connections int64 `json:"connections"`
	// Outstanding is the number of queued requests.
	Outstanding int64 `json:"outstanding"`
	Received    int64 `json:"received"`
	Sent        int64 `json:"sent"`
	// Latencies are in milliseconds.
	LatencyMin int64   `json:"latency_min_ms"`
	LatencyAvg float64 `json:"latency_avg_ms"`
	LatencyMax int64   `json:"latency_max_ms"`
}

// parseSrvr reads the answer to srvr (or stat, whose client list it
// skips):
//
//	Zookeeper version: 3.8.0-…, built on …
//	Latency min/avg/max: 0/2.4/7
//	Received: 17
//	Sent: 16
//	Connections: 3
//	Outstanding: 0
//	Zxid: 0x7
//	Mode: standalone
//	Node count: 10
//	Proposal sizes last/min/max: 97/48/126      (leader only)
func parseSrvr(text string) (ServerStats, error) {
	var st ServerStats
	if strings.TrimSpace(text) == notServingText {
		return st, errNotServing
	}
	var err error
	for _, line := range answerLines(text) {
		if line == "" || strings.HasPrefix(line, " ") || line == "Clients:" {
			continue // stat's client list
		}
		if strings.HasPrefix(line, "READ-ONLY mode") {
			st.ReadOnly = true
			continue
		}
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch key {
		case "Zookeeper version":
			st.Version = value
		case "Latency min/avg/max":
			st.LatencyMin, st.LatencyAvg, st.LatencyMax, err = parseLatency(value)
		case "Received":
			st.Received, err = strconv.ParseInt(value, 10, 64)
		case "Sent":
			st.Sent, err = strconv.ParseInt(value, 10, 64)
		case "Connections":
			st.Connections, err = strconv.ParseInt(value, 10, 64)
		case "Outstanding":
			st.Outstanding, err = strconv.ParseInt(value, 10, 64)
		case "Zxid":
			st.Zxid, err = parseHexLong(value)
		case "Mode":
			st.Mode = MemberMode(value)
		case "Node count":
			st.NodeCount, err = strconv.ParseInt(value, 10, 64)
		}
		if err != nil {
			return ServerStats{}, fmt.Errorf("srvr: %q: %w", line, err)
		}
	}
	if st.Mode == "" {
		return ServerStats{}, fmt.Errorf("srvr: no Mode line in %q", clipAnswer(text))
	}
	if st.Mode == ModeReadOnly {
		st.ReadOnly = true
	}
	return st, nil
}

func parseLatency(v string) (minimum int64, avg float64, maximum int64, err error) {
	parts := strings.Split(v, "/")
	if len(parts) != 3 {
		return 0, 0, 0, fmt.Errorf("want min/avg/max")
	}
	if minimum, err = strconv.ParseInt(parts[0], 10, 64); err != nil {
		return 0, 0, 0, err
	}
	if avg, err = strconv.ParseFloat(parts[1], 64); err != nil {
		return 0, 0, 0, err
	}
	if maximum, err = strconv.ParseInt(parts[2], 10, 64); err != nil {
		return 0, 0, 0, err
	}
	return minimum, avg, maximum, nil
}

// parseMntr reads the answer to mntr, "zk_<key>\t<value>" lines, into a
// map keyed without the "zk_" prefix.
func parseMntr(text string) (map[string]string, error) {
	if strings.TrimSpace(text) == notServingText {
		return nil, errNotServing
	}
	out := map[string]string{}
	for _, line := range answerLines(text) {
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, "\t")
		if !ok || !strings.HasPrefix(key, "zk_") {
			return nil, fmt.Errorf("mntr: unexpected line %q", clipAnswer(line))
		}
		out[strings.TrimPrefix(key, "zk_")] = value
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("mntr: empty answer")
	}
	return out, nil
}

// statsFromMonitor fills what srvr would say from mntr's values, for a
// member whose srvr did not answer.
func statsFromMonitor(mon map[string]string) ServerStats {
	num := func(k string) int64 {
		n, _ := strconv.ParseInt(mon[k], 10, 64)
		return n
	}
	avg, _ := strconv.ParseFloat(mon["avg_latency"], 64)
	return ServerStats{
		Version:     mon["version"],
		Mode:        MemberMode(mon["server_state"]),
		ReadOnly:    mon["server_state"] == string(ModeReadOnly),
		NodeCount:   num("znode_count"),
		Connections: num("num_alive_connections"),
		Outstanding: num("outstanding_requests"),
		Received:    num("packets_received"),
		Sent:        num("packets_sent"),
		LatencyMin:  num("min_latency"),
		LatencyAvg:  avg,
		LatencyMax:  num("max_latency"),
	}
}

// parseConf reads the answer to conf, "key=value" lines. Lines without
// "=" (an ensemble's "membership: " header) are skipped; the ensemble's
// "server.N" lines are kept as keys.
func parseConf(text string) (map[string]string, error) {
	if strings.TrimSpace(text) == notServingText {
		return nil, errNotServing
	}
	out := map[string]string{}
	for _, line := range answerLines(text) {
		if key, value, ok := strings.Cut(line, "="); ok && key != "" {
			out[key] = value
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("conf: no key=value line in %q", clipAnswer(text))
	}
	return out, nil
}

// parseRuok reads ruok's "imok".
func parseRuok(text string) error {
	if text != "imok" {
		return fmt.Errorf("ruok: answered %q, not imok", clipAnswer(text))
	}
	return nil
}

// parseIsro reads isro's "ro" or "rw".
func parseIsro(text string) (readOnly bool, err error) {
	switch strings.TrimSpace(text) {
	case "ro":
		return true, nil
	case "rw":
		return false, nil
	case "null":
		return false, errNotServing
	}
	return false, fmt.Errorf("isro: answered %q, not ro or rw", clipAnswer(text))
}

// parseFourLetter parses the answer to any word zkview asks, for the fuzz
// target and the tests: the typed value, or an error.
func parseFourLetter(cmd, text string) (any, error) {
	if refusedWord(cmd, text) {
		return nil, fmt.Errorf("%s refused", cmd)
	}
	switch cmd {
	case "srvr", "stat":
		return parseSrvr(text)
	case "mntr":
		return parseMntr(text)
	case "conf":
		return parseConf(text)
	case "cons":
		return parseCons(text)
	case "wchc":
		return parseWchc(text)
	case "wchp":
		return parseWchp(text)
	case "dump":
		return parseDump(text)
	case "ruok":
		return nil, parseRuok(text)
	case "isro":
		return parseIsro(text)
	}
	return nil, fmt.Errorf("%s: not a word zkview parses", cmd)
}

// answerLines splits text into lines without their line ends ("\r\n" or "\n").
func answerLines(text string) []string {
	out := strings.Split(text, "\n")
	for i, l := range out {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out
}

// parseHexLong reads a "0x…" number as ZooKeeper prints longs with
// Long.toHexString: negative values as their two's complement.
func parseHexLong(s string) (int64, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return 0, fmt.Errorf("%q is not 0x-prefixed hex", clipAnswer(s))
	}
	u, err := strconv.ParseUint(h, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not hex", clipAnswer(s))
	}
	return int64(u), nil
}

// clipAnswer shortens text quoted in an error.
func clipAnswer(s string) string {
	const limit = 120
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
