package zkview

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/netfail"
	"github.com/zkx-dev/zkx/internal/zkdial"
)

// ErrReadOnly is returned when a write is asked of a read-only client.
var ErrReadOnly = errors.New("zkview: read-only connection")

// SessionState is the client's view of its session.
type SessionState int

const (
	// Connecting: no session yet.
	Connecting SessionState = iota
	// Connected: the session is live and the connection is up.
	Connected
	// Suspended: the connection is down; the session may still be alive.
	Suspended
	// Expired: the session ended; the client opens a new one by itself and
	// reports Connected again with a new SessionID.
	Expired
	// Closed: Close was called.
	Closed
)

func (s SessionState) String() string {
	return [...]string{"connecting", "connected", "suspended", "expired", "closed"}[s]
}

// SessionEvent reports a change of the session's state.
type SessionEvent struct {
	State     SessionState
	SessionID int64
	Server    string // the server of the connection, when connected
	// NewSession is set on the Connected event that follows an expiry:
	// every watch was lost and must be set again.
	NewSession bool
	At         time.Time
}

// Client is a ZooKeeper connection as zkview uses it.
type Client struct {
	conn     *zk.Conn
	dials    *zkdial.Watch
	target   connstr.ConnectString
	readOnly bool
	timeout  time.Duration
	// dialed are the connect string and options it was dialed with, for
	// the sessions of a Pool beside it.
	connect string
	opts    []Option

	mu          sync.Mutex
	err         error         // why the client gave up, when it did
	closing     chan struct{} // closed by Close
	state       SessionState
	sessionID   int64
	subscribers []chan SessionEvent
	rawSubs     []chan zk.Event
}

// Option configures Dial.
type Option func(*options)

type options struct {
	auth    []auth
	timeout time.Duration
	// memberWithin bounds how long the members are given to answer
	// before the first connection is chosen (zkdial.Rank).
	memberWithin time.Duration
	readOnly     bool
	logger       *slog.Logger
	dial         zkdial.Options // TLS, and what wraps a connection (SASL)
	status       *ConnectStatus
}

type auth struct {
	scheme string
	creds  []byte
}

// WithAuth adds credentials (e.g. "digest", "user:password").
func WithAuth(scheme string, creds []byte) Option {
	return func(o *options) { o.auth = append(o.auth, auth{scheme, creds}) }
}

// WithSessionTimeout asks for a session timeout (default 10s).
func WithSessionTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithMemberTimeout bounds how long the members are given to answer
// srvr before the session's first connection goes to one that did
// (default zkdial.DefaultRankWithin): a frozen member costs at most this,
// once, instead of go-zookeeper's connect timeout when it happens to try
// that member first.
func WithMemberTimeout(d time.Duration) Option { return func(o *options) { o.memberWithin = d } }

// WithReadOnly makes the client refuse every write: Writer returns nothing.
func WithReadOnly() Option { return func(o *options) { o.readOnly = true } }

// WithTLS makes every connection TLS (ZooKeeper's secureClientPort).
func WithTLS(cfg *tls.Config) Option { return func(o *options) { o.dial.TLS = cfg } }

// WithConnWrap hands each new connection, once open (after TLS), to wrap
// before the session uses it: SASL authenticates there (zksasl).
func WithConnWrap(wrap func(conn net.Conn, addr string) (net.Conn, error)) Option {
	return func(o *options) { o.dial.Wrap = wrap }
}

// WithDialer opens each connection with dial instead of over TCP: an
// in-process server's pipe (forensics.Past). TLS is not applied to them.
func WithDialer(dial func(ctx context.Context, addr string) (net.Conn, error)) Option {
	return func(o *options) { o.dial.Dialer = dial }
}

// WithLogger receives go-zookeeper's log lines at debug level.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

type zkLogger struct{ logger *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) { z.logger.Debug(fmt.Sprintf(format, args...)) }

// maxResponse is large enough for the children of a node with a million
// short-named children; go-zookeeper's default (1.5 MiB) is not. The dial
// wrapper refuses a longer frame before go-zookeeper reads it.
const maxResponse = zkdial.DefaultMaxFrame

// Dial connects to a connect string ("h1:2181,h2:2181[/chroot]") and waits,
// until ctx ends, for the first session, its first answer and its
// credentials (WithAuth).
func Dial(ctx context.Context, connect string, opts ...Option) (*Client, error) {
	o := options{timeout: 10 * time.Second, logger: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	target, err := connstr.Parse(connect)
	if err != nil {
		return nil, err
	}
	o.dial.MaxFrame = maxResponse
	dials := zkdial.NewWatch(target.Servers, o.dial)
	o.status.watching(dials)
	if len(target.Servers) > 1 {
		o.status.set("asking the members which answer (srvr)")
	}
	first := zkdial.Rank(ctx, target.Servers, o.dial, o.memberWithin)
	conn, events, err := zk.Connect(target.Servers, o.timeout,
		zk.WithLogger(zkLogger{o.logger}), zk.WithLogInfo(false), zk.WithMaxBufferSize(maxResponse),
		zk.WithDialer(dials.Dialer()), zk.WithHostProvider(&zkdial.Hosts{Prefer: first}))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", target, err)
	}
	c := &Client{conn: conn, dials: dials, target: target, readOnly: o.readOnly, timeout: o.timeout, connect: connect, opts: opts,
		closing: make(chan struct{})}
	connected := make(chan struct{})
	go c.follow(events, connected)
	select {
	case <-connected:
	case err := <-dials.Abort():
		go conn.Close()
		return nil, fmt.Errorf("connect to %s: %w", target, err)
	case <-ctx.Done():
		// In the background: Close waits up to a second for a server
		// that, here, never answered.
		go conn.Close()
		err := fmt.Errorf("no ZooKeeper session with %s: %w (is it up? a member without a quorum, or at its maxClientCnxns for this address, drops new connections; is the address right?)", target, netfail.Describe(ctx, ctx.Err(), 0))
		if failed := dials.Progress().Failed; len(failed) > 0 {
			err = fmt.Errorf("%w; so far:\n  %s", err, strings.Join(failed, "\n  "))
		}
		return nil, err
	}
	if o.dial.Wrap == nil {
		o.status.set("asking its first question (exists /)")
		if err := zkdial.Probe(ctx, conn, dials); err != nil {
			go conn.Close()
			return nil, fmt.Errorf("connect to %s: %w", target, err)
		}
	}
	go c.giveUpOn(dials.Abort())
	for _, a := range o.auth {
		o.status.set("adding " + a.scheme + " credentials")
		if err := c.addAuth(ctx, a); err != nil {
			go c.Close()
			return nil, fmt.Errorf("add %s credentials on %s: %w", a.scheme, target, err)
		}
	}
	return c, nil
}

// addAuth adds credentials to the session, waiting at most until ctx ends.
func (c *Client) addAuth(ctx context.Context, a auth) error {
	done := make(chan error, 1)
	go func() { done <- c.conn.AddAuth(a.scheme, a.creds) }()
	select {
	case err := <-done:
		return c.why(err)
	case <-ctx.Done():
		return c.waited(ctx.Err())
	}
}

// giveUpOn closes the connection when a reconnect meets a failure no
// member will mend (SASL refused: an expired ticket, a changed password),
// rather than let go-zookeeper retry every member forever; Err says why.
func (c *Client) giveUpOn(abort <-chan error) {
	select {
	case err := <-abort:
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		c.conn.Close()
	case <-c.closing:
	}
}

// Err says why the client closed by itself (nil when it did not).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// follow turns go-zookeeper's session events into zkview's, for the life of
// the connection.
func (c *Client) follow(events <-chan zk.Event, connected chan struct{}) {
	first := true
	for ev := range events {
		c.forwardRaw(ev)
		if ev.Type != zk.EventSession {
			continue
		}
		c.mu.Lock()
		prev, prevID := c.state, c.sessionID
		next := prev
		newSession := false
		switch ev.State {
		case zk.StateHasSession:
			next = Connected
			c.sessionID = c.conn.SessionID()
			newSession = prevID != 0 && c.sessionID != prevID
		case zk.StateDisconnected, zk.StateConnecting:
			if prev == Connected {
				next = Suspended
			}
		case zk.StateExpired:
			next = Expired
		}
		c.state = next
		id := c.sessionID
		c.mu.Unlock()
		if next == prev && !newSession {
			continue
		}
		if next == Connected && first {
			first = false
			close(connected)
		}
		c.publish(SessionEvent{State: next, SessionID: id, Server: ev.Server, NewSession: newSession, At: time.Now()})
	}
	c.mu.Lock()
	c.state = Closed
	for _, ch := range c.subscribers {
		close(ch)
	}
	for _, ch := range c.rawSubs {
		close(ch)
	}
	c.subscribers, c.rawSubs = nil, nil
	c.mu.Unlock()
}

// publish sends an event to every subscriber; a subscriber that is not
// keeping up loses its oldest pending event rather than stall the client.
func (c *Client) publish(ev SessionEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.subscribers {
		for {
			select {
			case ch <- ev:
			default:
				select {
				case <-ch:
				default:
				}
				continue
			}
			break
		}
	}
}

func (c *Client) forwardRaw(ev zk.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.rawSubs {
		select {
		case ch <- ev:
		default: // a recipes session reads these promptly; never block the connection
		}
	}
}

// Events returns a channel of session changes, closed when the client is.
func (c *Client) Events() <-chan SessionEvent {
	ch := make(chan SessionEvent, 16)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == Closed {
		close(ch)
		return ch
	}
	c.subscribers = append(c.subscribers, ch)
	return ch
}

// RawEvents returns a copy of go-zookeeper's event stream, for a
// recipes.Session on the same connection (recipes.NewSession).
func (c *Client) RawEvents() <-chan zk.Event {
	ch := make(chan zk.Event, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == Closed {
		close(ch)
		return ch
	}
	c.rawSubs = append(c.rawSubs, ch)
	return ch
}

// State returns the session's state.
func (c *Client) State() SessionState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// SessionID returns the current session's id.
func (c *Client) SessionID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Server returns the address of the server the client is connected to.
func (c *Client) Server() string { return c.conn.Server() }

// Servers returns every server of the connect string.
func (c *Client) Servers() []string { return c.target.Servers }

// Target returns the parsed connect string.
func (c *Client) Target() connstr.ConnectString { return c.target }

// SessionTimeout returns the session timeout asked for.
func (c *Client) SessionTimeout() time.Duration { return c.timeout }

// Conn returns the go-zookeeper connection, for recipes (apply Abs to paths).
func (c *Client) Conn() *zk.Conn { return c.conn }

// ReadOnly reports whether writes are refused.
func (c *Client) ReadOnly() bool { return c.readOnly }

// Abs maps a user path (under the chroot) to the server's.
func (c *Client) Abs(path string) string { return c.target.Abs(path) }

// Close ends the session.
func (c *Client) Close() {
	c.mu.Lock()
	select {
	case <-c.closing:
	default:
		close(c.closing)
	}
	c.mu.Unlock()
	c.conn.Close()
}
