package recipes

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
	// Acquired: we hold the lock (Token).
	Acquired
	// Released: we let the lock go.
	Released
)

func (k EventKind) String() string {
	return [...]string{"queued", "waiting", "notified", "polling", "acquired", "released"}[k]
}

// Event is what a recipe tells an observer (WithObserver) as it works, for
// views such as zkx demo's lanes.
type Event struct {
	Kind     EventKind
	Node     string   // Queued: our node; Notified: the node whose watch fired
	Watching []string // Waiting: the nodes we watch
	Token    Token    // Acquired
}

// Observer receives a recipe's events, on the recipe's own goroutine: it
// must return at once (hand the event to a channel without blocking).
type Observer func(Event)

// WithObserver makes a recipe report what it does to o.
func WithObserver(o Observer) Option { return func(opts *options) { opts.observer = o } }

// tell reports an event to the observer, if there is one.
func (o *options) tell(ev Event) {
	if o.observer != nil {
		o.observer(ev)
	}
}
