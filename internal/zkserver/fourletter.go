package zkserver

import (
	"fmt"
	"math"
	"net"
	"os"
	"os/user"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Version is what srvr, stat, mntr and envi report: the ZooKeeper version
// whose behaviour the server follows, marked as ours.
const Version = "3.8.0-zkx-embedded, built on n/a"

// javaDate is the layout of Java's Date.toString, which dump prints.
const javaDate = "Mon Jan 02 15:04:05 MST 2006"

var fourLetterWords = map[string]bool{
	"ruok": true, "srvr": true, "stat": true, "mntr": true, "cons": true, "wchc": true, "wchp": true,
	"wchs": true, "dump": true, "envi": true, "conf": true, "isro": true, "crst": true, "srst": true,
	"dirs": true,
}

// fourLetterWord recognises a four-letter word in the first four bytes of a
// connection, where a packet length would otherwise be.
func fourLetterWord(head [4]byte) (string, bool) {
	cmd := string(head[:])
	return cmd, fourLetterWords[cmd]
}

// fourLetter answers a four-letter word and closes the connection.
func (c *conn) fourLetter(cmd string) {
	s := c.server
	s.pause.wait(c.done)
	var out string
	if !s.cfg.fourLetterAllowed(cmd) {
		out = cmd + " is not executed because it is not in the whitelist.\n"
	} else {
		out = s.fourLetterText(cmd, c)
	}
	c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	c.nc.Write([]byte(out))
	c.close()
}

func (s *Server) fourLetterText(cmd string, self *conn) string {
	var b strings.Builder
	switch cmd {
	case "ruok":
		b.WriteString("imok")
	case "isro":
		if s.cfg.ReadOnly {
			b.WriteString("ro")
		} else {
			b.WriteString("rw")
		}
	case "srvr", "stat":
		fmt.Fprintf(&b, "Zookeeper version: %s\n", Version)
		if cmd == "stat" {
			b.WriteString("Clients:\n")
			for _, c := range s.connsSorted() {
				b.WriteString(c.describe(true))
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
		st := s.stats.snapshot()
		fmt.Fprintf(&b, "Latency min/avg/max: %d/%s/%d\n", st.minLat, javaDouble(st.avgLat), st.maxLat)
		fmt.Fprintf(&b, "Received: %d\nSent: %d\n", st.received, st.sent)
		fmt.Fprintf(&b, "Connections: %d\nOutstanding: 0\n", len(s.connsSorted()))
		fmt.Fprintf(&b, "Zxid: 0x%x\nMode: standalone\n", s.lastZxid.Load())
		s.mu.Lock()
		fmt.Fprintf(&b, "Node count: %d\n", s.tree.nodeCount())
		s.mu.Unlock()
	case "mntr":
		s.writeMonitor(&b)
	case "cons":
		for _, c := range s.connsSorted() {
			b.WriteString(c.describe(false))
			b.WriteString("\n")
		}
		b.WriteString("\n")
	case "crst":
		for _, c := range s.connsSorted() {
			c.stats.resetLatency()
		}
		b.WriteString("Connection stats reset.\n")
	case "srst":
		s.stats.reset()
		b.WriteString("Server stats reset.\n")
	case "wchs":
		s.mu.Lock()
		conns, paths, total := s.watches.data.watchSummary()
		s.mu.Unlock()
		fmt.Fprintf(&b, "%d connections watching %d paths\nTotal watches:%d\n", conns, paths, total)
	case "wchc", "wchp":
		// ZooKeeper 3.8 lists only its data-watch table here (getData and
		// exists watches); child watches are counted by mntr alone.
		s.writeWatches(&b, cmd == "wchp")
	case "dump":
		s.writeDump(&b)
	case "envi":
		writeEnvironment(&b)
	case "conf":
		s.writeConf(&b)
	case "dirs":
		b.WriteString("datadir_size: 0\nlogdir_size: 0\n")
	}
	return b.String()
}

// javaDouble prints a double as Java does for ZooKeeper's latency averages:
// rounded to four places, and always with a decimal point.
func javaDouble(v float64) string {
	v = math.Round(v*10000) / 10000
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func (s *Server) connsSorted() []*conn {
	s.mu.Lock()
	out := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].established.Before(out[j].established) })
	return out
}

func (st *connStats) resetLatency() {
	st.minLat.Store(0)
	st.maxLat.Store(0)
	st.sumLat.Store(0)
	st.countLat.Store(0)
}

// describe prints a connection as ServerCnxn.dumpConnectionInfo does.
func (c *conn) describe(brief bool) string {
	interest := "1"
	if c.stats.fourLetter.Load() {
		interest = "0"
	}
	var b strings.Builder
	fmt.Fprintf(&b, " %s[%s](queued=%d,recved=%d,sent=%d", c.remote, interest, c.out.queued(),
		c.stats.received.Load(), c.stats.sent.Load())
	c.server.mu.Lock()
	sess := c.sess
	var timeout time.Duration
	if sess != nil {
		timeout = sess.timeout
	}
	c.server.mu.Unlock()
	if !brief && sess != nil {
		avg := int64(0)
		if n := c.stats.countLat.Load(); n > 0 {
			avg = c.stats.sumLat.Load() / n
		}
		lop, _ := c.stats.lastOp.Load().(string)
		if lop == "" {
			lop = "NA"
		}
		fmt.Fprintf(&b, ",sid=%s,lop=%s,est=%d,to=%d", hexID(sess.id), lop, c.established.UnixMilli(), timeout.Milliseconds())
		if cxid := c.stats.lastCxid.Load(); cxid >= 0 {
			fmt.Fprintf(&b, ",lcxid=0x%x", cxid)
		}
		fmt.Fprintf(&b, ",lzxid=0x%x,lresp=%d,llat=%d,minlat=%d,avglat=%d,maxlat=%d",
			uint64(c.stats.lastZxid.Load()), c.stats.lastResp.Load(), c.stats.lastLat.Load(),
			c.stats.minLat.Load(), avg, c.stats.maxLat.Load())
	}
	b.WriteString(")")
	return b.String()
}

func (s *Server) writeMonitor(b *strings.Builder) {
	st := s.stats.snapshot()
	conns := len(s.connsSorted())
	s.mu.Lock()
	ephemerals := 0
	for _, set := range s.tree.ephemerals {
		ephemerals += len(set)
	}
	_, _, dataWatches := s.watches.data.watchSummary()
	_, _, childWatches := s.watches.child.watchSummary()
	nodes, sessions, dataSize := s.tree.nodeCount(), len(s.sessions), s.tree.dataSize
	s.mu.Unlock()
	kv := func(k string, v any) { fmt.Fprintf(b, "zk_%s\t%v\n", k, v) }
	kv("version", Version)
	kv("server_state", "standalone")
	kv("ephemerals_count", ephemerals)
	kv("num_alive_connections", conns)
	kv("avg_latency", javaDouble(st.avgLat))
	kv("outstanding_requests", 0)
	kv("znode_count", nodes)
	kv("global_sessions", sessions)
	kv("local_sessions", 0)
	kv("packets_sent", st.sent)
	kv("packets_received", st.received)
	kv("watch_count", dataWatches+childWatches)
	kv("min_latency", st.minLat)
	kv("max_latency", st.maxLat)
	kv("approximate_data_size", dataSize)
	kv("uptime", time.Since(s.started).Milliseconds())
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		kv("open_file_descriptor_count", len(fds))
	}
}

func (s *Server) writeWatches(b *strings.Builder, byPath bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.watches.data
	if byPath {
		for _, path := range sortedKeys(t.byPath) {
			b.WriteString(path + "\n")
			var ids []int64
			for c := range t.byPath[path] {
				ids = append(ids, c.sessionIDLocked())
			}
			for _, id := range sortedIDs(ids) {
				b.WriteString("\t" + hexID(id) + "\n")
			}
		}
	} else {
		conns := make([]*conn, 0, len(t.byConn))
		for c := range t.byConn {
			conns = append(conns, c)
		}
		sort.Slice(conns, func(i, j int) bool { return conns[i].sessionIDLocked() < conns[j].sessionIDLocked() })
		for _, c := range conns {
			b.WriteString(hexID(c.sessionIDLocked()) + "\n")
			for _, path := range sortedKeys(t.byConn[c]) {
				b.WriteString("\t" + path + "\n")
			}
		}
	}
	b.WriteString("\n")
}

func (c *conn) sessionIDLocked() int64 {
	if c.sess == nil {
		return 0
	}
	return c.sess.id
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedIDs(ids []int64) []int64 {
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// writeDump prints sessions by expiry bucket, ephemerals by session and
// connections, in the layout of ZooKeeper's dump.
func (s *Server) writeDump(b *strings.Builder) {
	conns := s.connsSorted()
	s.mu.Lock()
	defer s.mu.Unlock()
	tick := s.cfg.TickTime
	buckets := map[int64][]int64{}
	for id, sess := range s.sessions {
		if s.cfg.ReadOnly {
			// The past's sessions have no expiry to tell and its viewers'
			// are not the past's: the sessions show by their ephemerals.
			break
		}
		deadline := time.Unix(0, sess.lastSeen.Load()).Add(sess.timeout)
		at := (deadline.UnixMilli()/tick.Milliseconds() + 1) * tick.Milliseconds()
		buckets[at] = append(buckets[at], id)
	}
	times := make([]int64, 0, len(buckets))
	for at := range buckets {
		times = append(times, at)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.WriteString("SessionTracker dump:\n")
	fmt.Fprintf(b, "Session Sets (%d)/(%d):\n", len(buckets), len(s.sessions))
	for _, at := range times {
		ids := sortedIDs(buckets[at])
		fmt.Fprintf(b, "%d expire at %s:\n", len(ids), time.UnixMilli(at).Format(javaDate))
		for _, id := range ids {
			b.WriteString("\t" + hexID(id) + "\n")
		}
	}
	b.WriteString("ephemeral nodes dump:\n")
	fmt.Fprintf(b, "Sessions with Ephemerals (%d):\n", len(s.tree.ephemerals))
	var owners []int64
	for id := range s.tree.ephemerals {
		owners = append(owners, id)
	}
	for _, id := range sortedIDs(owners) {
		b.WriteString(hexID(id) + ":\n")
		for _, p := range sortedKeys(s.tree.ephemerals[id]) {
			b.WriteString("\t" + p + "\n")
		}
	}
	if s.cfg.ReadOnly {
		conns = nil // the connections of the past are not on disk
	}
	b.WriteString("Connections dump:\n")
	fmt.Fprintf(b, "Connections Sets (1)/(%d):\n", len(conns))
	fmt.Fprintf(b, "%d expire at %s:\n", len(conns), time.Now().Add(s.cfg.MaxSessionTimeout).Format(javaDate))
	for _, c := range conns {
		fmt.Fprintf(b, "\tip: %s sessionId: %s\n", c.remote, hexID(c.sessionIDLocked()))
	}
}

func writeEnvironment(b *strings.Builder) {
	host, _ := os.Hostname()
	dir, _ := os.Getwd()
	name, home := "", ""
	if u, err := user.Current(); err == nil {
		name, home = u.Username, u.HomeDir
	}
	b.WriteString("Environment:\n")
	for _, kv := range [][2]string{
		{"zookeeper.version", Version}, {"host.name", host}, {"go.version", runtime.Version()},
		{"os.name", runtime.GOOS}, {"os.arch", runtime.GOARCH}, {"user.name", name},
		{"user.home", home}, {"user.dir", dir},
	} {
		b.WriteString(kv[0] + "=" + kv[1] + "\n")
	}
}

func (s *Server) writeConf(b *strings.Builder) {
	port := 0
	if tcp, ok := s.Addr().(*net.TCPAddr); ok {
		port = tcp.Port
	}
	fmt.Fprintf(b, "clientPort=%d\nsecureClientPort=-1\n", port)
	b.WriteString("dataDir=(in memory)\ndataDirSize=0\ndataLogDir=(in memory)\ndataLogSize=0\n")
	fmt.Fprintf(b, "tickTime=%d\nmaxClientCnxns=%d\n", s.cfg.TickTime.Milliseconds(), s.cfg.MaxClientCnxns)
	fmt.Fprintf(b, "minSessionTimeout=%d\nmaxSessionTimeout=%d\n",
		s.cfg.MinSessionTimeout.Milliseconds(), s.cfg.MaxSessionTimeout.Milliseconds())
	b.WriteString("clientPortListenBacklog=-1\nserverId=0\n")
}
