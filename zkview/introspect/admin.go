package introspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/netfail"
)

// The AdminServer (ZooKeeper 3.5+, Jetty on port 8080 by default) answers
// GET <base>/<command> with a JSON object holding the command's fields
// plus "command" and "error". It ignores 4lw.commands.whitelist, and
// ZooKeeper 3.8 asks for no authentication.

// adminClient asks one member's AdminServer.
type adminClient struct {
	base string // ".../commands", no trailing slash
	http *http.Client
}

// shown is the client's URL as messages name it: without a password.
func (a adminClient) shown() string { return display.URL(a.base) }

// AdminBase checks and normalises an AdminServer URL as Options.AdminURLs
// takes it: http or https with a host; a URL without a path gets
// "/commands"; a trailing slash goes.
func AdminBase(raw string) (string, error) { return adminBase(raw) }

// adminBase normalises an AdminServer URL: a URL without a path gets
// "/commands"; a trailing slash goes.
func adminBase(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url.Error repeats the URL, password and all: keep only why.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("AdminServer URL %q: %w", display.URL(raw), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("AdminServer URL %q: want http://host:port/commands", display.URL(raw))
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if u.Path == "" {
		u.Path = "/commands"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// get runs one command and decodes its answer into v (numbers as
// json.Number where v holds interfaces).
func (a adminClient) get(ctx context.Context, cmd string, timeout time.Duration, v any) error {
	ctx, cancel := netfail.Within(ctx, timeout)
	defer cancel()
	u := a.base + "/" + cmd
	shown := a.shown() + "/" + cmd
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", shown, err)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // net/http's own message repeats the URL
		}
		return fmt.Errorf("GET %s: %w", shown, netfail.Describe(ctx, err, timeout))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFourLetterAnswer))
	if err != nil {
		return fmt.Errorf("GET %s: %w", shown, netfail.Describe(ctx, err, timeout))
	}
	if err := decodeAdminAnswer(body, v); err != nil {
		return fmt.Errorf("GET %s: %s: %w", shown, resp.Status, err)
	}
	return nil
}

// decodeAdminAnswer reads one AdminServer answer into v, or its "error".
func decodeAdminAnswer(body []byte, v any) error {
	var head struct {
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return fmt.Errorf("not a ZooKeeper AdminServer answer: %q", clipAnswer(string(body)))
	}
	if head.Error != nil {
		if *head.Error == notServingText {
			return errNotServing
		}
		return errors.New(*head.Error)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return dec.Decode(v)
}

// adminFlat decodes a flat answer (monitor, configuration) into strings,
// without the "command" and "error" fields.
func adminFlat(raw map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range raw {
		if k == "command" || k == "error" {
			continue
		}
		switch v := v.(type) {
		case nil:
			out[k] = ""
		case string:
			out[k] = v
		case json.Number:
			out[k] = v.String()
		case bool:
			out[k] = strconv.FormatBool(v)
		default:
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out
}

type adminServerStats struct {
	Version     string `json:"version"`
	ReadOnly    bool   `json:"read_only"`
	NodeCount   int64  `json:"node_count"`
	ServerStats struct {
		ServerState       string  `json:"server_state"`
		LastProcessedZxid int64   `json:"last_processed_zxid"`
		Outstanding       int64   `json:"outstanding_requests"`
		AvgLatency        float64 `json:"avg_latency"`
		MinLatency        int64   `json:"min_latency"`
		MaxLatency        int64   `json:"max_latency"`
		Connections       int64   `json:"num_alive_client_connections"`
		PacketsSent       int64   `json:"packets_sent"`
		PacketsReceived   int64   `json:"packets_received"`
	} `json:"server_stats"`
}

func (a adminServerStats) stats() ServerStats {
	s := a.ServerStats
	return ServerStats{
		Version: a.Version, Mode: MemberMode(s.ServerState), ReadOnly: a.ReadOnly || s.ServerState == string(ModeReadOnly),
		Zxid: s.LastProcessedZxid, NodeCount: a.NodeCount, Connections: s.Connections, Outstanding: s.Outstanding,
		Received: s.PacketsReceived, Sent: s.PacketsSent,
		LatencyMin: s.MinLatency, LatencyAvg: s.AvgLatency, LatencyMax: s.MaxLatency,
	}
}

type adminConnection struct {
	Address     string `json:"remote_socket_address"`
	Outstanding int64  `json:"outstanding_requests"`
	Received    int64  `json:"packets_received"`
	Sent        int64  `json:"packets_sent"`
	SessionID   int64  `json:"session_id"`
	LastOp      string `json:"last_operation"`
	Established int64  `json:"established"`
	Timeout     int64  `json:"session_timeout"`
	LastCxid    int64  `json:"last_cxid"`
	LastZxid    int64  `json:"last_zxid"`
	LastResp    int64  `json:"last_response_time"`
	LastLatency int64  `json:"last_latency"`
	MinLatency  int64  `json:"min_latency"`
	AvgLatency  int64  `json:"avg_latency"`
	MaxLatency  int64  `json:"max_latency"`
}

type adminConnections struct {
	Connections       []adminConnection `json:"connections"`
	SecureConnections []adminConnection `json:"secure_connections"`
}

func (a adminConnections) connections() []Connection {
	out := []Connection{}
	for _, c := range append(append([]adminConnection(nil), a.Connections...), a.SecureConnections...) {
		conn := Connection{
			Client: javaSocketAddress(c.Address), SessionID: c.SessionID,
			Queued: c.Outstanding, Received: c.Received, Sent: c.Sent, LastOp: c.LastOp,
			Timeout:  time.Duration(c.Timeout) * time.Millisecond,
			LastCxid: c.LastCxid, LastZxid: c.LastZxid, LastResponse: c.LastResp,
			LatencyLast: c.LastLatency, LatencyMin: c.MinLatency, LatencyAvg: c.AvgLatency, LatencyMax: c.MaxLatency,
		}
		if c.Established > 0 {
			conn.Established = time.UnixMilli(c.Established)
		}
		if c.SessionID != 0 {
			conn.Session = display.Hex(c.SessionID)
		}
		out = append(out, conn)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Established.Before(out[j].Established) })
	return out
}

type adminWatches struct {
	BySession map[string][]string `json:"session_id_to_watched_paths"`
}

func (a adminWatches) table() (map[int64][]string, error) {
	out := map[int64][]string{}
	for k, paths := range a.BySession {
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("watches: session id %q: %w", k, err)
		}
		out[id] = append([]string{}, paths...)
	}
	return out, nil
}

type adminWatchesByPath struct {
	ByPath map[string][]int64 `json:"path_to_session_ids"`
}

type adminDump struct {
	Expiry     map[string][]int64  `json:"expiry_time_to_session_ids"`
	Ephemerals map[string][]string `json:"session_id_to_ephemeral_paths"`
}

func (a adminDump) dump() (*Dump, error) {
	d := &Dump{Timeouts: map[int64]time.Duration{}, Ephemerals: map[int64][]string{}}
	for k, ids := range a.Expiry {
		elapsed, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("dump: expiry time %q: %w", k, err)
		}
		d.Buckets = append(d.Buckets, ExpiryBucket{Elapsed: elapsed, Sessions: sortedSessionIDs(ids)})
	}
	sort.Slice(d.Buckets, func(i, j int) bool { return d.Buckets[i].Elapsed < d.Buckets[j].Elapsed })
	for k, paths := range a.Ephemerals {
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("dump: session id %q: %w", k, err)
		}
		p := append([]string{}, paths...)
		sort.Strings(p)
		d.Ephemerals[id] = p
	}
	return d, nil
}

func sortedSessionIDs(ids []int64) []int64 {
	out := append([]int64{}, ids...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
