package zkserver_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/wireclient"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func sessionCases() []conformanceCase {
	return []conformanceCase{
		{"session_close_deletes_ephemerals", func(e *env) {
			e.mkBase("a")
			e.must("create e", "eph", jute.OpCreate, create(e.P("e"), "x", jute.ModeEphemeral))
			e.must("create s-", "eph", jute.OpCreate, create(e.P("s-"), "x", jute.ModeEphemeralSequential))
			e.do("watch e", "w", jute.OpExists, watchReq(e.P("e"), true))
			e.do("watch base", "w", jute.OpGetChildren, watchReq(e.base, true))
			e.do("closeSession", "eph", jute.OpCloseSession, nil)
			e.eventsAnyOrder("w", 2)
			e.do("base after", "a", jute.OpGetChildren2, watchReq(e.base, false))
		}},
		{"session_expiry", func(e *env) {
			e.mkBase("a")
			c, err := wireclient.Dial(e.addr, 200*time.Millisecond)
			if err != nil {
				e.test.Fatal(err)
			}
			e.adopt("short", c)
			e.logf("short: negotiated timeout %v", c.Timeout)
			e.must("create e", "short", jute.OpCreate, create(e.P("e"), "x", jute.ModeEphemeral))
			e.do("watch e", "w", jute.OpExists, watchReq(e.P("e"), true))
			c.Drop() // no pings, no closeSession: the server must expire it
			e.events("w", 1)
			again, err := reattachExpired(e.addr, c.SessionID, c.Passwd)
			if err != nil {
				e.test.Fatal(err)
			}
			e.logf("short: re-attach after expiry: session %s, timeout %v", e.session(again.SessionID), again.Timeout)
		}},
		{"session_reattach", func(e *env) {
			e.mkBase("a")
			c := e.client("r")
			e.must("create e", "r", jute.OpCreate, create(e.P("e"), "x", jute.ModeEphemeral))
			c.Drop()
			wrong, err := wireclient.Reattach(e.addr, conformanceTimeout, c.SessionID, bytes.Repeat([]byte{7}, 16))
			if err != nil {
				e.test.Fatal(err)
			}
			e.logf("r: re-attach with a wrong password: session %s", e.session(wrong.SessionID))
			back, err := wireclient.Reattach(e.addr, conformanceTimeout, c.SessionID, c.Passwd)
			if err != nil {
				e.test.Fatal(err)
			}
			e.adopt("r2", back)
			e.logf("r: re-attach with the password: session %s", e.session(back.SessionID))
			e.do("ephemeral survived", "r2", jute.OpExists, watchReq(e.P("e"), false))
			e.do("getEphemerals", "r2", jute.OpGetEphemerals, pathReq("/"))
		}},
		{"session_takeover_closes_live_connection", func(e *env) {
			live := e.client("live")
			e.do("exists /zookeeper", "live", jute.OpExists, watchReq("/zookeeper", false))
			thief, err := wireclient.Reattach(e.addr, conformanceTimeout, live.SessionID, bytes.Repeat([]byte{9}, 16))
			if err != nil {
				e.test.Fatal(err)
			}
			e.logf("thief: wrong password → session %s", e.session(thief.SessionID))
			e.logf("live: connection closed by the attempt: %v", waitClosed(live))
			back, err := wireclient.Reattach(e.addr, conformanceTimeout, live.SessionID, live.Passwd)
			if err != nil {
				e.test.Fatal(err)
			}
			e.adopt("back", back)
			e.logf("back: re-attach with the password → session %s", e.session(back.SessionID))
		}},
		{"session_set_watches", func(e *env) {
			e.mkBase("a")
			for _, p := range []string{"data", "same", "kids", "gone"} {
				e.must("create "+p, "a", jute.OpCreate, create(e.P(p), "0", jute.ModePersistent))
			}
			c := e.client("w")
			var last jute.ReplyHeader
			for _, r := range []struct {
				label string
				op    jute.Op
				path  string
			}{{"watch data", jute.OpGetData, "data"}, {"watch same", jute.OpGetData, "same"},
				{"watch kids", jute.OpGetChildren, "kids"}, {"watch gone", jute.OpGetData, "gone"},
				{"watch missing", jute.OpExists, "missing"}, {"watch still-missing", jute.OpExists, "still-missing"}} {
				last, _ = e.do(r.label, "w", r.op, watchReq(e.P(r.path), true))
			}
			c.Drop()
			e.do("set data", "a", jute.OpSetData, setData(e.P("data"), "1", -1))
			e.do("create kids/k", "a", jute.OpCreate, create(e.P("kids/k"), "", jute.ModePersistent))
			e.do("delete gone", "a", jute.OpDelete, pathInt(e.P("gone"), -1))
			e.do("create missing", "a", jute.OpCreate, create(e.P("missing"), "", jute.ModePersistent))
			back, err := wireclient.Reattach(e.addr, conformanceTimeout, c.SessionID, c.Passwd)
			if err != nil {
				e.test.Fatal(err)
			}
			e.adopt("w2", back)
			h, err := back.CallXid(jute.XidSetWatches, jute.OpSetWatches, &jute.SetWatches{
				RelativeZxid: last.Zxid,
				DataWatches:  []string{e.P("data"), e.P("same"), e.P("gone")},
				ExistWatches: []string{e.P("missing"), e.P("still-missing")},
				ChildWatches: []string{e.P("kids")},
			}, nil)
			if err != nil {
				e.test.Fatal(err)
			}
			e.logf("w2: setWatches → xid %d %s", h.Xid, h.Err.String())
			e.events("w2", 4)
			e.do("set same", "a", jute.OpSetData, setData(e.P("same"), "1", -1))
			e.do("create still-missing", "a", jute.OpCreate, create(e.P("still-missing"), "", jute.ModePersistent))
			e.events("w2", 2)
			h, err = back.CallXid(jute.XidSetWatches, jute.OpSetWatches2, &jute.SetWatches{
				HasPersistent: true, RelativeZxid: last.Zxid,
				PersistentWatches: []string{e.P("same")}, PersistentRecursiveWatches: []string{e.P("kids")},
			}, nil)
			if err != nil {
				e.test.Fatal(err)
			}
			e.logf("w2: setWatches2 → %s", h.Err.String())
			e.do("set same again", "a", jute.OpSetData, setData(e.P("same"), "2", -1))
			e.do("set kids/k", "a", jute.OpSetData, setData(e.P("kids/k"), "2", -1))
			e.events("w2", 2)
			e.quiet("w2")
		}},
		{"session_timeout_negotiation", func(e *env) {
			for _, ask := range []time.Duration{time.Millisecond, 5 * time.Second, 10 * time.Minute} {
				c, err := wireclient.Dial(e.addr, ask)
				if err != nil {
					e.test.Fatal(err)
				}
				e.logf("asked %v, granted %v", ask, c.Timeout)
				c.Close()
			}
		}},
		{"protocol_edges", func(e *env) {
			c := e.client("p")
			f, err := c.CallRaw(jute.XidPing, jute.OpPing, nil)
			e.logf("p: ping → xid %d err %s (%v)", f.Header.Xid, f.Header.Err.String(), err)
			h, err := c.Call(999, nil, nil)
			e.logf("p: op 999 → %s (%v)", h.Err.String(), err)
			e.logf("p: connection closed after unknown op: %v", waitClosed(c))
			a := e.client("auth")
			h, err = a.CallXid(jute.XidAuth, jute.OpAuth, &jute.AuthPacket{Scheme: "nosuch", Auth: []byte("x")}, nil)
			e.logf("auth: addauth nosuch → %s (%v)", h.Err.String(), err)
			e.logf("auth: connection closed after failed auth: %v", waitClosed(a))
			i := e.client("ip")
			h, err = i.CallXid(jute.XidAuth, jute.OpAuth, &jute.AuthPacket{Scheme: "ip", Auth: []byte("x")}, nil)
			e.logf("ip: addauth ip → %s (%v)", h.Err.String(), err)
			e.do("whoami", "ip", jute.OpWhoAmI, nil)
		}},
		{"packet_size_limit", func(e *env) {
			e.mkBase("a")
			e.do("create big", "a", jute.OpCreate, create(e.P("big"), strings.Repeat("b", 1000000), jute.ModePersistent))
			e.do("exists big", "a", jute.OpExists, watchReq(e.P("big"), false))
			big := e.client("big")
			_, err := big.Call(jute.OpSetData, setData(e.P("big"), strings.Repeat("c", 1<<20), -1), nil)
			e.logf("big: 1 MiB setData → transport error: %v, closed: %v", err != nil, waitClosed(big))
			e.do("big unchanged", "a", jute.OpExists, watchReq(e.P("big"), false))
		}},
	}
}

// waitClosed reports whether the server closes the connection within the
// conformance deadline.
func waitClosed(c *wireclient.Conn) bool {
	select {
	case <-c.Done():
		return true
	case <-time.After(conformanceTimeout):
		return false
	}
}

func miscCases() []conformanceCase {
	return []conformanceCase{
		{"container_reaped", func(e *env) {
			e.mkBase("a")
			e.must("container", "a", jute.OpCreateContainer, create(e.P("c"), "", jute.ModeContainer))
			e.must("child", "a", jute.OpCreate, create(e.P("c/x"), "", jute.ModeEphemeral))
			e.do("watch container", "w", jute.OpExists, watchReq(e.P("c"), true))
			e.do("watch base", "w", jute.OpGetChildren, watchReq(e.base, true))
			e.do("delete child", "a", jute.OpDelete, pathInt(e.P("c/x"), -1))
			e.events("w", 2)
			e.do("container gone", "a", jute.OpExists, watchReq(e.P("c"), false))
		}},
		{"ttl_expires", func(e *env) {
			e.mkBase("a")
			e.must("ttl node", "a", jute.OpCreateTTL, createTTL(e.P("t"), jute.ModePersistentWithTTL, 300))
			e.do("watch ttl node", "w", jute.OpExists, watchReq(e.P("t"), true))
			e.events("w", 1)
			e.do("ttl node gone", "a", jute.OpExists, watchReq(e.P("t"), false))
		}},
		{"four_letter_words", func(e *env) {
			e.mkBase("a")
			e.must("create n", "a", jute.OpCreate, create(e.P("n"), "", jute.ModePersistent))
			e.must("create e", "a", jute.OpCreate, create(e.P("e"), "", jute.ModeEphemeral))
			e.do("data watch", "w", jute.OpGetData, watchReq(e.P("n"), true))
			e.do("exist watch", "w", jute.OpExists, watchReq(e.P("none"), true))
			e.do("child watch", "w", jute.OpGetChildren, watchReq(e.P("n"), true))
			for _, cmd := range []string{"ruok", "isro"} {
				e.logf("%s → %q", cmd, fourLetter(e, cmd))
			}
			e.logf("srvr keys: %s", keysOf(fourLetter(e, "srvr"), ": "))
			e.logf("srvr mode: %s", lineWith(fourLetter(e, "srvr"), "Mode: "))
			e.logf("stat has Clients: %v", strings.Contains(fourLetter(e, "stat"), "Clients:\n"))
			e.logf("mntr state: %s", lineWith(fourLetter(e, "mntr"), "zk_server_state\t"))
			mntr := fourLetter(e, "mntr")
			for _, k := range []string{"zk_version", "zk_znode_count", "zk_watch_count", "zk_ephemerals_count", "zk_num_alive_connections", "zk_global_sessions", "zk_approximate_data_size"} {
				e.logf("mntr has %s: %v", k, strings.Contains(mntr, k+"\t"))
			}
			e.logf("cons w: %s", consLine(e, fourLetter(e, "cons"), "w"))
			e.logf("wchc w: %s", wchcFor(e, fourLetter(e, "wchc"), "w"))
			e.logf("wchp base: %s", wchpFor(e, fourLetter(e, "wchp")))
			e.logf("dump ephemerals of a: %s", dumpEphemerals(e, fourLetter(e, "dump"), "a"))
			e.logf("envi starts: %q", strings.SplitN(fourLetter(e, "envi"), "\n", 2)[0])
			e.logf("conf keys: %s", keysOf(fourLetter(e, "conf"), "="))
		}},
	}
}

func fourLetter(e *env, cmd string) string {
	out, err := zktest.FourLetter(e.addr, cmd, conformanceTimeout)
	if err != nil {
		e.test.Fatalf("%s: %v", cmd, err)
	}
	return out
}

// keysOf lists the keys of "key<sep>value" lines, in order.
func keysOf(text, sep string) string {
	var keys []string
	for _, line := range strings.Split(text, "\n") {
		if k, _, ok := strings.Cut(line, sep); ok {
			keys = append(keys, k)
		}
	}
	return strings.Join(keys, ",")
}

func lineWith(text, prefix string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return "(none)"
}

var consFields = regexp.MustCompile(`^ /127\.0\.0\.1:\d+\[(\d)\]\(queued=\d+,recved=\d+,sent=\d+,sid=(0x[0-9a-f]+),lop=([A-Z]+),est=\d+,to=(\d+),lcxid=0x[0-9a-f]+,lzxid=0x[0-9a-f]+,lresp=\d+,llat=\d+,minlat=\d+,avglat=\d+,maxlat=\d+\)$`)

// consLine finds the client's connection in cons and keeps its stable fields.
func consLine(e *env, cons, client string) string {
	sid := fmt.Sprintf("0x%x", e.client(client).SessionID)
	for _, line := range strings.Split(cons, "\n") {
		m := consFields.FindStringSubmatch(line)
		if m != nil && m[2] == sid {
			return fmt.Sprintf("interest=%s lop=%s to=%s", m[1], m[3], m[4])
		}
	}
	return "(not found)"
}

// wchcFor lists the paths wchc shows for one client's session.
func wchcFor(e *env, wchc, client string) string {
	sid := fmt.Sprintf("0x%x", e.client(client).SessionID)
	var paths []string
	in := false
	for _, line := range strings.Split(wchc, "\n") {
		switch {
		case strings.HasPrefix(line, "0x"):
			in = line == sid
		case in && strings.HasPrefix(line, "\t"):
			paths = append(paths, e.path(strings.TrimPrefix(line, "\t")))
		}
	}
	sort.Strings(paths)
	return strings.Join(paths, ",")
}

// wchpFor lists wchp's paths under the case's base with their watchers.
func wchpFor(e *env, wchp string) string {
	var out []string
	path := ""
	for _, line := range strings.Split(wchp, "\n") {
		switch {
		case strings.HasPrefix(line, "/"):
			path = line
		case strings.HasPrefix(line, "\t0x") && strings.HasPrefix(path, e.base):
			var id int64
			fmt.Sscanf(strings.TrimPrefix(line, "\t"), "0x%x", &id)
			out = append(out, e.path(path)+"="+e.session(id))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func dumpEphemerals(e *env, dump, client string) string {
	sid := fmt.Sprintf("0x%x:", e.client(client).SessionID)
	var paths []string
	in := false
	for _, line := range strings.Split(dump, "\n") {
		switch {
		case strings.HasPrefix(line, "0x"):
			in = line == sid
		case in && strings.HasPrefix(line, "\t"):
			paths = append(paths, e.path(strings.TrimPrefix(line, "\t")))
		default:
			in = false
		}
	}
	return strings.Join(paths, ",")
}

// reattachExpired re-attaches to a session the server expired. Real
// ZooKeeper sends the expiry's watch events when it applies the session's
// close and only then (FinalRequestProcessor) closes every connection
// registered under the session's id: a re-attach arriving in between has
// registered under that id already and is closed without an answer. Such
// a connection is tried again, until conformanceTimeout.
func reattachExpired(addr string, session int64, passwd []byte) (*wireclient.Conn, error) {
	deadline := time.Now().Add(conformanceTimeout)
	for {
		c, err := wireclient.Reattach(addr, 200*time.Millisecond, session, passwd)
		closedUnanswered := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
		if !closedUnanswered || time.Now().After(deadline) {
			return c, err
		}
	}
}
