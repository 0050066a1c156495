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

// nodeKind is what a child's name says the node is.
type nodeKind int

const (
	kindForeign       nodeKind = iota // matches no pattern
	kindCuratorLock                   // _c_<uuid>-lock-SEQ: InterProcessMutex, LeaderSelector, SemaphoreV2 locks/, zkx Mutex
	kindGoZKLock                      // _c_<hex32>-lock-SEQ: go-zookeeper zk.Lock
	kindCuratorRead                   // _c_<uuid>-__READ__SEQ
	kindCuratorWrite                  // _c_<uuid>-__WRIT__SEQ
	kindCuratorLatch                  // _c_<uuid>-latch-SEQ: LeaderLatch, zkx Election
	kindCuratorLease                  // _c_<uuid>-lease-SEQ: SemaphoreV2 leases/
	kindCuratorQueue                  // queue-[order]SEQ: DistributedQueue (and its priority, delay, id variants)
	kindKazooLock                     // <hex32>__lock__SEQ: Lock, WriteLock, Election
	kindKazooRead                     // <hex32>__rlock__SEQ: ReadLock
	kindKazooEntry                    // entry-NNN-SEQ: Queue, LockingQueue entries/
	kindZKWriteLock                   // x-<sessionId>-SEQ: ZooKeeper's WriteLock recipe
	kindZKElection                    // n_SEQ: ZooKeeper's LeaderElectionSupport
	kindZKQueue                       // qn-SEQ: ZooKeeper's DistributedQueue, Curator's SimpleDistributedQueue, zkx Queue
	kindPlainLock                     // lock-SEQ, node_SEQ, lockid SEQ, bare SEQ: tutorial locks
	kindPlainRead                     // <host>-R-SEQ, read-SEQ: tutorial shared locks
	kindPlainWrite                    // <host>-W-SEQ, write-SEQ
	kindGenericSeq                    // anything else with a sequence suffix
	kindUUIDMember                    // <uuid>: Curator DistributedDoubleBarrier participant, zkx DoubleBarrier
	kindHexMember                     // <hex32>: Kazoo DoubleBarrier participant, Kazoo Semaphore lease
	kindReady                         // ready: a double barrier's ready node
	kindLocksDir                      // locks: SemaphoreV2's internal mutex
	kindLeasesDir                     // leases: SemaphoreV2's leases
	kindEntriesDir                    // entries: Kazoo LockingQueue's items
	kindTakenDir                      // taken: Kazoo LockingQueue's taken marks
	kindKazooParty                    // <hex32>__party__: Kazoo Party member
	kindShallowMember                 // <hex32>-<identifier>: Kazoo ShallowParty member (a SetPartitioner's party)
	kindPartyDir                      // party: Kazoo SetPartitioner's ShallowParty
	kindTouch                         // touch: Curator PersistentTtlNode's TTL child
	kindLeaseHolder                   // lease_holder: Kazoo NonBlockingLease's holder record
)

// layoutFamily groups the kinds that make up one recipe in one directory.
type layoutFamily int

const (
	familyNone layoutFamily = iota
	familyCuratorLock
	familyCuratorRW
	familyCuratorLatch
	familyCuratorLease
	familyCuratorQueue
	familyKazooLock
	familyKazooQueue
	familyZKLock
	familyZKElection
	familyZKQueue
	familyPlainLock
	familyPlainRW
	familyGeneric
	familyParticipants
	familyKazooParty
)

// The recipe names of a layoutFamily, as the model reports them.
const (
	recMutex         = "mutex"
	recRWLock        = "rwlock"
	recSemaphore     = "semaphore"
	recElection      = "election"
	recQueue         = "queue"
	recBarrier       = "barrier"
	recDoubleBarrier = "double-barrier"
	recParty         = "party"
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

// kindInfo is what the recognisers need to know of a kind.
type kindInfo struct {
	name   string // for tests and messages
	family layoutFamily
	role   string // "read" or "write" in a read-write lock, else ""
}

var kindTable = map[nodeKind]kindInfo{
	kindForeign:       {"foreign", familyNone, ""},
	kindCuratorLock:   {"curator-lock", familyCuratorLock, ""},
	kindGoZKLock:      {"go-zookeeper-lock", familyCuratorLock, ""},
	kindCuratorRead:   {"curator-read", familyCuratorRW, "read"},
	kindCuratorWrite:  {"curator-write", familyCuratorRW, "write"},
	kindCuratorLatch:  {"curator-latch", familyCuratorLatch, ""},
	kindCuratorLease:  {"curator-lease", familyCuratorLease, ""},
	kindCuratorQueue:  {"curator-queue-item", familyCuratorQueue, ""},
	kindKazooLock:     {"kazoo-lock", familyKazooLock, "write"},
	kindKazooRead:     {"kazoo-read", familyKazooLock, "read"},
	kindKazooEntry:    {"kazoo-entry", familyKazooQueue, ""},
	kindZKWriteLock:   {"zookeeper-writelock", familyZKLock, ""},
	kindZKElection:    {"zookeeper-election", familyZKElection, ""},
	kindZKQueue:       {"zookeeper-queue-item", familyZKQueue, ""},
	kindPlainLock:     {"plain-lock", familyPlainLock, ""},
	kindPlainRead:     {"plain-read", familyPlainRW, "read"},
	kindPlainWrite:    {"plain-write", familyPlainRW, "write"},
	kindGenericSeq:    {"generic-sequential", familyGeneric, ""},
	kindUUIDMember:    {"uuid-participant", familyParticipants, ""},
	kindHexMember:     {"hex-participant", familyParticipants, ""},
	kindReady:         {"ready", familyParticipants, ""},
	kindLocksDir:      {"locks-dir", familyNone, ""},
	kindLeasesDir:     {"leases-dir", familyNone, ""},
	kindEntriesDir:    {"entries-dir", familyNone, ""},
	kindTakenDir:      {"taken-dir", familyNone, ""},
	kindKazooParty:    {"kazoo-party-member", familyKazooParty, ""},
	kindShallowMember: {"kazoo-shallow-party-member", familyKazooParty, ""},
	kindPartyDir:      {"party-dir", familyNone, ""},
	kindTouch:         {"touch", familyNone, ""},
	kindLeaseHolder:   {"lease-holder", familyNone, ""},
}

// familyInfo is what a family makes of a directory.
type familyInfo struct {
	recipe string // mutex | rwlock | semaphore | election | queue | double-barrier
	format string // the format before looking at data (zkx is told by data)
	// ephemeral: the name alone is too weak a sign; only ephemeral members
	// count, and the lowest must be one.
	ephemeral bool
	// leaves: members never have children, so a walk need not list them.
	leaves bool
}

var familyTable = map[layoutFamily]familyInfo{
	familyCuratorLock:  {recMutex, recFormatCurator, false, true},
	familyCuratorRW:    {recRWLock, recFormatCurator, false, true},
	familyCuratorLatch: {recElection, recFormatCurator, false, true},
	familyCuratorLease: {recSemaphore, recFormatCurator, false, true},
	familyCuratorQueue: {recQueue, recFormatCurator, false, true},
	familyKazooLock:    {recMutex, recFormatKazoo, false, true},
	familyKazooQueue:   {recQueue, recFormatKazoo, false, true},
	familyZKLock:       {recMutex, recFormatZooKeeper, false, true},
	familyZKElection:   {recElection, recFormatZooKeeper, false, true},
	familyZKQueue:      {recQueue, recFormatZooKeeper, false, true},
	familyPlainLock:    {recMutex, recFormatGeneric, true, false},
	familyPlainRW:      {recRWLock, recFormatGeneric, true, false},
	familyGeneric:      {recMutex, recFormatGeneric, true, false},
	familyParticipants: {recDoubleBarrier, recFormatCurator, true, true},
	familyKazooParty:   {recParty, recFormatKazoo, false, true},
}

// familyOrder breaks ties between families with as many members in one
// directory: the more specific layout first.
var familyOrder = []layoutFamily{
	familyCuratorLock, familyCuratorRW, familyCuratorLatch, familyCuratorLease, familyCuratorQueue,
	familyKazooLock, familyKazooQueue, familyZKLock, familyZKElection, familyZKQueue,
	familyPlainRW, familyPlainLock, familyParticipants, familyKazooParty,
}

// idShape is what may sit between a pattern's lead and its mark.
type idShape int

const (
	idNone         idShape = iota // nothing
	idUUID                        // 8-4-4-4-12 hex digits, as Java's UUID.toString
	idHex32                       // 32 hex digits, as Python's uuid4().hex or go-zookeeper's guid
	idDecimal                     // a decimal long, maybe negative (a session id)
	idPriority3                   // three decimal digits (Kazoo's priority)
	idCuratorOrder                // "", a Curator priority ([01] + 8 hex digits) or "|…|" (delay, id)
	idAny                         // one or more characters
	idAnyOrNone                   // zero or more characters
)

// seqPattern is one layout of a sequential name: lead + id + mark + SEQ.
type seqPattern struct {
	kind nodeKind
	lead string
	id   idShape
	mark string
}

// seqPatterns are tried in order; the first that matches names the kind.
var seqPatterns = []seqPattern{
	{kindCuratorLock, "_c_", idUUID, "-lock-"},
	{kindGoZKLock, "_c_", idHex32, "-lock-"},
	{kindCuratorRead, "_c_", idUUID, "-__READ__"},
	{kindCuratorWrite, "_c_", idUUID, "-__WRIT__"},
	{kindCuratorLatch, "_c_", idUUID, "-latch-"},
	{kindCuratorLease, "_c_", idUUID, "-lease-"},
	// Kazoo finds contenders with the regular expression
	// "(?:__lock__|__rlock__)(-?\d{10})$", whatever precedes the marker.
	{kindKazooRead, "", idAny, "__rlock__"},
	{kindKazooLock, "", idAny, "__lock__"},
	{kindKazooEntry, "entry-", idPriority3, "-"},
	{kindZKWriteLock, "x-", idDecimal, "-"},
	{kindZKElection, "n_", idNone, ""},
	{kindZKQueue, "qn-", idNone, ""},
	{kindCuratorQueue, "queue-", idCuratorOrder, ""},
	{kindPlainRead, "", idAny, "-R-"},
	{kindPlainWrite, "", idAny, "-W-"},
	{kindPlainRead, "read-", idNone, ""},
	{kindPlainWrite, "write-", idNone, ""},
	{kindPlainLock, "lock-", idNone, ""},
	{kindPlainLock, "lock_", idNone, ""},
	{kindPlainLock, "lock", idNone, ""},
	{kindPlainLock, "node_", idNone, ""},
	{kindPlainLock, "node-", idNone, ""},
	{kindPlainLock, "node", idNone, ""},
	{kindPlainLock, "lockid ", idNone, ""},
	{kindPlainLock, "lockid-", idNone, ""},
	{kindPlainLock, "lockid_", idNone, ""},
	{kindPlainLock, "lockid", idNone, ""},
	{kindPlainLock, "", idNone, ""},
	{kindGenericSeq, "", idAnyOrNone, ""},
}

// plainNames are the non-sequential names with a meaning.
var plainNames = map[string]nodeKind{
	"ready":   kindReady,
	"locks":   kindLocksDir,
	"leases":  kindLeasesDir,
	"entries": kindEntriesDir,
	"taken":   kindTakenDir,
	// Kazoo's SetPartitioner (partitioner.py), Curator's PersistentTtlNode
	// (PersistentTtlNode.DEFAULT_CHILD_NODE_NAME), Kazoo's NonBlockingLease
	// (lease.py).
	"party":        kindPartyDir,
	"touch":        kindTouch,
	"lease_holder": kindLeaseHolder,
}

// childName is a child's name as the tables read it.
type childName struct {
	Name   string
	Kind   nodeKind
	Seq    int32
	HasSeq bool
	// ID is what the pattern's id matched: the UUID, the hex id, the
	// session id, the host, Curator's priority or delay part; a
	// ShallowParty member's identifier.
	ID string
	// Priority is Kazoo's (NNN) or Curator's priority queue's priority.
	Priority    int
	HasPriority bool
}

func (p childName) family() layoutFamily { return kindTable[p.Kind].family }
func (p childName) role() string         { return kindTable[p.Kind].role }

// format is the format the name alone says: its family's, except that
// go-zookeeper's lock nodes and Kazoo's participants differ from Curator's
// by their hex ids.
func (p childName) format() string {
	switch p.Kind {
	case kindGoZKLock:
		return recFormatGoZooKeeper
	case kindHexMember:
		return recFormatKazoo
	}
	return familyTable[p.family()].format
}

// parseChildName reads one child's name.
func parseChildName(name string) childName {
	splits := seqSplits(name)
	for _, pat := range seqPatterns {
		for _, s := range splits {
			id, ok := pat.match(s.rest)
			if !ok {
				continue
			}
			p := childName{Name: name, Kind: pat.kind, Seq: s.seq, HasSeq: true, ID: id}
			switch pat.id {
			case idPriority3:
				p.Priority, _ = strconv.Atoi(id)
				p.HasPriority = true
			case idCuratorOrder:
				p.Priority, p.HasPriority = recCuratorPriority(id)
			}
			return p
		}
	}
	if k, ok := plainNames[name]; ok {
		return childName{Name: name, Kind: k}
	}
	switch {
	case recIsUUID(name):
		return childName{Name: name, Kind: kindUUIDMember, ID: name}
	case recIsHex(name, 32):
		return childName{Name: name, Kind: kindHexMember, ID: name}
	case len(name) == 32+len(kazooPartyMark) && recIsHex(name[:32], 32) && name[32:] == kazooPartyMark:
		return childName{Name: name, Kind: kindKazooParty, ID: name[:32]}
	case len(name) > 32 && name[32] == '-' && recIsHex(name[:32], 32):
		return childName{Name: name, Kind: kindShallowMember, ID: name[33:]}
	}
	return childName{Name: name, Kind: kindForeign}
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

// seqSplit is one way to read a name as rest + sequence suffix.
type seqSplit struct {
	rest string
	seq  int32
}

// seqSplits returns the readings of name's sequence suffix, the likeliest
// first: ten digits; a minus and nine digits; a minus and ten digits. The
// first and last can both apply ("lock-1000000000" is "lock-" + 1000000000
// or "lock" + -1000000000); a pattern's mark tells them apart.
func seqSplits(name string) []seqSplit {
	n := len(name)
	if n < 10 || !recIsDigits(name[n-9:]) {
		return nil
	}
	var out []seqSplit
	switch c := name[n-10]; {
	case c >= '0' && c <= '9':
		v, _ := strconv.ParseInt(name[n-10:], 10, 64)
		if v <= 1<<31-1 {
			out = append(out, seqSplit{name[:n-10], int32(v)})
		}
		if n >= 11 && name[n-11] == '-' && v >= 1_000_000_000 && v <= 1<<31 {
			out = append(out, seqSplit{name[:n-11], int32(-v)})
		}
	case c == '-':
		v, _ := strconv.ParseInt(name[n-9:], 10, 64)
		out = append(out, seqSplit{name[:n-10], int32(-v)})
	}
	return out
}

// match reports whether rest is the pattern's lead + id + mark and returns
// the id.
func (p seqPattern) match(rest string) (string, bool) {
	if len(rest) < len(p.lead)+len(p.mark) || !strings.HasPrefix(rest, p.lead) || !strings.HasSuffix(rest, p.mark) {
		return "", false
	}
	id := rest[len(p.lead) : len(rest)-len(p.mark)]
	var ok bool
	switch p.id {
	case idNone:
		ok = id == ""
	case idUUID:
		ok = recIsUUID(id)
	case idHex32:
		ok = recIsHex(id, 32)
	case idDecimal:
		d := strings.TrimPrefix(id, "-")
		ok = d != "" && len(d) <= 19 && recIsDigits(d)
	case idPriority3:
		ok = len(id) == 3 && recIsDigits(id)
	case idCuratorOrder:
		_, prio := recCuratorPriority(id)
		ok = id == "" || prio || (len(id) >= 2 && id[0] == '|' && id[len(id)-1] == '|')
	case idAny:
		ok = id != ""
	case idAnyOrNone:
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
