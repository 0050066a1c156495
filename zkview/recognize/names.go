package recognize

import (
	"strconv"
	"strings"
)

// Node names, as the recipes of each library write them. Every name is
// parsed here, once, by the tables below; the recognisers only look at the
// parsed result.
//
// A sequential name ends with the server's sequence suffix: %010d of a
// signed 32-bit counter, so "0000000042", and after the counter wraps
// "-2147483648" or "-000000005". What precedes it is lead + id + mark, as
// each pattern says.

// recKind is what a child's name says the node is.
type recKind int

const (
	rkForeign      recKind = iota // matches no pattern
	rkCuratorLock                 // _c_<uuid>-lock-SEQ: InterProcessMutex, LeaderSelector, SemaphoreV2 locks/, zkx Mutex
	rkGoZKLock                    // _c_<hex32>-lock-SEQ: go-zookeeper zk.Lock
	rkCuratorRead                 // _c_<uuid>-__READ__SEQ
	rkCuratorWrite                // _c_<uuid>-__WRIT__SEQ
	rkCuratorLatch                // _c_<uuid>-latch-SEQ: LeaderLatch, zkx Election
	rkCuratorLease                // _c_<uuid>-lease-SEQ: SemaphoreV2 leases/
	rkCuratorQueue                // queue-[order]SEQ: DistributedQueue (and its priority, delay, id variants)
	rkKazooLock                   // <hex32>__lock__SEQ: Lock, WriteLock, Election
	rkKazooRead                   // <hex32>__rlock__SEQ: ReadLock
	rkKazooEntry                  // entry-NNN-SEQ: Queue, LockingQueue entries/
	rkZKWriteLock                 // x-<sessionId>-SEQ: ZooKeeper's WriteLock recipe
	rkZKElection                  // n_SEQ: ZooKeeper's LeaderElectionSupport
	rkZKQueue                     // qn-SEQ: ZooKeeper's DistributedQueue, Curator's SimpleDistributedQueue, zkx Queue
	rkPlainLock                   // lock-SEQ, node_SEQ, lockid SEQ, bare SEQ: tutorial locks
	rkPlainRead                   // <host>-R-SEQ, read-SEQ: tutorial shared locks
	rkPlainWrite                  // <host>-W-SEQ, write-SEQ
	rkGenericSeq                  // anything else with a sequence suffix
	rkUUIDMember                  // <uuid>: Curator DistributedDoubleBarrier participant, zkx DoubleBarrier
	rkHexMember                   // <hex32>: Kazoo DoubleBarrier participant, Kazoo Semaphore lease
	rkReady                       // ready: a double barrier's ready node
	rkLocksDir                    // locks: SemaphoreV2's internal mutex
	rkLeasesDir                   // leases: SemaphoreV2's leases
	rkEntriesDir                  // entries: Kazoo LockingQueue's items
	rkTakenDir                    // taken: Kazoo LockingQueue's taken marks
)

// recFamily groups the kinds that make up one recipe in one directory.
type recFamily int

const (
	rfNone recFamily = iota
	rfCuratorLock
	rfCuratorRW
	rfCuratorLatch
	rfCuratorLease
	rfCuratorQueue
	rfKazooLock
	rfKazooQueue
	rfZKLock
	rfZKElection
	rfZKQueue
	rfPlainLock
	rfPlainRW
	rfGeneric
	rfParticipants
)

// The recipe names of a recFamily, as the model reports them.
const (
	recMutex         = "mutex"
	recRWLock        = "rwlock"
	recSemaphore     = "semaphore"
	recElection      = "election"
	recQueue         = "queue"
	recBarrier       = "barrier"
	recDoubleBarrier = "double-barrier"
)

// The formats, as the model reports them.
const (
	recFormatZkx         = "zkx"
	recFormatCurator     = "curator"
	recFormatKazoo       = "kazoo"
	recFormatZooKeeper   = "zookeeper-recipes"
	recFormatGoZooKeeper = "go-zookeeper"
	recFormatGeneric     = "generic"
)

// recKindInfo is what the recognisers need to know of a kind.
type recKindInfo struct {
	name   string // for tests and messages
	family recFamily
	role   string // "read" or "write" in a read-write lock, else ""
}

var recKinds = map[recKind]recKindInfo{
	rkForeign:      {"foreign", rfNone, ""},
	rkCuratorLock:  {"curator-lock", rfCuratorLock, ""},
	rkGoZKLock:     {"go-zookeeper-lock", rfCuratorLock, ""},
	rkCuratorRead:  {"curator-read", rfCuratorRW, "read"},
	rkCuratorWrite: {"curator-write", rfCuratorRW, "write"},
	rkCuratorLatch: {"curator-latch", rfCuratorLatch, ""},
	rkCuratorLease: {"curator-lease", rfCuratorLease, ""},
	rkCuratorQueue: {"curator-queue-item", rfCuratorQueue, ""},
	rkKazooLock:    {"kazoo-lock", rfKazooLock, "write"},
	rkKazooRead:    {"kazoo-read", rfKazooLock, "read"},
	rkKazooEntry:   {"kazoo-entry", rfKazooQueue, ""},
	rkZKWriteLock:  {"zookeeper-writelock", rfZKLock, ""},
	rkZKElection:   {"zookeeper-election", rfZKElection, ""},
	rkZKQueue:      {"zookeeper-queue-item", rfZKQueue, ""},
	rkPlainLock:    {"plain-lock", rfPlainLock, ""},
	rkPlainRead:    {"plain-read", rfPlainRW, "read"},
	rkPlainWrite:   {"plain-write", rfPlainRW, "write"},
	rkGenericSeq:   {"generic-sequential", rfGeneric, ""},
	rkUUIDMember:   {"uuid-participant", rfParticipants, ""},
	rkHexMember:    {"hex-participant", rfParticipants, ""},
	rkReady:        {"ready", rfParticipants, ""},
	rkLocksDir:     {"locks-dir", rfNone, ""},
	rkLeasesDir:    {"leases-dir", rfNone, ""},
	rkEntriesDir:   {"entries-dir", rfNone, ""},
	rkTakenDir:     {"taken-dir", rfNone, ""},
}

// recFamilyInfo is what a family makes of a directory.
type recFamilyInfo struct {
	recipe string // mutex | rwlock | semaphore | election | queue | double-barrier
	format string // the format before looking at data (zkx is told by data)
	// ephemeral: the name alone is too weak a sign; only ephemeral members
	// count, and the lowest must be one.
	ephemeral bool
	// leaves: members never have children, so a walk need not list them.
	leaves bool
}

var recFamilies = map[recFamily]recFamilyInfo{
	rfCuratorLock:  {recMutex, recFormatCurator, false, true},
	rfCuratorRW:    {recRWLock, recFormatCurator, false, true},
	rfCuratorLatch: {recElection, recFormatCurator, false, true},
	rfCuratorLease: {recSemaphore, recFormatCurator, false, true},
	rfCuratorQueue: {recQueue, recFormatCurator, false, true},
	rfKazooLock:    {recMutex, recFormatKazoo, false, true},
	rfKazooQueue:   {recQueue, recFormatKazoo, false, true},
	rfZKLock:       {recMutex, recFormatZooKeeper, false, true},
	rfZKElection:   {recElection, recFormatZooKeeper, false, true},
	rfZKQueue:      {recQueue, recFormatZooKeeper, false, true},
	rfPlainLock:    {recMutex, recFormatGeneric, true, false},
	rfPlainRW:      {recRWLock, recFormatGeneric, true, false},
	rfGeneric:      {recMutex, recFormatGeneric, true, false},
	rfParticipants: {recDoubleBarrier, recFormatCurator, true, true},
}

// recFamilyOrder breaks ties between families with as many members in one
// directory: the more specific layout first.
var recFamilyOrder = []recFamily{
	rfCuratorLock, rfCuratorRW, rfCuratorLatch, rfCuratorLease, rfCuratorQueue,
	rfKazooLock, rfKazooQueue, rfZKLock, rfZKElection, rfZKQueue,
	rfPlainRW, rfPlainLock, rfParticipants,
}

// recIDShape is what may sit between a pattern's lead and its mark.
type recIDShape int

const (
	ridNone         recIDShape = iota // nothing
	ridUUID                           // 8-4-4-4-12 hex digits, as Java's UUID.toString
	ridHex32                          // 32 hex digits, as Python's uuid4().hex or go-zookeeper's guid
	ridDecimal                        // a decimal long, maybe negative (a session id)
	ridPriority3                      // three decimal digits (Kazoo's priority)
	ridCuratorOrder                   // "", a Curator priority ([01] + 8 hex digits) or "|…|" (delay, id)
	ridAny                            // one or more characters
	ridAnyOrNone                      // zero or more characters
)

// recPattern is one layout of a sequential name: lead + id + mark + SEQ.
type recPattern struct {
	kind recKind
	lead string
	id   recIDShape
	mark string
}

// recSeqPatterns are tried in order; the first that matches names the kind.
var recSeqPatterns = []recPattern{
	{rkCuratorLock, "_c_", ridUUID, "-lock-"},
	{rkGoZKLock, "_c_", ridHex32, "-lock-"},
	{rkCuratorRead, "_c_", ridUUID, "-__READ__"},
	{rkCuratorWrite, "_c_", ridUUID, "-__WRIT__"},
	{rkCuratorLatch, "_c_", ridUUID, "-latch-"},
	{rkCuratorLease, "_c_", ridUUID, "-lease-"},
	// Kazoo finds contenders with the regular expression
	// "(?:__lock__|__rlock__)(-?\d{10})$", whatever precedes the marker.
	{rkKazooRead, "", ridAny, "__rlock__"},
	{rkKazooLock, "", ridAny, "__lock__"},
	{rkKazooEntry, "entry-", ridPriority3, "-"},
	{rkZKWriteLock, "x-", ridDecimal, "-"},
	{rkZKElection, "n_", ridNone, ""},
	{rkZKQueue, "qn-", ridNone, ""},
	{rkCuratorQueue, "queue-", ridCuratorOrder, ""},
	{rkPlainRead, "", ridAny, "-R-"},
	{rkPlainWrite, "", ridAny, "-W-"},
	{rkPlainRead, "read-", ridNone, ""},
	{rkPlainWrite, "write-", ridNone, ""},
	{rkPlainLock, "lock-", ridNone, ""},
	{rkPlainLock, "lock_", ridNone, ""},
	{rkPlainLock, "lock", ridNone, ""},
	{rkPlainLock, "node_", ridNone, ""},
	{rkPlainLock, "node-", ridNone, ""},
	{rkPlainLock, "node", ridNone, ""},
	{rkPlainLock, "lockid ", ridNone, ""},
	{rkPlainLock, "lockid-", ridNone, ""},
	{rkPlainLock, "lockid_", ridNone, ""},
	{rkPlainLock, "lockid", ridNone, ""},
	{rkPlainLock, "", ridNone, ""},
	{rkGenericSeq, "", ridAnyOrNone, ""},
}

// recPlainNames are the non-sequential names with a meaning.
var recPlainNames = map[string]recKind{
	"ready":   rkReady,
	"locks":   rkLocksDir,
	"leases":  rkLeasesDir,
	"entries": rkEntriesDir,
	"taken":   rkTakenDir,
}

// recName is a child's name as the tables read it.
type recName struct {
	Name   string
	Kind   recKind
	Seq    int32
	HasSeq bool
	// ID is what the pattern's id matched: the UUID, the hex id, the
	// session id, the host, Curator's priority or delay part.
	ID string
	// Priority is Kazoo's (NNN) or Curator's priority queue's priority.
	Priority    int
	HasPriority bool
}

func (p recName) family() recFamily { return recKinds[p.Kind].family }
func (p recName) role() string      { return recKinds[p.Kind].role }

// format is the format the name alone says: its family's, except that
// go-zookeeper's lock nodes and Kazoo's participants differ from Curator's
// by their hex ids.
func (p recName) format() string {
	switch p.Kind {
	case rkGoZKLock:
		return recFormatGoZooKeeper
	case rkHexMember:
		return recFormatKazoo
	}
	return recFamilies[p.family()].format
}

// recParseName reads one child's name.
func recParseName(name string) recName {
	splits := recSeqSplits(name)
	for _, pat := range recSeqPatterns {
		for _, s := range splits {
			id, ok := pat.match(s.rest)
			if !ok {
				continue
			}
			p := recName{Name: name, Kind: pat.kind, Seq: s.seq, HasSeq: true, ID: id}
			switch pat.id {
			case ridPriority3:
				p.Priority, _ = strconv.Atoi(id)
				p.HasPriority = true
			case ridCuratorOrder:
				p.Priority, p.HasPriority = recCuratorPriority(id)
			}
			return p
		}
	}
	if k, ok := recPlainNames[name]; ok {
		return recName{Name: name, Kind: k}
	}
	switch {
	case recIsUUID(name):
		return recName{Name: name, Kind: rkUUIDMember, ID: name}
	case recIsHex(name, 32):
		return recName{Name: name, Kind: rkHexMember, ID: name}
	}
	return recName{Name: name, Kind: rkForeign}
}

// BareName drops the client id that a protected create (Curator's
// "_c_<uuid>-", go-zookeeper's "_c_<hex32>-") or Kazoo ("<hex32>" before
// "__lock__" or "__rlock__") puts in front of a node's name, in the last
// component of node: the rest says the order, and the session says who.
// A node named by its absolute path (outside the recipe's directory: a
// Kazoo semaphore's lock node, the node of an ephemeral-node lock) keeps
// only its last component, as the recipe's path says where it is.
//
//	_c_<uuid>-lock-0000000003        → lock-0000000003
//	leases/_c_<uuid>-lease-0000000001 → leases/lease-0000000001
//	<hex32>__lock__0000000002        → __lock__0000000002
func BareName(node string) string {
	dir, base := "", node
	if i := strings.LastIndexByte(node, '/'); i >= 0 {
		dir, base = node[:i+1], node[i+1:]
	}
	if strings.HasPrefix(dir, "/") {
		dir = ""
	}
	if rest, ok := strings.CutPrefix(base, "_c_"); ok {
		switch {
		case len(rest) > 37 && rest[36] == '-' && recIsUUID(rest[:36]):
			return dir + rest[37:]
		case len(rest) > 33 && rest[32] == '-' && recIsHex(rest[:32], 32):
			return dir + rest[33:]
		}
	}
	if len(base) > 34 && recIsHex(base[:32], 32) && strings.HasPrefix(base[32:], "__") {
		return dir + base[32:]
	}
	return dir + base
}

// recSeqSplit is one way to read a name as rest + sequence suffix.
type recSeqSplit struct {
	rest string
	seq  int32
}

// recSeqSplits returns the readings of name's sequence suffix, the likeliest
// first: ten digits; a minus and nine digits; a minus and ten digits. The
// first and last can both apply ("lock-1000000000" is "lock-" + 1000000000
// or "lock" + -1000000000); a pattern's mark tells them apart.
func recSeqSplits(name string) []recSeqSplit {
	n := len(name)
	if n < 10 || !recIsDigits(name[n-9:]) {
		return nil
	}
	var out []recSeqSplit
	switch c := name[n-10]; {
	case c >= '0' && c <= '9':
		v, _ := strconv.ParseInt(name[n-10:], 10, 64)
		if v <= 1<<31-1 {
			out = append(out, recSeqSplit{name[:n-10], int32(v)})
		}
		if n >= 11 && name[n-11] == '-' && v >= 1_000_000_000 && v <= 1<<31 {
			out = append(out, recSeqSplit{name[:n-11], int32(-v)})
		}
	case c == '-':
		v, _ := strconv.ParseInt(name[n-9:], 10, 64)
		out = append(out, recSeqSplit{name[:n-10], int32(-v)})
	}
	return out
}

// match reports whether rest is the pattern's lead + id + mark and returns
// the id.
func (p recPattern) match(rest string) (string, bool) {
	if len(rest) < len(p.lead)+len(p.mark) || !strings.HasPrefix(rest, p.lead) || !strings.HasSuffix(rest, p.mark) {
		return "", false
	}
	id := rest[len(p.lead) : len(rest)-len(p.mark)]
	var ok bool
	switch p.id {
	case ridNone:
		ok = id == ""
	case ridUUID:
		ok = recIsUUID(id)
	case ridHex32:
		ok = recIsHex(id, 32)
	case ridDecimal:
		d := strings.TrimPrefix(id, "-")
		ok = d != "" && len(d) <= 19 && recIsDigits(d)
	case ridPriority3:
		ok = len(id) == 3 && recIsDigits(id)
	case ridCuratorOrder:
		_, prio := recCuratorPriority(id)
		ok = id == "" || prio || (len(id) >= 2 && id[0] == '|' && id[len(id)-1] == '|')
	case ridAny:
		ok = id != ""
	case ridAnyOrNone:
		ok = true
	}
	return id, ok
}

// recCuratorPriority reads the priority DistributedPriorityQueue puts between
// "queue-" and the sequence: "1" and 8 hex digits for a priority >= 0, "0"
// and the 8 hex digits of the negative int's bits otherwise.
func recCuratorPriority(s string) (int, bool) {
	if len(s) != 9 || (s[0] != '0' && s[0] != '1') || !recIsHex(strings.ToLower(s[1:]), 8) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return 0, false
	}
	p := int32(uint32(v))
	if (s[0] == '1') != (p >= 0) {
		return 0, false
	}
	return int(p), true
}

func recIsDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// recIsHex reports whether s is n lowercase hex digits.
func recIsHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// recIsUUID reports whether s is a UUID as Java's UUID.toString writes it
// (lowercase; uppercase is accepted too).
func recIsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
