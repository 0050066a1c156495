package introspect

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
)

// Connection is one client connection of a member, as cons (or the
// AdminServer's connections) lists it.
type Connection struct {
	// Client is the client's address, "ip:port".
	Client string `json:"client"`
	// SessionID is 0 for a connection without a session yet (among them
	// the four-letter-word connection asking).
	SessionID int64  `json:"-"`
	Session   string `json:"session,omitempty"` // SessionID as 0x…
	// Queued is the connection's outstanding requests.
	Queued   int64 `json:"queued"`
	Received int64 `json:"received"`
	Sent     int64 `json:"sent"`
	// LastOp is the last operation's four-letter code (GETD, CREA, PING,
	// …, "NA" before the first).
	LastOp      string        `json:"last_op,omitempty"`
	Established time.Time     `json:"established,omitzero"`
	Timeout     time.Duration `json:"-"` // the negotiated session timeout
	LastCxid    int64         `json:"last_cxid,omitempty"`
	// LastResponse is when the member last answered the connection (a
	// ping included): cons's lresp, the AdminServer's last_response_time.
	// It is the member's monotonic clock in milliseconds
	// (System.nanoTime()/1e6 in ZooKeeper 3.8's ServerCnxn), meaningful
	// only against the same member's other readings; 0 before the first
	// answer.
	LastResponse int64 `json:"-"`
	LastZxid     int64 `json:"last_zxid,omitempty"`
	// Latencies are in milliseconds.
	LatencyLast int64 `json:"latency_last_ms,omitempty"`
	LatencyMin  int64 `json:"latency_min_ms,omitempty"`
	LatencyAvg  int64 `json:"latency_avg_ms,omitempty"`
	LatencyMax  int64 `json:"latency_max_ms,omitempty"`
}

// parseCons reads the answer to cons, one connection a line, as
// ServerCnxn.dumpConnectionInfo prints it:
//
//	/127.0.0.1:33950[1](queued=0,recved=6,sent=6,sid=0x1000061135d0000,lop=CREA,est=1795322807415,to=30000,lcxid=0x5,lzxid=0x7,lresp=6362276,llat=1,minlat=0,avglat=3,maxlat=7)
//	/127.0.0.1:34028[0](queued=0,recved=1,sent=0)
//
// The address is Java's InetSocketAddress: "/ip:port", or "host/ip:port".
func parseCons(text string) ([]Connection, error) {
	if strings.TrimSpace(text) == notServingText {
		return nil, errNotServing
	}
	conns := []Connection{}
	for _, line := range answerLines(text) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		c, err := parseConsLine(strings.TrimPrefix(line, " "))
		if err != nil {
			return nil, fmt.Errorf("cons: %q: %w", clipAnswer(line), err)
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func parseConsLine(line string) (Connection, error) {
	var c Connection
	open := strings.Index(line, "](")
	if open < 0 || !strings.HasSuffix(line, ")") {
		return c, fmt.Errorf("want addr[ops](fields)")
	}
	lb := strings.LastIndexByte(line[:open], '[')
	if lb < 0 {
		return c, fmt.Errorf("want addr[ops](fields)")
	}
	c.Client = javaSocketAddress(line[:lb])
	if c.Client == "" {
		return c, fmt.Errorf("no client address")
	}
	fields := line[open+2 : len(line)-1]
	for _, kv := range strings.Split(fields, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return c, fmt.Errorf("field %q is not key=value", clipAnswer(kv))
		}
		var err error
		switch k {
		case "queued":
			c.Queued, err = strconv.ParseInt(v, 10, 64)
		case "recved":
			c.Received, err = strconv.ParseInt(v, 10, 64)
		case "sent":
			c.Sent, err = strconv.ParseInt(v, 10, 64)
		case "sid":
			c.SessionID, err = parseHexLong(v)
		case "lop":
			c.LastOp = v
		case "est":
			var ms int64
			ms, err = strconv.ParseInt(v, 10, 64)
			c.Established = time.UnixMilli(ms)
		case "to":
			var ms int64
			ms, err = strconv.ParseInt(v, 10, 64)
			c.Timeout = time.Duration(ms) * time.Millisecond
		case "lcxid":
			c.LastCxid, err = parseHexLong(v)
		case "lzxid":
			c.LastZxid, err = parseHexLong(v)
		case "lresp":
			c.LastResponse, err = strconv.ParseInt(v, 10, 64)
		case "llat":
			c.LatencyLast, err = strconv.ParseInt(v, 10, 64)
		case "minlat":
			c.LatencyMin, err = strconv.ParseInt(v, 10, 64)
		case "avglat":
			c.LatencyAvg, err = strconv.ParseInt(v, 10, 64)
		case "maxlat":
			c.LatencyMax, err = strconv.ParseInt(v, 10, 64)
		}
		if err != nil {
			return c, fmt.Errorf("field %s: %w", k, err)
		}
	}
	if c.SessionID != 0 {
		c.Session = display.Hex(c.SessionID)
	}
	return c, nil
}

// javaSocketAddress turns Java's InetSocketAddress.toString ("/1.2.3.4:5",
// "host/1.2.3.4:5", "/[::1]:5") into "ip:port".
func javaSocketAddress(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
