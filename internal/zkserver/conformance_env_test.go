package zkserver_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/wireclient"
)

// The conformance suite runs each case against the embedded server and a
// real ZooKeeper and requires both to produce the case's golden transcript,
// which was recorded from real ZooKeeper 3.8 with -update.
//
// A transcript is what a client observed, normalised so that only what
// must agree remains: the case's base path reads $B, session ids read as the
// names of the clients that own them, and zxids read z1, z2, … in ascending
// order (so "this node's pzxid is that node's czxid" survives, while the
// absolute values, which depend on what ran before, do not). Times are left
// out: they are checked for sanity, not equality.
var update = flag.Bool("update", false, "rewrite conformance goldens from the real ZooKeeper run")

const conformanceTimeout = 10 * time.Second

type conformanceCase struct {
	name string
	run  func(e *env)
}

// env is what a case works with: its own base path, named clients, and the
// transcript being recorded.
type env struct {
	test     *testing.T
	addr     string
	base     string
	clients  map[string]*wireclient.Conn
	sessions map[int64]string
	lines    []string
	start    time.Time
}

func newEnv(t *testing.T, addr, base string) *env {
	return &env{test: t, addr: addr, base: base, clients: map[string]*wireclient.Conn{}, sessions: map[int64]string{}, start: time.Now()}
}

// client returns the named client, dialing it on first use.
func (e *env) client(name string) *wireclient.Conn {
	if c := e.clients[name]; c != nil {
		return c
	}
	c, err := wireclient.Dial(e.addr, conformanceTimeout)
	if err != nil {
		e.test.Fatalf("dial %s: %v", name, err)
	}
	e.test.Cleanup(func() { c.Close() })
	e.clients[name] = c
	e.sessions[c.SessionID] = name
	return c
}

// adopt names a connection the case made itself (a re-attach).
func (e *env) adopt(name string, c *wireclient.Conn) {
	e.test.Cleanup(func() { c.Close() })
	e.clients[name] = c
	if c.SessionID != 0 {
		if _, known := e.sessions[c.SessionID]; !known {
			e.sessions[c.SessionID] = name
		}
	}
}

func (e *env) logf(format string, args ...any) {
	e.lines = append(e.lines, fmt.Sprintf(format, args...))
}

// P makes an absolute path under the case's base.
func (e *env) P(rel string) string {
	if rel == "" {
		return e.base
	}
	return e.base + "/" + rel
}

// do sends one request from a client and records the outcome.
func (e *env) do(label, client string, op jute.Op, req jute.Record) (jute.ReplyHeader, jute.Record) {
	c := e.client(client)
	resp := responseFor(op)
	h, err := c.Call(op, req, resp)
	if err != nil {
		e.logf("%s: %s → transport error", client, label)
		return h, nil
	}
	e.record(client, label, op, h, resp)
	return h, resp
}

func (e *env) record(client, label string, op jute.Op, h jute.ReplyHeader, resp jute.Record) {
	line := fmt.Sprintf("%s: %s → %s", client, e.path(label), h.Err.String())
	if isWrite(op) {
		line += " @" + e.zxid(h.Zxid)
	}
	if h.Err == jute.ErrOK && resp != nil {
		line += " " + e.describe(resp)
	}
	e.lines = append(e.lines, line)
}

// must is do for steps whose success the case relies on.
func (e *env) must(label, client string, op jute.Op, req jute.Record) jute.Record {
	h, resp := e.do(label, client, op, req)
	if h.Err != jute.ErrOK {
		e.test.Fatalf("%s: %s failed: %s", client, label, h.Err.String())
	}
	return resp
}

// events waits (with a deadline) for n notifications to a client and
// records every notification queued by then.
func (e *env) events(client string, n int) {
	got := e.client(client).WaitEvents(n, conformanceTimeout)
	e.recordEvents(client, got)
}

// eventsAnyOrder is events for steps whose notifications ZooKeeper sends in
// a hash set's order, such as the deletes of a closed session's ephemerals.
func (e *env) eventsAnyOrder(client string, n int) {
	got := e.client(client).WaitEvents(n, conformanceTimeout)
	sort.Slice(got, func(i, j int) bool {
		if got[i].Path != got[j].Path {
			return got[i].Path < got[j].Path
		}
		return got[i].Type < got[j].Type
	})
	e.recordEvents(client, got)
}

// quiet proves a client has no pending notifications: a round trip on the
// same connection returns after every event a finished write caused, since
// the server queues notifications before later replies.
func (e *env) quiet(client string) {
	c := e.client(client)
	if _, err := c.Call(jute.OpSync, &jute.PathRequest{Path: "/"}, nil); err != nil {
		e.logf("%s: sync → transport error", client)
	}
	e.recordEvents(client, c.Events())
}

func (e *env) recordEvents(client string, evs []jute.WatcherEvent) {
	if len(evs) == 0 {
		e.logf("%s: no events", client)
	}
	for _, ev := range evs {
		e.logf("%s: event %s %s (state %d)", client, eventName(ev.Type), e.path(ev.Path), ev.State)
	}
}

var eventNames = map[jute.EventType]string{
	jute.EventNone: "None", jute.EventNodeCreated: "NodeCreated", jute.EventNodeDeleted: "NodeDeleted",
	jute.EventNodeDataChanged: "NodeDataChanged", jute.EventNodeChildrenChanged: "NodeChildrenChanged",
	jute.EventDataWatchRemoved: "DataWatchRemoved", jute.EventChildWatchRemoved: "ChildWatchRemoved",
	jute.EventPersistentWatchRemoved: "PersistentWatchRemoved",
}

func eventName(t jute.EventType) string {
	if n, ok := eventNames[t]; ok {
		return n
	}
	return strconv.Itoa(int(t))
}

func isWrite(op jute.Op) bool {
	switch op {
	case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL, jute.OpDelete,
		jute.OpSetData, jute.OpSetACL, jute.OpMulti, jute.OpCheck:
		return true
	}
	return false
}

func responseFor(op jute.Op) jute.Record {
	switch op {
	case jute.OpCreate, jute.OpSync:
		return &jute.PathResponse{}
	case jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL:
		return &jute.Create2Response{}
	case jute.OpExists, jute.OpSetData, jute.OpSetACL:
		return &jute.StatResponse{}
	case jute.OpGetData:
		return &jute.GetDataResponse{}
	case jute.OpGetChildren, jute.OpGetEphemerals:
		return &jute.StringsResponse{}
	case jute.OpGetChildren2:
		return &jute.GetChildren2Response{}
	case jute.OpGetACL:
		return &jute.GetACLResponse{}
	case jute.OpGetAllChildrenNumber, jute.OpAddWatch:
		return &jute.IntResponse{}
	case jute.OpMulti, jute.OpMultiRead:
		return &jute.MultiResponse{}
	case jute.OpWhoAmI:
		return &jute.WhoAmIResponse{}
	}
	return nil
}

// zxid writes a zxid as a marker that finish ranks.
func (e *env) zxid(z int64) string { return fmt.Sprintf("\x00%d\x00", z) }

func (e *env) session(id int64) string {
	if id == 0 {
		return "-"
	}
	if name, ok := e.sessions[id]; ok {
		return name
	}
	return "other-session"
}

func (e *env) path(p string) string { return strings.ReplaceAll(p, e.base, "$B") }

func (e *env) stat(s jute.Stat) string {
	e.checkTime(s.Ctime)
	e.checkTime(s.Mtime)
	return fmt.Sprintf("{czxid=%s mzxid=%s pzxid=%s version=%d cversion=%d aversion=%d owner=%s dataLength=%d numChildren=%d}",
		e.zxid(s.Czxid), e.zxid(s.Mzxid), e.zxid(s.Pzxid), s.Version, s.Cversion, s.Aversion,
		e.session(s.EphemeralOwner), s.DataLength, s.NumChildren)
}

// checkTime fails a case whose node times are not plausible: the epoch for
// the initial nodes, else within the case's run.
func (e *env) checkTime(ms int64) {
	if ms == 0 {
		return
	}
	t := time.UnixMilli(ms)
	if t.Before(e.start.Add(-time.Hour)) || t.After(time.Now().Add(time.Minute)) {
		e.test.Errorf("implausible node time %v (case started %v)", t, e.start)
	}
}

func (e *env) names(list []string) string {
	sorted := append([]string{}, list...)
	for i := range sorted {
		sorted[i] = e.path(sorted[i])
	}
	sort.Strings(sorted) // ZooKeeper's order is a hash set's: not part of the contract
	return "[" + strings.Join(sorted, " ") + "]"
}

func (e *env) acl(acl []jute.ACL) string {
	parts := make([]string, len(acl))
	for i, a := range acl {
		parts[i] = fmt.Sprintf("%s:%s:%d", a.ID.Scheme, a.ID.ID, a.Perms)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func (e *env) describe(r jute.Record) string {
	switch r := r.(type) {
	case *jute.PathResponse:
		return e.path(r.Path)
	case *jute.Create2Response:
		return e.path(r.Path) + " " + e.stat(r.Stat)
	case *jute.StatResponse:
		return e.stat(r.Stat)
	case *jute.GetDataResponse:
		if r.Data == nil {
			return "null " + e.stat(r.Stat) // ZooKeeper keeps null apart from empty
		}
		return fmt.Sprintf("%q %s", r.Data, e.stat(r.Stat))
	case *jute.StringsResponse:
		return e.names(r.Strings)
	case *jute.GetChildren2Response:
		return e.names(r.Children) + " " + e.stat(r.Stat)
	case *jute.GetACLResponse:
		return e.acl(r.ACL) + " " + e.stat(r.Stat)
	case *jute.IntResponse:
		return strconv.Itoa(int(r.Value))
	case *jute.WhoAmIResponse:
		parts := make([]string, len(r.ClientInfo))
		for i, ci := range r.ClientInfo {
			parts[i] = ci.AuthScheme + ":" + ci.User
		}
		sort.Strings(parts) // a hash set's order in ZooKeeper
		return "[" + strings.Join(parts, " ") + "]"
	case *jute.MultiResponse:
		parts := make([]string, len(r.Results))
		for i, res := range r.Results {
			switch {
			case res.Type == jute.OpError:
				parts[i] = "error(" + res.Err.String() + ")"
			case res.Rec == nil:
				parts[i] = "op" + strconv.Itoa(int(res.Type))
			default:
				parts[i] = "op" + strconv.Itoa(int(res.Type)) + " " + e.describe(res.Rec)
			}
		}
		return "[" + strings.Join(parts, "; ") + "]"
	}
	return fmt.Sprintf("%T", r)
}

var zxidMarker = regexp.MustCompile("\x00(-?[0-9]+)\x00")

// finish ranks the zxids of the transcript and returns it as text.
func (e *env) finish() string {
	text := strings.Join(e.lines, "\n") + "\n"
	seen := map[int64]bool{}
	for _, m := range zxidMarker.FindAllStringSubmatch(text, -1) {
		z, _ := strconv.ParseInt(m[1], 10, 64)
		seen[z] = true
	}
	order := make([]int64, 0, len(seen))
	for z := range seen {
		order = append(order, z)
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	rank := map[int64]string{}
	for i, z := range order {
		switch {
		case z == 0:
			rank[z] = "0"
		case z == -1:
			rank[z] = "-1"
		default:
			rank[z] = "z" + strconv.Itoa(i+1)
		}
	}
	return zxidMarker.ReplaceAllStringFunc(text, func(m string) string {
		z, _ := strconv.ParseInt(m[1:len(m)-1], 10, 64)
		return rank[z]
	})
}

func goldenPath(name string) string {
	return filepath.Join("testdata", "conformance", name+".golden")
}

// compareGolden checks a transcript against the case's golden. With
// -update the real server's transcript becomes the golden.
func compareGolden(t *testing.T, name, server, got string) {
	t.Helper()
	path := goldenPath(name)
	if *update && server != "real" {
		return // goldens come from real ZooKeeper; compare on the next run
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no golden for %s (record it from real ZooKeeper with -update): %v\ntranscript:\n%s", name, err, got)
	}
	if string(want) != got {
		t.Errorf("%s server differs from real ZooKeeper's golden %s\n%s", server, path, lineDiff(string(want), got))
	}
}

// lineDiff shows the lines that differ, side by side with their numbers.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d\n  want: %s\n  got:  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
