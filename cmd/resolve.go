package cmd

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/config"
	"github.com/zkx-dev/zkx/internal/zktls"
)

// rawGlobals are global flags read before they become options.
type rawGlobals struct {
	adminURLs string
	context   string
	config    string
	tls       zktls.Files
	sasl      saslFlags
}

// resolve settles every global option once the flags are parsed: a flag
// given wins, then the selected context of the contexts file, then the
// environment, then the default. It also checks them.
func (g *globalOptions) resolve(cmd *cobra.Command, raw rawGlobals) error {
	g.raw, g.readonlyFlag = raw, g.readonly
	err := g.resolveWith(cmd.Flags().Changed, raw)
	warnExposedSecret(cmd, g.contextsWarning)
	return err
}

// warnExposedSecret says on stderr that the contexts file holds a
// password others may read (config.File.ExposedSecret), when it does.
func warnExposedSecret(cmd *cobra.Command, warning string) {
	if warning != "" {
		warnf(cmd.ErrOrStderr(), "%s", warning)
	}
}

// forContext returns the options as if the command line had named context
// name and no connection flag (server, credentials, TLS, SASL, AdminServers,
// session timeout): everything comes from that context, then the
// environment, then the defaults. --readonly given on the command line
// still holds: read-only never loosens. The contexts file is the one
// this command read.
func (g *globalOptions) forContext(name string) (*globalOptions, error) {
	raw := rawGlobals{context: name, config: g.raw.config}
	out := &globalOptions{readonly: g.readonlyFlag, readonlyFlag: g.readonlyFlag, sessionTimeout: defaultSessionTimeout,
		memberTimeout: g.memberTimeout, adminPort: defaultAdminPort, raw: raw}
	onCommandLine := func(flag string) bool { return flag == "config" && raw.config != "" }
	if err := out.resolveWith(onCommandLine, raw); err != nil {
		return nil, fmt.Errorf("context %s: %w", name, err)
	}
	if out.contextName != name {
		return nil, fmt.Errorf("no context %q", name)
	}
	return out, nil
}

// contextNames lists the contexts of the contexts file this command read.
func (g *globalOptions) contextNames() ([]string, error) {
	f, err := g.contextsFile()
	if err != nil {
		return nil, err
	}
	return f.Names(), nil
}

// contextsFile reads the contexts file again (it may have changed since
// the command started: the explorer lists it on each :ctx).
func (g *globalOptions) contextsFile() (*config.File, error) {
	path := g.raw.config
	if path == "" {
		path = config.DefaultPath()
	}
	return config.Load(path, g.raw.config != "")
}

func (g *globalOptions) resolveWith(given func(string) bool, raw rawGlobals) error {
	path := raw.config
	if path == "" {
		path = config.DefaultPath()
	}
	file, err := config.Load(path, given("config"))
	if err != nil {
		return err
	}
	g.contextsWarning = file.ExposedSecret()
	name, ctx, err := file.Select(raw.context)
	if err != nil {
		return fmt.Errorf("--context: %w", err)
	}
	g.contextName, g.context = name, ctx
	noContext := &config.Context{}
	if ctx == nil {
		ctx = noContext
	}

	if !given("server") {
		g.server = first(ctx.Server, os.Getenv(serversEnv), defaultServer)
	}
	if ctx.Chroot != "" && !given("server") && !strings.Contains(g.server, "/") {
		g.server += ctx.Chroot
	}
	g.readonly = g.readonly || ctx.ReadOnly
	if !given("session-timeout") && ctx.SessionTimeout > 0 {
		g.sessionTimeout = time.Duration(ctx.SessionTimeout)
	}
	if g.sessionTimeout <= 0 {
		return fmt.Errorf("--session-timeout must be positive")
	}
	if g.memberTimeout <= 0 {
		return fmt.Errorf("--member-timeout must be positive")
	}

	// What the environment holds for one ensemble — credentials, client
	// certificates, AdminServer URLs (which may carry a password) — goes
	// only where no context is chosen: a context names its own, so that
	// production's never reach another ensemble.
	ensembleEnv := func(name string) string {
		if ctx != noContext {
			return ""
		}
		return os.Getenv(name)
	}

	adminURLs := raw.adminURLs
	if !given("admin-url") {
		adminURLs = first(strings.Join(ctx.AdminURLs, ","), ensembleEnv(adminURLEnv))
	}
	g.adminURLs = splitList(adminURLs)
	if !given("admin-port") && ctx.AdminPort > 0 {
		g.adminPort = ctx.AdminPort
	}
	if g.adminPort < 0 || g.adminPort > 65535 {
		return fmt.Errorf("--admin-port %d is not a port", g.adminPort)
	}

	if err := g.resolveTLS(given, raw.tls, ctx.TLS, ensembleEnv); err != nil {
		return err
	}
	if err := g.resolveSASL(given, raw.sasl, ctx.SASL, name, ensembleEnv); err != nil {
		return err
	}

	// Credentials: never echoed, so an error names where they came from.
	from := "--auth"
	if !given("auth") {
		switch {
		case ctx.Auth != "":
			g.auth, from = ctx.Auth, "context "+name+"'s auth"
		case ctx.AuthEnv != "":
			g.auth, from = os.Getenv(ctx.AuthEnv), "$"+ctx.AuthEnv+" (context "+name+"'s auth-env)"
			if g.auth == "" {
				return fmt.Errorf("context %s takes its credentials from $%s, which is not set", name, ctx.AuthEnv)
			}
		default:
			g.auth, from = ensembleEnv(authEnv), "$"+authEnv
		}
	}
	if err := checkAuth(g.auth); err != nil {
		if from != "--auth" {
			return fmt.Errorf("%s: %w", from, err)
		}
		return err
	}
	return nil
}

// resolveTLS settles the TLS files, each flag > context > environment
// (env: only where no context is chosen), and loads them once.
func (g *globalOptions) resolveTLS(given func(string) bool, flags zktls.Files, ctx *config.TLS, env func(string) string) error {
	if ctx == nil {
		ctx = &config.TLS{}
	}
	pick := func(flag, flagValue, ctxValue, envName string) string {
		if given(flag) {
			return flagValue
		}
		return first(ctxValue, env(envName))
	}
	files := zktls.Files{
		CA:         pick("tls-ca", flags.CA, ctx.CA, "ZKX_TLS_CA"),
		Cert:       pick("tls-cert", flags.Cert, ctx.Cert, "ZKX_TLS_CERT"),
		Key:        pick("tls-key", flags.Key, ctx.Key, "ZKX_TLS_KEY"),
		ServerName: pick("tls-server-name", flags.ServerName, ctx.ServerName, ""),
	}
	if !files.Enabled() {
		if files.ServerName != "" {
			return fmt.Errorf("--tls-server-name without --tls-ca (or --tls-cert and --tls-key): nothing to check it against")
		}
		return nil
	}
	cfg, err := files.Config()
	if err != nil {
		return err
	}
	g.tls = cfg
	return nil
}

// serversEnv holds the connect string when neither --server nor a
// context gives one.
const serversEnv = "ZK_SERVERS"

// heldTooLong is a command's --held-too-long: the flag when given, else
// the context's, else the flag's default.
func (g *globalOptions) heldTooLong(cmd *cobra.Command, flag time.Duration) time.Duration {
	if !cmd.Flags().Changed("held-too-long") && g.context != nil && g.context.HeldTooLong > 0 {
		return time.Duration(g.context.HeldTooLong)
	}
	return flag
}

// first is the first non-empty value.
func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// displayConfigPath is the contexts file's default path as help shows it.
func displayConfigPath() string {
	if os.Getenv("XDG_CONFIG_HOME") != "" {
		return "$XDG_CONFIG_HOME/zkx/config.yaml"
	}
	return "~/.config/zkx/config.yaml"
}
