package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/internal/config"
)

// rawGlobals are global flags read before they become options.
type rawGlobals struct {
	adminURLs string
	context   string
	config    string
}

// resolve settles every global option once the flags are parsed: a flag
// given wins, then the selected context of the contexts file, then the
// environment, then the default. It also checks them.
func (g *globalOptions) resolve(cmd *cobra.Command, raw rawGlobals) error {
	given := cmd.Flags().Changed
	path := raw.config
	if path == "" {
		path = config.DefaultPath()
	}
	file, err := config.Load(path, given("config"))
	if err != nil {
		return err
	}
	name, ctx, err := file.Select(raw.context)
	if err != nil {
		return fmt.Errorf("--context: %w", err)
	}
	g.contextName, g.context = name, ctx
	if ctx == nil {
		ctx = &config.Context{}
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

	adminURLs := raw.adminURLs
	if !given("admin-url") {
		adminURLs = first(strings.Join(ctx.AdminURLs, ","), os.Getenv(adminURLEnv))
	}
	g.adminURLs = splitList(adminURLs)
	if !given("admin-port") && ctx.AdminPort > 0 {
		g.adminPort = ctx.AdminPort
	}
	if g.adminPort < 0 || g.adminPort > 65535 {
		return fmt.Errorf("--admin-port %d is not a port", g.adminPort)
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
			g.auth, from = os.Getenv(authEnv), "$"+authEnv
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
