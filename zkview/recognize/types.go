package recognize

import (
	"time"

	"github.com/zkx-dev/zkx/zkview"
)

// Contender is one node of a recognised recipe: a holder, a waiter, a
// candidate or a lease. Its JSON fields are the contract of docs/json.md.
type Contender struct {
	Node string `json:"node"`
	Seq  int32  `json:"seq"`
	Kind string `json:"kind,omitempty"` // read | write (rwlock), lease (semaphore)
	// Format is the layout of this contender's node, so the library that
	// wrote it: zkx (zkx's own, in Curator's layout; in Kazoo's it is
	// kazoo, as zkx joins a Kazoo lock) | curator | kazoo |
	// zookeeper-recipes | go-zookeeper | generic, or ephemeral-node for a
	// lock or leadership held as one node (its holder and the sessions
	// watching it).
	Format string `json:"format"`
	// View is the library's rule by which zkx judged whether this contender
	// holds and what it watches ("Curator InterProcessMutex", "Kazoo Lock
	// with extra_lock_patterns=(\"-lock-\",)"); empty where the recipe has
	// one rule for all.
	View    string `json:"view,omitempty"`
	Session string `json:"session"` // ephemeralOwner as 0x…, "" for a persistent node
	// Client is the session's client address from the servers'
	// connection lists (cons, the AdminServer); when they do not name it,
	// the address the node's data gives (Curator writes the client's IP
	// there by default), with ClientFrom "node data"; else "".
	Client     string `json:"client"`
	ClientFrom string `json:"client_from,omitempty"`
	Data       string `json:"data,omitempty"` // decoded node data
	// AgeMs is how long ago the node was created.
	AgeMs int64 `json:"age_ms"`
	// HeldMs is for holders: how long it has held, only when zkx knows
	// when holding began (HeldSince); absent otherwise. AgeMs bounds it.
	HeldMs *int64 `json:"held_ms,omitempty"`
	// WaitsFor is the node this waiter watches by its library's rule.
	WaitsFor string `json:"waits_for,omitempty"`
	// Watch is "observed" when the server's watch table shows the watch,
	// "inferred" when only the protocol says so.
	Watch string `json:"watch,omitempty"`
	// Connected says whether a server lists a live connection of the
	// session; absent when the servers' tables do not say.
	Connected *bool `json:"connected,omitempty"`
	// LastHeardMs is how long ago a server last answered the session
	// (cons lresp, the AdminServer's last_response_time; pings count);
	// absent when the tables do not say.
	LastHeardMs *int64 `json:"last_heard_ms,omitempty"`
	// LastHeardAtLeast is set when the silence may be longer than
	// LastHeardMs says: zkx had no session on the session's server, whose
	// present moment was then its freshest answer to another client.
	LastHeardAtLeast bool `json:"last_heard_at_least,omitempty"`
	// Silent is set when the session has not been heard from for more
	// than a third of its timeout (zkview.Liveness.Silent).
	Silent bool `json:"silent,omitempty"`
	// ExpiresBy is when the servers expire the session at the latest if
	// its client stays silent (RFC 3339, UTC, whole seconds); absent when
	// not known. ExpiresByAbout: the servers' tick is not known, and it
	// is only about (it may be early by up to two ticks).
	ExpiresBy      string `json:"expires_by,omitempty"`
	ExpiresByAbout bool   `json:"expires_by_about,omitempty"`
	// Next is for holders: the waiters that hold once this holder's node
	// is deleted, by their libraries' rules (those whose watch on it fires
	// and who then find nothing before them); empty when nobody would.
	Next []string `json:"next,omitempty"`
	// RevokeRequestedMs is how long ago the node's data became Curator's
	// __REVOKE__ (by its mtime): someone asked its owner to release (zkx
	// revoke, Curator's Revoker); absent otherwise. See revocation.go.
	RevokeRequestedMs *int64 `json:"revoke_requested_ms,omitempty"`
	// MayHold is set on a waiter that holds by one of the rules its
	// library may run by and waits by another, when zkx cannot tell which
	// (a Kazoo Lock with or without extra_lock_patterns, and the servers'
	// watch tables not read): it is shown waiting, by the rule by which it
	// waits (View), and MayHoldReason says by which rule it would hold.
	MayHold       bool   `json:"may_hold,omitempty"`
	MayHoldReason string `json:"may_hold_reason,omitempty"`

	SessionID int64     `json:"-"`
	Created   time.Time `json:"-"`
	// Czxid is the zxid that created the node: what was before it and
	// what after, where times are too coarse.
	Czxid int64 `json:"-"`
	// HeldSince is when a holder began to hold, when known: zkx saw it
	// begin (a HoldClock saw its predecessor go), or no child of its
	// directory was created or deleted since its node was (it held from
	// the start). Zero otherwise.
	HeldSince time.Time `json:"-"`
	// Liveness is what the servers said of the session's last contact
	// (Heard zero when they did not).
	Liveness zkview.Liveness `json:"-"`
	// RevokeRequested is when the node's data became __REVOKE__, zero when
	// it does not hold it.
	RevokeRequested time.Time `json:"-"`
}

// Alarm is a condition that calls for someone to look now: what `zkx
// locks --check` reports.
type Alarm struct {
	// Kind is deadlock, two-holders, maybe-two-holders, gone-holder,
	// silent-holder or held-too-long.
	Kind string `json:"kind"`
	// Node is the holder it is about ("" for two-holders).
	Node string `json:"node,omitempty"`
	// Text says it in a sentence (the warning's words).
	Text string `json:"text"`
}

// The kinds of Alarm.
const (
	AlarmDeadlock        = "deadlock"
	AlarmTwoHolders      = "two-holders"
	AlarmMaybeTwoHolders = "maybe-two-holders"
	AlarmGoneHolder      = "gone-holder"
	AlarmSilent          = "silent-holder"
	AlarmHeldTooLong     = "held-too-long"
)

// SystemTag says which known system a recognised object belongs to and
// what it is to that system; empty for a plain recipe.
type SystemTag struct {
	// System is kafka, hbase, hdfs, yarn, solr, helix, clickhouse,
	// bookkeeper, curator-discovery, storm, druid…
	System string `json:"system,omitempty"`
	// Role is what the object is to the system: controller,
	// active-master, active-namenode, overseer, brokers, isr-change…
	Role string `json:"role,omitempty"`
	// SystemRoot is where the system's nodes are (its chroot or prefix,
	// or for Hadoop HA the nameservice's directory): one system instance
	// per root.
	SystemRoot string `json:"system_root,omitempty"`
}

// Lock is a recognised lock directory: a mutex, a read-write lock or a
// semaphore.
type Lock struct {
	Path   string `json:"path"`
	Recipe string `json:"recipe"` // mutex | rwlock | semaphore
	// Format is zkx | curator | kazoo | zookeeper-recipes | go-zookeeper |
	// generic | ephemeral-node, or mixed when contenders of several layouts
	// share the directory (Formats lists them).
	Format  string   `json:"format"`
	Formats []string `json:"formats,omitempty"`
	SystemTag
	// MaxLeases is a semaphore's maximum, when known; MaxFrom says where
	// it came from (kazoo | option | shared-count | convention | inferred
	// | unknown; see semaphore_max.go), MaxPath the SharedCount it was
	// read from. MutexBySemaphore is set for a semaphore of 1 (Curator's
	// InterProcessSemaphoreMutex).
	MaxLeases        int    `json:"max_leases,omitempty"`
	MaxFrom          string `json:"max_from,omitempty"`
	MaxPath          string `json:"max_path,omitempty"`
	MutexBySemaphore bool   `json:"mutex_by_semaphore,omitempty"`
	// Broken is set when more contenders believe they hold than the
	// recipe lets in: two holders of a mutex, a writer holding with anyone
	// else. Warnings[0] then says who.
	Broken bool `json:"broken,omitempty"`
	// MaybeBroken is set instead when the lock is broken only if a waiter
	// marked MayHold holds: it does by a rule its library may run by,
	// which zkx cannot confirm (a Kazoo Lock with or without
	// extra_lock_patterns, and the servers' watch tables not read).
	// Warnings[0] then says who, why zkx is not sure, and what would tell.
	MaybeBroken bool `json:"maybe_broken,omitempty"`
	// Deadlocked is set when the lock is in a cycle of sessions, each
	// waiting for what the next holds (see Deadlocks); Warnings[0] then
	// names them and the releases that break it.
	Deadlocked bool `json:"deadlock,omitempty"`
	// Holders are the contenders that hold by their library's rule for
	// certain; Waiters the others, in queue order, those that may hold
	// among them (MayHold).
	Holders  []Contender `json:"holders"`
	Waiters  []Contender `json:"waiters"`
	Warnings []string    `json:"warnings"`
	// Alarms are the conditions of Warnings that call for someone now.
	Alarms []Alarm `json:"alarms,omitempty"`

	// handovers says, by holder node, what happens when that node is
	// deleted (see Handover).
	handovers map[string]string
}

// Election is a recognised election.
type Election struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	SystemTag
	Leader     *Contender  `json:"leader"`
	Candidates []Contender `json:"candidates"`
	Warnings   []string    `json:"warnings"`
	// Alarms are the conditions of Warnings that call for someone now:
	// leaderless, leader-silent.
	Alarms []Alarm `json:"alarms,omitempty"`
}

// Queue is a recognised queue.
type Queue struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Kind is Curator's variant, by its items' names: priority, delay,
	// id, or lock-path (a lockPath whose queue was not found: its items
	// in flight); empty for a plain queue.
	Kind string `json:"kind,omitempty"`
	SystemTag
	Length int         `json:"length"`
	Items  []QueueItem `json:"items"`
	// OldestAgeMs is the age of the oldest item's node (the lowest
	// sequence number of all the items, read or not); absent when empty.
	OldestAgeMs *int64 `json:"oldest_age_ms,omitempty"`
	// LongestWaitMs is the longest an item read has waited to be taken
	// (QueueItem.WaitingMs): what --check judges stale; absent when none
	// waits.
	LongestWaitMs *int64 `json:"longest_wait_ms,omitempty"`
	// Due counts the items of a delay queue that are due now.
	Due int `json:"due,omitempty"`
	// InFlight counts the items a consumer is processing.
	InFlight int `json:"in_flight,omitempty"`
	// LockPath is where a Curator queue with guaranteed delivery keeps
	// its items in flight, when zkx found it (lockPath is in the clients'
	// code).
	LockPath string `json:"lock_path,omitempty"`
	// Stale is set when an item has waited longer than Options.QueueStale.
	Stale    bool     `json:"stale,omitempty"`
	Warnings []string `json:"warnings"`
	// Alarms are the conditions of Warnings that call for someone now:
	// queue-stale, item-stuck.
	Alarms []Alarm `json:"alarms,omitempty"`

	// Oldest is when the oldest item was created (zero when empty).
	Oldest time.Time `json:"-"`
}

// QueueItem is one item of a queue, in the order it will be taken.
type QueueItem struct {
	Node     string `json:"node"`
	Data     string `json:"data"`
	Priority *int   `json:"priority,omitempty"` // Kazoo's and Curator's priority queues
	Taken    bool   `json:"taken,omitempty"`    // Kazoo LockingQueue: taken, not yet consumed
	// AgeMs is how long ago the item's node was created.
	AgeMs int64 `json:"age_ms"`
	// ID is a Curator DistributedIdQueue item's id.
	ID string `json:"id,omitempty"`
	// DueInMs is, for a Curator DistributedDelayQueue item, how long
	// until it is due: negative once overdue.
	DueInMs *int64 `json:"due_in_ms,omitempty"`
	// WaitingMs is how long the item has waited to be taken: since its
	// node was created, or for a delay queue's item since it was due;
	// absent while it is not due, or in flight.
	WaitingMs *int64 `json:"waiting_ms,omitempty"`
	// InFlight is set while a consumer processes the item (Curator's
	// lockPath node, Kazoo's taken/ node); Consumer is that node's
	// session.
	InFlight bool       `json:"in_flight,omitempty"`
	Consumer *Contender `json:"consumer,omitempty"`

	Created time.Time `json:"-"`
	Due     time.Time `json:"-"` // a delay queue's due time
}

// Barrier is a recognised barrier or double barrier.
type Barrier struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	SystemTag
	Kind         string      `json:"kind"` // barrier | double-barrier
	Participants []Contender `json:"participants,omitempty"`
	Ready        bool        `json:"ready,omitempty"`
	Warnings     []string    `json:"warnings"`
}

// Group is a membership directory: one ephemeral node per live member. A
// system's (Kafka's brokers/ids, HBase's rs, Solr's live_nodes, Helix's
// LIVEINSTANCES, BookKeeper's available bookies, a Curator service's
// instances), or a library's group recipe (Kazoo's Party and ShallowParty,
// Curator's GroupMember). Members are in name order; nobody waits.
type Group struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Kind is the library's recipe: party (Kazoo Party), shallow-party
	// (Kazoo ShallowParty), group-member (Curator GroupMember, or any
	// directory of ephemeral members laid out alike); empty for a
	// system's members.
	Kind string `json:"kind,omitempty"`
	SystemTag
	Members  []Contender `json:"members"`
	Warnings []string    `json:"warnings"`
}

// Name names the contender in a sentence: its format, its node's short
// name, its session: "kazoo __lock__0000000001 (session 0x11)".
func (c Contender) Name() string {
	s := c.Format + " " + BareName(c.Node)
	if c.Session != "" {
		s += " (session " + c.Session + ")"
	}
	return s
}

// ClientText is the contender's client address as shown: "" when unknown,
// marked "(node data)" when the node's data named it, not the servers.
func (c Contender) ClientText() string {
	if c.Client != "" && c.ClientFrom != "" {
		return c.Client + " (" + c.ClientFrom + ")"
	}
	return c.Client
}
