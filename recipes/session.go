package recipes

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/zkdial"
)

// SessionState is what a Session knows of its ZooKeeper session.
type SessionState int32

const (
	// Connected: the session is live and the connection is up.
	Connected SessionState = iota
	// Suspended: the connection is down; the session may still be alive on
	// the server (and whatever it holds with it), or may be expiring. Treat
	// held locks as uncertain until Connected or Lost.
	Suspended
	// Lost: the session expired, was closed, or stayed disconnected for its
	// whole timeout. Everything it held is gone, or goes within a timeout:
	// a session declared lost by our own clock may still live on the
	// server (a new leader gives every session a fresh timeout), so a
	// Session made by Dial then closes its connection, lest go-zookeeper
	// resume the session, and with it what it held, when it reconnects.
	// The connection of a Session made by NewSession is its owner's to
	// close (see NewSession).
	Lost
)

func (st SessionState) String() string {
	switch st {
	case Connected:
		return "connected"
	case Suspended:
		return "suspended"
	default:
		return "lost"
	}
}

// Session is one ZooKeeper session shared by recipes.
type Session struct {
	conn    *zk.Conn
	id      int64
	timeout time.Duration
	logger  *slog.Logger
	owned   bool // Close closes the connection

	mu        sync.Mutex
	state     SessionState
	reason    error
	connected chan struct{} // closed while Connected; replaced when suspended
	listeners []func(SessionState)
	done      chan struct{}
}

type sessionOptions struct {
	timeout        time.Duration
	connectTimeout time.Duration
	auth           []zkAuth
	logger         *slog.Logger
	onState        func(SessionState)
	dial           zkdial.Options
	abort          <-chan error // Dial's: every server failed
}

type zkAuth struct {
	scheme string
	creds  []byte
}

// SessionOption configures Dial and NewSession.
type SessionOption func(*sessionOptions)

// WithSessionTimeout asks the server for this session timeout (default 10s).
func WithSessionTimeout(d time.Duration) SessionOption {
	return func(o *sessionOptions) { o.timeout = d }
}

// WithConnectTimeout bounds how long Dial and NewSession wait for the first
// session (default 15s).
func WithConnectTimeout(d time.Duration) SessionOption {
	return func(o *sessionOptions) { o.connectTimeout = d }
}

// WithDigestAuth adds digest credentials, as zkCli's "addauth digest user:password".
func WithDigestAuth(user, password string) SessionOption {
	return WithAuth("digest", []byte(user+":"+password))
}

// WithAuth adds credentials of any scheme the server knows.
func WithAuth(scheme string, creds []byte) SessionOption {
	return func(o *sessionOptions) { o.auth = append(o.auth, zkAuth{scheme, creds}) }
}

// WithTLS makes Dial's connections TLS (ZooKeeper's secureClientPort).
func WithTLS(cfg *tls.Config) SessionOption {
	return func(o *sessionOptions) { o.dial.TLS = cfg }
}

// WithConnWrap hands each new connection of Dial's, once open (after TLS),
// to wrap before the session uses it: an authentication that runs on the
// connection itself, as SASL does, goes there.
func WithConnWrap(wrap func(conn net.Conn, addr string) (net.Conn, error)) SessionOption {
	return func(o *sessionOptions) { o.dial.Wrap = wrap }
}

// WithLogger receives the session's and go-zookeeper's log lines (default: none).
func WithLogger(l *slog.Logger) SessionOption {
	return func(o *sessionOptions) { o.logger = l }
}

// WithStateListener is called on every change of the session's state, from
// the session's own goroutine; it must not block.
func WithStateListener(f func(SessionState)) SessionOption {
	return func(o *sessionOptions) { o.onState = f }
}

func buildSessionOptions(opts []SessionOption) sessionOptions {
	o := sessionOptions{timeout: 10 * time.Second, connectTimeout: 15 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// zkLogger routes go-zookeeper's log lines to slog at debug level, so a
// library never prints on its own.
type zkLogger struct{ logger *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	z.logger.Debug(fmt.Sprintf(format, args...), "source", "go-zookeeper")
}

// Dial connects to the servers (host:port each) and returns a Session that
// owns the connection: Close closes it.
func Dial(servers []string, opts ...SessionOption) (*Session, error) {
	o := buildSessionOptions(opts)
	dials := zkdial.NewWatch(servers, o.dial)
	// The first connection goes to a member that answers: a frozen one
	// would cost go-zookeeper's connect timeout when tried first.
	rankCtx, cancel := context.WithTimeout(context.Background(), o.connectTimeout)
	first := zkdial.Rank(rankCtx, servers, o.dial, 0)
	cancel()
	conn, events, err := zk.Connect(servers, o.timeout, zk.WithLogger(zkLogger{o.logger}), zk.WithLogInfo(false),
		zk.WithDialer(dials.Dialer()), zk.WithHostProvider(&zkdial.Hosts{Prefer: first}))
	if err != nil {
		return nil, fmt.Errorf("recipes: connect to %v: %w", servers, err)
	}
	o.abort = dials.Abort()
	s, err := newSession(conn, events, o, true)
	if err == nil && o.dial.Wrap == nil {
		ctx, cancel := context.WithTimeout(context.Background(), o.connectTimeout)
		err = zkdial.Probe(ctx, conn, dials)
		cancel()
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("recipes: connect to %v: %w", servers, err)
	}
	go s.giveUpOn(dials.Abort())
	return s, nil
}

// giveUpOn loses the session when a reconnect meets a failure no member
// will mend (SASL refused: an expired ticket, a changed password), rather
// than let go-zookeeper retry every member forever.
func (s *Session) giveUpOn(abort <-chan error) {
	select {
	case err := <-abort:
		s.lose(err)
	case <-s.done:
	}
}

// NewSession wraps a go-zookeeper connection. It takes over events (the
// channel zk.Connect returned): the caller must not read it any more. Close
// does not close conn, and neither does a loss: when the Session is
// declared lost by its own clock (disconnected for its whole timeout), the
// session may still live on the server, and go-zookeeper resumes it when it
// reconnects, with every node it holds; until conn is closed, those nodes
// (locks, leases, leaderships) stay taken. The Session logs a warning when
// that happens.
func NewSession(conn *zk.Conn, events <-chan zk.Event, opts ...SessionOption) (*Session, error) {
	return newSession(conn, events, buildSessionOptions(opts), false)
}

func newSession(conn *zk.Conn, events <-chan zk.Event, o sessionOptions, owned bool) (*Session, error) {
	if conn.SessionID() == 0 {
		if err := waitForSession(conn, events, o.connectTimeout, o.abort); err != nil {
			return nil, err
		}
	}
	for _, a := range o.auth {
		if err := addAuth(conn, a, o.connectTimeout, o.abort); err != nil {
			return nil, fmt.Errorf("recipes: add %s credentials: %w", a.scheme, err)
		}
	}
	s := &Session{
		conn: conn, id: conn.SessionID(), timeout: o.timeout, logger: o.logger, owned: owned,
		connected: make(chan struct{}), done: make(chan struct{}),
	}
	close(s.connected)
	if o.onState != nil {
		s.listeners = append(s.listeners, o.onState)
	}
	go s.watchEvents(events)
	return s, nil
}

// addAuth adds credentials, waiting for the server's answer at most
// timeout (go-zookeeper waits as long as the connection lives).
func addAuth(conn *zk.Conn, a zkAuth, timeout time.Duration, abort <-chan error) error {
	done := make(chan error, 1)
	go func() { done <- conn.AddAuth(a.scheme, a.creds) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case err := <-abort:
		return err
	case <-t.C:
		return fmt.Errorf("no answer within %v", timeout)
	}
}

func waitForSession(conn *zk.Conn, events <-chan zk.Event, timeout time.Duration, abort <-chan error) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return errors.New("connection closed before a session was established")
			}
			if ev.Type == zk.EventSession && ev.State == zk.StateHasSession && conn.SessionID() != 0 {
				return nil
			}
			if ev.Type == zk.EventSession && ev.State == zk.StateAuthFailed {
				return errors.New("authentication failed")
			}
		case err := <-abort:
			return err
		case <-deadline.C:
			return fmt.Errorf("no session within %v (is the server up? is the address right?)", timeout)
		}
	}
}

// watchEvents follows the connection's session events for the life of the
// connection. go-zookeeper opens a new session by itself after an expiry;
// any session id but ours means ours is gone.
func (s *Session) watchEvents(events <-chan zk.Event) {
	var expire <-chan time.Time
	var timer *time.Timer
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				s.lose(errors.New("connection closed"))
				return
			}
			if ev.Type != zk.EventSession {
				continue
			}
			switch ev.State {
			case zk.StateHasSession:
				if id := s.conn.SessionID(); id != s.id {
					s.lose(fmt.Errorf("session 0x%x expired (the client now has 0x%x)", s.id, id))
					continue
				}
				if s.State() == Lost && !s.owned {
					s.logger.Warn("zookeeper session resumed after it was declared lost: the nodes it holds stay until its connection is closed",
						"session", fmt.Sprintf("0x%x", s.id))
				}
				if timer != nil {
					timer.Stop()
					timer, expire = nil, nil
				}
				s.setState(Connected)
			case zk.StateDisconnected, zk.StateConnecting:
				if s.State() == Connected {
					s.setState(Suspended)
					// The server expires us a timeout after it last heard
					// from us; past that, nothing we held can be ours.
					timer = time.NewTimer(s.timeout)
					expire = timer.C
				}
			case zk.StateExpired:
				s.lose(fmt.Errorf("session 0x%x expired", s.id))
			case zk.StateAuthFailed:
				s.lose(errors.New("authentication failed"))
			}
		case <-expire:
			timer, expire = nil, nil
			s.lose(fmt.Errorf("session 0x%x disconnected for longer than its %v timeout", s.id, s.timeout))
		}
	}
}

func (s *Session) setState(st SessionState) {
	s.mu.Lock()
	if s.state == Lost || s.state == st {
		s.mu.Unlock()
		return
	}
	s.state = st
	if st == Connected {
		close(s.connected)
	} else {
		s.connected = make(chan struct{})
	}
	listeners := s.listeners
	s.mu.Unlock()
	s.logger.Info("zookeeper session "+st.String(), "session", fmt.Sprintf("0x%x", s.id))
	for _, f := range listeners {
		f(st)
	}
}

func (s *Session) lose(reason error) {
	s.mu.Lock()
	if s.state == Lost {
		s.mu.Unlock()
		return
	}
	s.state, s.reason = Lost, reason
	close(s.done)
	listeners := s.listeners
	s.mu.Unlock()
	s.logger.Warn("zookeeper session lost", "session", fmt.Sprintf("0x%x", s.id), "reason", reason)
	for _, f := range listeners {
		f(Lost)
	}
	if s.owned {
		// Whatever the server still keeps of the session must not come
		// back: closed, it ends at once if the server hears it, else a
		// timeout later. In the background: Close waits up to a second for
		// the server's answer.
		go s.conn.Close()
	}
}

// ID returns the session id.
func (s *Session) ID() int64 { return s.id }

// Conn returns the underlying connection, for requests the recipes do not make.
func (s *Session) Conn() *zk.Conn { return s.conn }

// Timeout returns the session timeout asked for.
func (s *Session) Timeout() time.Duration { return s.timeout }

// Done is closed when the session is lost.
func (s *Session) Done() <-chan struct{} { return s.done }

// State returns the session's current state.
func (s *Session) State() SessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Err returns why the session was lost (wrapping ErrSessionLost), or nil.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != Lost {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrSessionLost, s.reason)
}

// Close ends the session. A Session made by Dial closes its connection,
// which ends the session on the server at once (its ephemeral nodes go);
// one made by NewSession leaves the connection to its owner.
func (s *Session) Close() error {
	s.lose(errors.New("closed"))
	if s.owned {
		s.conn.Close()
	}
	return nil
}

// alive returns ErrSessionLost once the session is gone, and also when the
// connection has moved to another session that we have not yet heard of.
func (s *Session) alive() error {
	if err := s.Err(); err != nil {
		return err
	}
	if id := s.conn.SessionID(); id != s.id && id != 0 {
		s.lose(fmt.Errorf("session 0x%x expired (the client now has 0x%x)", s.id, id))
		return s.Err()
	}
	return nil
}

// waitConnected blocks until the connection is back, the session is lost or
// ctx ends.
func (s *Session) waitConnected(ctx context.Context) error {
	s.mu.Lock()
	ch := s.connected
	s.mu.Unlock()
	select {
	case <-ch:
		return s.alive()
	case <-s.done:
		return s.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}
