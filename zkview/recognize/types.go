package recognize

import "time"

// Contender is one node of a recognised recipe: a holder, a waiter, a
// candidate or a lease. Its JSON fields are the contract of docs/json.md.
type Contender struct {
	Node    string `json:"node"`
	Seq     int32  `json:"seq"`
	Kind    string `json:"kind,omitempty"` // read | write (rwlock), lease (semaphore)
	Session string `json:"session"`        // ephemeralOwner as 0x…, "" for a persistent node
	// Client is the session's client address from the servers'
	// connection lists (cons, the AdminServer); when they do not name it,
	// the address the node's data gives (Curator writes the client's IP
	// there by default), with ClientFrom "node data"; else "".
	Client     string `json:"client"`
	ClientFrom string `json:"client_from,omitempty"`
	Data       string `json:"data,omitempty"` // decoded node data
	// HeldMs is for holders: how long since the node was created, an upper
	// bound on how long it has held.
	HeldMs int64 `json:"held_ms,omitempty"`
	// WaitingMs is for waiters: how long since the node was created.
	WaitingMs int64 `json:"waiting_ms,omitempty"`
	// WaitsFor is the node this waiter watches by its format's protocol.
	WaitsFor string `json:"waits_for,omitempty"`
	// Watch is "observed" when the server's watch table shows the watch,
	// "inferred" when only the protocol says so.
	Watch string `json:"watch,omitempty"`

	SessionID int64     `json:"-"`
	Created   time.Time `json:"-"`
}

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
	Format string `json:"format"` // zkx | curator | kazoo | zookeeper-recipes | go-zookeeper | generic
	SystemTag
	MaxLeases int         `json:"max_leases,omitempty"`
	Holders   []Contender `json:"holders"`
	Waiters   []Contender `json:"waiters"`
	Warnings  []string    `json:"warnings"`
}

// Election is a recognised election.
type Election struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	SystemTag
	Leader     *Contender  `json:"leader"`
	Candidates []Contender `json:"candidates"`
	Warnings   []string    `json:"warnings"`
}

// Queue is a recognised queue.
type Queue struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	SystemTag
	Length   int         `json:"length"`
	Items    []QueueItem `json:"items"`
	Warnings []string    `json:"warnings"`
}

// QueueItem is one item of a queue, in the order it will be taken.
type QueueItem struct {
	Node     string `json:"node"`
	Data     string `json:"data"`
	Priority *int   `json:"priority,omitempty"` // Kazoo's priority queues
	Taken    bool   `json:"taken,omitempty"`    // Kazoo LockingQueue: taken, not yet consumed
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

// Group is a system's membership directory: one ephemeral node per live
// member (Kafka's brokers/ids, HBase's rs, Solr's live_nodes, Helix's
// LIVEINSTANCES, BookKeeper's available bookies, a Curator service's
// instances). Members are in name order; nobody waits.
type Group struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	SystemTag
	Members  []Contender `json:"members"`
	Warnings []string    `json:"warnings"`
}

// ClientText is the contender's client address as shown: "" when unknown,
// marked "(node data)" when the node's data named it, not the servers.
func (c Contender) ClientText() string {
	if c.Client != "" && c.ClientFrom != "" {
		return c.Client + " (" + c.ClientFrom + ")"
	}
	return c.Client
}
