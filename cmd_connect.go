package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview"
)

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
	if g.auth != "" {
		scheme, creds, _ := strings.Cut(g.auth, ":")
		opts = append(opts, recipes.WithAuth(scheme, []byte(creds)))
	}
	return opts
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
