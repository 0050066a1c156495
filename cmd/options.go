package cmd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/cmd/config"
	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/zksasl"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	server         string
	readonly       bool
	readonlyFlag   bool // --readonly itself, before a context made it so
	auth           string
	sessionTimeout time.Duration
	// memberTimeout bounds each question to one member (--member-timeout):
	// a member that does not answer costs it once, in parallel.
	memberTimeout time.Duration
	// adminURLs are the members' AdminServers (--admin-url, $ZKX_ADMIN_URL);
	// adminPort is where one is looked for on a member that refuses the
	// four-letter words (0: not looked for).
	adminURLs []string
	adminPort int
	// contextName and context are the selected context of the contexts
	// file; nil when none.
	contextName string
	context     *config.Context
	// tls is the TLS configuration of every connection; nil for plain.
	tls *tls.Config
	// sasl authenticates every connection; nil for none.
	sasl *zksasl.Config
	// contextsWarning says the contexts file holds a password others may
	// read ("" when it does not), said once by resolve.
	contextsWarning string
	// raw are the global flags as given, to resolve another context later
	// (zkx diff's CONTEXT:/path, the explorer's :ctx).
	raw rawGlobals
}

// defaultServer is where zkx connects when nothing says otherwise.
const defaultServer = "127.0.0.1:2181"

// defaultSessionTimeout is the ZooKeeper session timeout asked for.
const defaultSessionTimeout = 10 * time.Second

// authEnv holds the credentials when --auth is not given.
const authEnv = "ZKX_AUTH"

// connect parses --server.
func (g *globalOptions) connect() (connstr.ConnectString, error) {
	cs, err := connstr.Parse(g.server)
	if err != nil {
		return cs, fmt.Errorf("--server: %w", err)
	}
	return cs, nil
}

// sessionOptions turns the global flags into session options. --auth was
// checked by checkAuth when the flags were parsed.
func (g *globalOptions) sessionOptions() []recipes.SessionOption {
	opts := []recipes.SessionOption{recipes.WithSessionTimeout(g.sessionTimeout)}
	if g.tls != nil {
		opts = append(opts, recipes.WithTLS(g.tls))
	}
	if g.sasl != nil {
		opts = append(opts, recipes.WithConnWrap(g.sasl.Wrap()))
	}
	if scheme, creds, ok := g.authParts(); ok {
		opts = append(opts, recipes.WithAuth(scheme, creds))
	}
	return opts
}

// authParts splits --auth into scheme and credentials; ok is false when
// there are none.
func (g *globalOptions) authParts() (scheme string, creds []byte, ok bool) {
	if g.auth == "" {
		return "", nil, false
	}
	scheme, rest, _ := strings.Cut(g.auth, ":")
	return scheme, []byte(rest), true
}

// checkAuth validates --auth without ever echoing the credentials.
func checkAuth(auth string) error {
	if auth == "" {
		return nil
	}
	scheme, creds, ok := strings.Cut(auth, ":")
	if !ok || scheme == "" || creds == "" {
		return fmt.Errorf("--auth wants scheme:credentials, e.g. digest:user:password")
	}
	if scheme == "digest" && !strings.Contains(creds, ":") {
		return fmt.Errorf("--auth digest wants digest:user:password")
	}
	return nil
}

// checkPath validates a znode path given on the command line.
func checkPath(p string) (string, error) { return zkview.CheckPath(p) }

// timedOut names --timeout in an error that its deadline caused, so that a
// user sees which limit ended the command.
func timedOut(err error, timeout time.Duration) error {
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("--timeout %v reached: %w", timeout, err)
	}
	return err
}

// dial connects zkview to --server with the global options.
func (g *globalOptions) dial(ctx context.Context) (*zkview.Client, error) {
	return zkview.Dial(ctx, g.server, g.viewOptions()...)
}

func (g *globalOptions) viewOptions() []zkview.Option {
	opts := []zkview.Option{zkview.WithSessionTimeout(g.sessionTimeout), zkview.WithMemberTimeout(g.memberTimeout)}
	if g.tls != nil {
		opts = append(opts, zkview.WithTLS(g.tls))
	}
	if g.sasl != nil {
		opts = append(opts, zkview.WithConnWrap(g.sasl.Wrap()))
	}
	if g.readonly {
		opts = append(opts, zkview.WithReadOnly())
	}
	if scheme, creds, ok := g.authParts(); ok {
		opts = append(opts, zkview.WithAuth(scheme, creds))
	}
	return opts
}

// dialBulk opens n connections for reading a large tree: batched
// (multiRead) unless batch is false or the server cannot, else a session
// per connection.
func (g *globalOptions) dialBulk(ctx context.Context, n int, batch bool) (zkview.BulkReader, error) {
	if !batch {
		return zkview.DialPool(ctx, g.server, n, g.viewOptions()...)
	}
	return zkview.DialBulk(ctx, g.server, n, g.viewOptions()...)
}

// batchFlagHelp is the help of --batch, on every command that walks.
const batchFlagHelp = "read many nodes per request (multiRead, ZooKeeper 3.6+; older servers are read node by node anyway)"
