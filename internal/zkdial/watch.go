package zkdial

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/zktls"
)

// Options say how to reach the members.
type Options struct {
	// TLS, when set, makes every connection TLS.
	TLS *tls.Config
	// Wrap, when set, takes each connection once open (after TLS) and
	// returns the one the session uses: an authentication that runs on
	// the connection, as SASL's does, goes there. Its error fails the dial.
	Wrap func(conn net.Conn, addr string) (net.Conn, error)
	// MaxFrame bounds a frame the server may send (zkx's jute.maxbuffer
	// for what it reads); 0 is DefaultMaxFrame.
	MaxFrame int
	// Dialer, when set, opens each connection instead of a TCP (or TLS)
	// dial to addr: an in-process server's pipe. Its connections are
	// taken as they are (TLS is not applied) and nothing is asked of addr
	// over the network.
	Dialer func(ctx context.Context, addr string) (net.Conn, error)
	// AnswerTimeout is how long a member has to begin its answer to the
	// session request before it is named as not ZooKeeper; 0 is
	// DefaultAnswerTimeout.
	AnswerTimeout time.Duration
}

// DefaultMaxFrame is large enough for the listing of a node with a
// million short-named children; ZooKeeper's own default (1 MiB) is not.
const DefaultMaxFrame = 64 << 20

func (o Options) maxFrame() int {
	if o.MaxFrame > 0 {
		return o.MaxFrame
	}
	return DefaultMaxFrame
}

// DefaultAnswerTimeout is how long a peer has to begin its answer to the
// session request: ZooKeeper answers at once, so a peer still silent then
// is not ZooKeeper, or a server that has stopped.
const DefaultAnswerTimeout = 4 * time.Second

func (o Options) answerTimeout() time.Duration {
	if o.AnswerTimeout > 0 {
		return o.AnswerTimeout
	}
	return DefaultAnswerTimeout
}

// Watch records how each dial to each member went until a session is
// answered, and gives up when every member has failed.
type Watch struct {
	opts    Options
	members []string

	mu       sync.Mutex
	failed   map[string]failure // member → its last failure
	answered bool
	abort    chan error
	aborted  bool
	fatal    error        // what the watch gave up on
	current  *checkedConn // the newest connection
	broken   error        // why the newest connection that ended did, when it was named
	progress Progress
}

// failure is how a member last failed. A soft one (it closed the
// connection without answering: electing a leader, out of its quorum)
// may pass; it counts once it has lasted notServingGrace.
type failure struct {
	err   error
	soft  bool
	since time.Time // of the soft failures in a row
}

// notServingGrace is how long a member may keep closing connections
// unanswered before it counts as failed: a leader election is over well
// within it.
const notServingGrace = 3 * time.Second

// NewWatch watches dials to members (the connect string's host:port
// entries).
func NewWatch(members []string, o Options) *Watch {
	return &Watch{opts: o, members: members, failed: map[string]failure{}, abort: make(chan error, 1)}
}

// Abort delivers an error, once: when every member has failed with no
// session answered (one line per member says how), or at any time when a
// member's answer shows that no member will do (a FatalError: SASL
// refused, or required and not given; a server that sent what ZooKeeper
// never sends).
func (w *Watch) Abort() <-chan error { return w.abort }

// Fatal is the error the watch gave up on, nil until it does. A request
// that failed because the connection closed reads it to say why.
func (w *Watch) Fatal() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fatal
}

// Broken says why the newest connection that ended did, when that was
// named (a peer that went silent), nil otherwise.
func (w *Watch) Broken() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.broken
}

// Unanswered describes the oldest request of the newest connection that
// waits for its answer ("" when none does), for an error that ends a wait.
func (w *Watch) Unanswered() string {
	w.mu.Lock()
	c := w.current
	w.mu.Unlock()
	if c == nil {
		return ""
	}
	return c.unanswered()
}

// Dial opens one connection to addr as the options say: plain or TLS,
// then wrapped, every frame checked (see the package doc).
func (o Options) Dial(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	return o.dial(ctx, addr, timeout, &attempt{addr: addr})
}

func (o Options) dial(ctx context.Context, addr string, timeout time.Duration, a *attempt) (net.Conn, error) {
	var conn net.Conn
	var err error
	switch {
	case o.Dialer != nil:
		conn, err = o.Dialer(ctx, addr)
	case o.TLS != nil:
		conn, err = zktls.Dial(ctx, o.TLS, addr, timeout)
	default:
		conn, err = (&net.Dialer{Timeout: timeout}).DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	// The guard sits under the wrap, which may speak first (SASL), and
	// sees the member's first bytes; the check sits over it, where the
	// session reads.
	guard := newGuardConn(conn, a, o.TLS != nil, o.answerTimeout())
	guard.noProbe = o.Dialer != nil
	var below net.Conn = guard
	if o.Wrap != nil {
		if below, err = o.Wrap(below, addr); err != nil {
			conn.Close()
			return nil, err
		}
	}
	checked := newCheckedConn(below, a, o.maxFrame(), o.Wrap != nil)
	checked.socket = rawSocket(conn)
	return checked, nil
}

// Dialer is the zk.Dialer to hand go-zookeeper: Options.Dial, watched.
func (w *Watch) Dialer() zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), max(timeout, time.Second)+5*time.Second)
		defer cancel()
		a := &attempt{addr: addr, watch: w}
		w.setPhase(addr, "opening a connection")
		conn, err := w.opts.dial(ctx, addr, timeout, a)
		if err != nil {
			a.fail(dialFailure(err))
			return nil, err
		}
		w.mu.Lock()
		w.current = conn.(*checkedConn)
		w.mu.Unlock()
		w.setPhase(addr, "waiting for its answer to the session request")
		return conn, nil
	}
}

// giveUp delivers err on Abort at once, whatever else was seen.
func (w *Watch) giveUp(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.aborted {
		return
	}
	w.aborted = true
	w.fatal = err
	w.abort <- err
}

// fail records a member's failure; when every member has one that counts
// and no session was answered, Abort fires.
func (w *Watch) fail(addr string, err error) { w.record(addr, err, false) }

// failSoft records a member closing the connection without answering.
func (w *Watch) failSoft(addr string, err error) { w.record(addr, err, true) }

func (w *Watch) record(addr string, err error, soft bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	f := failure{err: err, soft: soft, since: now}
	if prev, ok := w.failed[addr]; ok && soft && prev.soft {
		f.since = prev.since
	}
	w.failed[addr] = f
	if w.answered || w.aborted {
		return
	}
	for _, m := range w.members {
		f, ok := w.failed[m]
		if !ok || (f.soft && now.Sub(f.since) < notServingGrace) {
			return
		}
	}
	w.aborted = true
	all := &AllFailedError{}
	for _, m := range w.members {
		all.Lines = append(all.Lines, display.Line(m)+": "+memberLine(w.failed[m].err))
		all.Errs = append(all.Errs, w.failed[m].err)
	}
	w.fatal = all
	w.abort <- w.fatal
}

// answer records that a member answered the session request.
func (w *Watch) answer(addr string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.answered = true
	delete(w.failed, addr)
	w.progress.Member, w.progress.Phase, w.progress.Since = addr, "session open", time.Now()
}

// noteBroken records why a connection ended, when it was named.
func (w *Watch) noteBroken(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.broken = err
}

// dialFailure says in a few words why a dial failed.
func dialFailure(err error) error {
	var te *zktls.Error
	var ne net.Error
	switch {
	case errors.As(err, &te):
		return errors.New(te.Reason)
	case strings.Contains(err.Error(), "connection refused"):
		return errors.New("connection refused (is ZooKeeper running there, on this port?)")
	case errors.As(err, &ne) && ne.Timeout():
		return errors.New("no answer to the connection (down, or a firewall drops it)")
	}
	return err
}

// attempt is one connection to one member, from its dial to its end. Its
// layers (the guard, the wrap, the check) may each find a fault; the
// first one named is the member's failure, and goes to the watch when
// there is one (a connection dialed with Options.Dial alone has none: its
// errors are what its reads return).
type attempt struct {
	addr  string
	watch *Watch

	mu     sync.Mutex
	failed bool
}

func (a *attempt) fail(err error)     { a.record(err, false) }
func (a *attempt) failSoft(err error) { a.record(err, true) }

func (a *attempt) record(err error, soft bool) {
	a.mu.Lock()
	first := !a.failed
	a.failed = true
	a.mu.Unlock()
	if first && a.watch != nil {
		a.watch.record(a.addr, err, soft)
	}
}

func (a *attempt) answer() {
	if a.watch != nil {
		a.watch.answer(a.addr)
	}
}

func (a *attempt) giveUp(err error) {
	if a.watch != nil {
		a.watch.giveUp(err)
	}
}

func (a *attempt) broke(err error) {
	if a.watch != nil {
		a.watch.noteBroken(err)
	}
}
