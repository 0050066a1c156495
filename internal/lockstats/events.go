package lockstats

// EventKind says what a contender just did.
type EventKind int

const (
	// Queued: our node was created (Node) and we stand in line.
	Queued EventKind = iota
	// Waiting: we wait for the nodes in Watching to change.
	Waiting
	// Notified: a watch fired on Node (a watch event was delivered to us).
	Notified
	// Polling: a Spin contender tried to create the lock node and will try again.
	Polling
	// Acquired: we hold the lock (Path).
	Acquired
	// Released: we let the lock go.
	Released
)

func (k EventKind) String() string {
	return [...]string{"queued", "waiting", "notified", "polling", "acquired", "released"}[k]
}

// Event is what a recipe tells an observer (Instruments.Observer) as it
// works, for views such as zkx demo's lanes.
type Event struct {
	Kind     EventKind
	Node     string   // Queued: our node; Notified: the node whose watch fired; Released: the node let go
	Watching []string // Waiting: the nodes we watch
	Path     string   // Acquired: the path of the node held (a Redis lock's key)
}

// Observer receives a recipe's events, on the recipe's own goroutine: it
// must return at once (hand the event to a channel without blocking).
type Observer func(Event)

// Tell reports an event to o, if there is one.
func (o Observer) Tell(ev Event) {
	if o != nil {
		o(ev)
	}
}
