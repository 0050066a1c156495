package cmd

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/internal/zktls"
)

func newServeCommand(raw *rawGlobals) *cobra.Command {
	var (
		listen, secureListen string
		cfg                  zkserver.Config
		verbose              bool
		saslUsers            string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded ZooKeeper-compatible server until interrupted",
		Long: `serve runs zkx's embedded, in-memory, single-node ZooKeeper-compatible server.
Any ZooKeeper client (zkCli.sh, Curator, Kazoo, go-zookeeper) can use it. Its state
lives in memory and is gone when it stops. It is meant for demos and tests; use a
real ZooKeeper ensemble for anything that matters.`,
		Example: `  zkx serve
  zkx serve --listen 127.0.0.1:2182 --tick 100ms
  zkx serve --secure-listen 127.0.0.1:2281 --tls-cert server.pem --tls-key server-key.pem --tls-ca ca.pem
  zkx serve --sasl-users users.txt --sasl-required`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelInfo
			if verbose {
				level = slog.LevelDebug
			}
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			cfg.Logger = logger
			if warning := exposureWarning(listen); warning != "" {
				logger.Warn(warning)
			}
			if saslUsers != "" {
				users, err := readSASLUsers(saslUsers)
				if err != nil {
					return fmt.Errorf("--sasl-users: %w", err)
				}
				cfg.SASLUsers = users
			} else if cfg.SASLRequired {
				return fmt.Errorf("--sasl-required without --sasl-users: no one could authenticate")
			}
			var tlsCfg *tls.Config
			if secureListen != "" {
				var err error
				// The flags name the server's certificate here, and the CA
				// its clients' certificates must be signed by.
				if tlsCfg, err = (zktls.ServerFiles{Cert: raw.tls.Cert, Key: raw.tls.Key, CA: raw.tls.CA}).Config(); err != nil {
					return fmt.Errorf("--secure-listen: %w", err)
				}
				if warning := exposureWarning(secureListen); warning != "" {
					logger.Warn(warning)
				}
			}
			// Before anything says it is listening: a SIGTERM right after
			// the announcement must stop the server cleanly, not kill it.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			srv, err := zkserver.Start(listen, cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "zkx embedded ZooKeeper server listening on %s (Ctrl-C to stop)\n", srv.ConnectString())
			if len(cfg.SASLUsers) > 0 {
				required := ""
				if cfg.SASLRequired {
					required = ", required of every session"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "SASL DIGEST-MD5 for %d users%s\n", len(cfg.SASLUsers), required)
			}
			if tlsCfg != nil {
				addr, err := srv.ListenTLS(secureListen, tlsCfg)
				if err != nil {
					srv.Close()
					return err
				}
				mtls := ""
				if tlsCfg.ClientCAs != nil {
					mtls = ", client certificates required"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "and TLS on %s%s\n", addr, mtls)
			}
			<-ctx.Done()
			logger.Info("stopping")
			return srv.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:2181", "address to listen on (host:port; port 0 picks a free one)")
	f.DurationVar(&cfg.TickTime, "tick", 2*time.Second, "ZooKeeper tick time")
	f.DurationVar(&cfg.MinSessionTimeout, "min-session-timeout", 0, "smallest session timeout granted (default 2 ticks)")
	f.DurationVar(&cfg.MaxSessionTimeout, "max-session-timeout", 0, "largest session timeout granted (default 20 ticks)")
	f.StringVar(&secureListen, "secure-listen", "", "also serve TLS on this address, as ZooKeeper's secureClientPort (with --tls-cert, --tls-key, and --tls-ca to require client certificates)")
	f.BoolVar(&verbose, "verbose", false, "log every session")
	f.StringVar(&saslUsers, "sasl-users", "", "accept SASL DIGEST-MD5 from the users of this file: lines of user:password, or a ZooKeeper JAAS file's user_NAME=\"password\" entries")
	f.BoolVar(&cfg.SASLRequired, "sasl-required", false, "close any session that has not authenticated with SASL (ZooKeeper's sessionRequireClientSASLAuth)")
	cmd.SetContext(context.Background())
	return cmd
}

// exposureWarning warns when the server would accept connections from other
// hosts: it has no authentication of its own beyond ZooKeeper's ACLs.
func exposureWarning(listen string) string {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() || host == "localhost" {
		return ""
	}
	return fmt.Sprintf("listening on %s accepts connections from other hosts: anyone who can reach it can read and change its data", listen)
}
