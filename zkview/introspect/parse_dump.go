package introspect

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
)

// WatchTable is a member's data-watch table: the watches left by getData
// and exists (and persistent watches). ZooKeeper 3.8 lists no child
// watches (getChildren) in wchc, wchp or the AdminServer's watches
// commands, so a session that only watches a node's children does not
// appear here; mntr's watch_count counts both kinds.
type WatchTable struct {
	// BySession maps a session id to the server paths it watches.
	BySession map[int64][]string
	// ByPath maps a server path to the sessions watching it.
	ByPath map[string][]int64
}

// MarshalJSON writes session ids as 0x… hex.
func (w WatchTable) MarshalJSON() ([]byte, error) {
	bySession := map[string][]string{}
	for id, paths := range w.BySession {
		bySession[display.Hex(id)] = paths
	}
	byPath := map[string][]string{}
	for path, ids := range w.ByPath {
		for _, id := range ids {
			byPath[path] = append(byPath[path], display.Hex(id))
		}
	}
	return json.Marshal(struct {
		BySession map[string][]string `json:"by_session"`
		ByPath    map[string][]string `json:"by_path"`
	}{bySession, byPath})
}

// newWatchTable builds the table from wchc's view, wchp's, or both (nil
// for a missing one): each is the other inverted.
func newWatchTable(bySession map[int64][]string, byPath map[string][]int64) *WatchTable {
	if bySession == nil && byPath == nil {
		return nil
	}
	if bySession == nil {
		bySession = map[int64][]string{}
		for path, ids := range byPath {
			for _, id := range ids {
				bySession[id] = append(bySession[id], path)
			}
		}
	}
	if byPath == nil {
		byPath = map[string][]int64{}
		for id, paths := range bySession {
			for _, p := range paths {
				byPath[p] = append(byPath[p], id)
			}
		}
	}
	for _, paths := range bySession {
		sort.Strings(paths)
	}
	for _, ids := range byPath {
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	}
	return &WatchTable{BySession: bySession, ByPath: byPath}
}

// parseWchc reads wchc: a "0x<session>" line, then its paths, each after
// a tab.
func parseWchc(text string) (map[int64][]string, error) {
	if strings.TrimSpace(text) == notServingText {
		return nil, errNotServing
	}
	out := map[int64][]string{}
	var cur int64
	have := false
	for _, line := range answerLines(text) {
		switch {
		case line == "":
		case strings.HasPrefix(line, "\t"):
			if !have {
				return nil, fmt.Errorf("wchc: path %q before any session", clipAnswer(line))
			}
			out[cur] = append(out[cur], line[1:])
		default:
			id, err := parseHexLong(line)
			if err != nil {
				return nil, fmt.Errorf("wchc: %w", err)
			}
			cur, have = id, true
			if _, ok := out[id]; !ok {
				out[id] = []string{}
			}
		}
	}
	return out, nil
}

// parseWchp reads wchp: a path line, then its sessions, each "\t0x…".
func parseWchp(text string) (map[string][]int64, error) {
	if strings.TrimSpace(text) == notServingText {
		return nil, errNotServing
	}
	out := map[string][]int64{}
	cur := ""
	for _, line := range answerLines(text) {
		switch {
		case line == "":
		case strings.HasPrefix(line, "\t"):
			if cur == "" {
				return nil, fmt.Errorf("wchp: session %q before any path", clipAnswer(line))
			}
			id, err := parseHexLong(line[1:])
			if err != nil {
				return nil, fmt.Errorf("wchp: %w", err)
			}
			out[cur] = append(out[cur], id)
		case strings.HasPrefix(line, "/"):
			cur = line
			if _, ok := out[cur]; !ok {
				out[cur] = []int64{}
			}
		default:
			return nil, fmt.Errorf("wchp: unexpected line %q", clipAnswer(line))
		}
	}
	return out, nil
}

// Dump is what dump (or the AdminServer's dump) reports of a member.
type Dump struct {
	// Buckets are the session tracker's expiry buckets, on a leader or a
	// standalone server: sessions grouped by the tick at which they expire
	// unless they hear from their client.
	Buckets []ExpiryBucket `json:"buckets,omitempty"`
	// Timeouts are a follower's or observer's global sessions with their
	// timeouts (a learner keeps no expiry buckets).
	Timeouts map[int64]time.Duration `json:"-"`
	// Ephemerals maps each session owning ephemeral nodes to their server
	// paths. The data tree is replicated, so every member lists them all.
	Ephemerals map[int64][]string `json:"-"`
	// Connections is the member's connection expiry list, session ids with
	// client addresses (NIO servers only; Netty's prints nothing).
	Connections []DumpConnection `json:"connections,omitempty"`
}

// ExpiryBucket is one expiry time of the session tracker with its
// sessions.
type ExpiryBucket struct {
	// At is the expiry time, to the second, in the server's time zone as
	// Java printed it; zero when it could not be read (the AdminServer
	// reports the server's monotonic clock, not wall time: see Elapsed).
	At time.Time `json:"at,omitzero"`
	// Elapsed is the AdminServer's key: the server's monotonic clock in
	// milliseconds (4lw: 0).
	Elapsed int64 `json:"elapsed_ms,omitempty"`
	// Local marks the buckets of local (not global) sessions.
	Local    bool    `json:"local,omitempty"`
	Sessions []int64 `json:"-"`
}

// DumpConnection is one line of dump's connection list.
type DumpConnection struct {
	Client    string `json:"client"`
	SessionID int64  `json:"-"`
}

// Sessions returns every session id the dump names, sorted.
func (d *Dump) Sessions() []int64 {
	seen := map[int64]bool{}
	for _, b := range d.Buckets {
		for _, id := range b.Sessions {
			seen[id] = true
		}
	}
	for id := range d.Timeouts {
		seen[id] = true
	}
	for id := range d.Ephemerals {
		seen[id] = true
	}
	out := make([]int64, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var (
	dumpSets       = regexp.MustCompile(`^(Local |Global )?Session Sets \(\d+\)/\(\d+\):$`)
	dumpGlobal     = regexp.MustCompile(`^(Local )?Global Sessions\(\d+\):$`)
	dumpBucket     = regexp.MustCompile(`^(\d+) expire at (.*):$`)
	dumpTimeout    = regexp.MustCompile(`^(0x[0-9a-f]+)\t(\d+)ms$`)
	dumpOwner      = regexp.MustCompile(`^(0x[0-9a-f]+):$`)
	dumpConnection = regexp.MustCompile(`^\tip: (\S+) sessionId: (0x[0-9a-f]+)$`)
)

// javaDateLayout is Java's Date.toString, which dump uses for times.
const javaDateLayout = "Mon Jan 02 15:04:05 MST 2006"

// parseDump reads the answer to dump:
//
//	SessionTracker dump:
//	Session Sets (1)/(2):                 leader/standalone: expiry buckets
//	2 expire at Sun Nov 22 04:47:17 UTC 2026:
//		0x1000061135d0001
//	Global Sessions(2):                   follower/observer instead
//	0x100006119c10000	30000ms
//	ephemeral nodes dump:
//	Sessions with Ephemerals (1):
//	0x1000061135d0000:
//		/app/member-a
//	Connections dump:
//	Connections Sets (2)/(3):
//	2 expire at Sun Nov 22 04:47:25 UTC 2026:
//		ip: /127.0.0.1:33950 sessionId: 0x1000061135d0000
func parseDump(text string) (*Dump, error) {
	if strings.TrimSpace(text) == notServingText {
		return nil, errNotServing
	}
	d := &Dump{Timeouts: map[int64]time.Duration{}, Ephemerals: map[int64][]string{}}
	section := ""
	local := false
	var bucket *ExpiryBucket
	var owner int64
	haveOwner := false
	for n, line := range answerLines(text) {
		fail := func(why string) error {
			return fmt.Errorf("dump line %d %q: %s", n+1, clipAnswer(line), why)
		}
		switch line {
		case "":
			continue
		case "SessionTracker dump:":
			section = "sessions"
			continue
		case "ephemeral nodes dump:":
			section, bucket = "ephemerals", nil
			continue
		case "Connections dump:":
			section, bucket = "connections", nil
			continue
		}
		switch section {
		case "sessions":
			if m := dumpSets.FindStringSubmatch(line); m != nil {
				local, bucket = m[1] == "Local ", nil
			} else if dumpGlobal.MatchString(line) {
				local, bucket = false, nil
			} else if m := dumpBucket.FindStringSubmatch(line); m != nil {
				d.Buckets = append(d.Buckets, ExpiryBucket{At: parseJavaDate(m[2]), Local: local, Sessions: []int64{}})
				bucket = &d.Buckets[len(d.Buckets)-1]
			} else if m := dumpTimeout.FindStringSubmatch(line); m != nil {
				id, err := parseHexLong(m[1])
				if err != nil {
					return nil, fail(err.Error())
				}
				ms, err := strconv.ParseInt(m[2], 10, 64)
				if err != nil {
					return nil, fail(err.Error())
				}
				d.Timeouts[id] = time.Duration(ms) * time.Millisecond
			} else if strings.HasPrefix(line, "\t") && bucket != nil {
				id, err := parseHexLong(line[1:])
				if err != nil {
					return nil, fail(err.Error())
				}
				bucket.Sessions = append(bucket.Sessions, id)
			} else {
				return nil, fail("not a session tracker line")
			}
		case "ephemerals":
			if strings.HasPrefix(line, "Sessions with Ephemerals (") {
				continue
			}
			if m := dumpOwner.FindStringSubmatch(line); m != nil {
				id, err := parseHexLong(m[1])
				if err != nil {
					return nil, fail(err.Error())
				}
				owner, haveOwner = id, true
				if _, ok := d.Ephemerals[owner]; !ok {
					d.Ephemerals[owner] = []string{}
				}
			} else if strings.HasPrefix(line, "\t") && haveOwner {
				d.Ephemerals[owner] = append(d.Ephemerals[owner], line[1:])
			} else {
				return nil, fail("not an ephemeral nodes line")
			}
		case "connections":
			if strings.HasPrefix(line, "Connections Sets (") || dumpBucket.MatchString(line) {
				continue
			}
			m := dumpConnection.FindStringSubmatch(line)
			if m == nil {
				return nil, fail("not a connection line")
			}
			id, err := parseHexLong(m[2])
			if err != nil {
				return nil, fail(err.Error())
			}
			d.Connections = append(d.Connections, DumpConnection{Client: javaSocketAddress(m[1]), SessionID: id})
		default:
			return nil, fail("before SessionTracker dump:")
		}
	}
	if section == "" {
		return nil, fmt.Errorf("dump: no SessionTracker section in %q", clipAnswer(text))
	}
	for _, paths := range d.Ephemerals {
		sort.Strings(paths)
	}
	return d, nil
}

// parseJavaDate reads Java's Date.toString; the zero time when it cannot.
func parseJavaDate(s string) time.Time {
	t, err := time.Parse(javaDateLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
