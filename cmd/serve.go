package cmd

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
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
		fourLetterWords      string
		maxTree              = byteSize(defaultMaxTree)
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded ZooKeeper-compatible server until interrupted",
		Long: `serve runs zkx's embedded, in-memory, single-node ZooKeeper-compatible server.
Any ZooKeeper client (zkCli.sh, Curator, Kazoo, go-zookeeper) can use it. Its state
lives in memory and is gone when it stops. It is meant for demos and tests; use a
real ZooKeeper ensemble for anything that matters.

It listens on loopback unless told otherwise, and warns of any other address
(every interface: "", ":2181", 0.0.0.0, [::]): it has no authentication of its own
beyond ZooKeeper's ACLs and SASL. --listen none with --secure-listen serves TLS
only, as a ZooKeeper with a secureClientPort and no clientPort.

Its defaults are ZooKeeper's where ZooKeeper has them: 60 connections from one
address (--max-client-cnxns, maxClientCnxns; one more is closed unanswered) and
only srvr of the four-letter words (--4lw-whitelist, 4lw.commands.whitelist;
'*' for all). Beyond ZooKeeper, the tree is bounded (--max-tree-size: paths, data
and about 256 bytes a node; a create or setData past it is refused with
QUOTAEXCEEDED, error -125, as a ZooKeeper refuses a write past an enforced quota)
and so are the watches of all sessions together (--max-watches: a read that would
set one more is refused, not executed, with THROTTLEDOP, error -127). 0 lifts a
bound.`,
		Example: `  zkx serve
  zkx serve --listen 127.0.0.1:2182 --tick 100ms
  zkx serve --4lw-whitelist '*' --max-client-cnxns 0          # every word, no connection bound
  zkx serve --secure-listen 127.0.0.1:2281 --tls-cert server.pem --tls-key server-key.pem --tls-ca ca.pem
  zkx serve --listen none --secure-listen 127.0.0.1:2281 --tls-cert server.pem --tls-key server-key.pem
  zkx serve --sasl-users users.txt --sasl-required`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelInfo
			if verbose {
				level = slog.LevelDebug
			}
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			cfg.Logger = logger
			cfg.FourLetterWords = fourLetterWhitelist(fourLetterWords)
			cfg.MaxTreeBytes = int64(maxTree)
			if cfg.MaxClientCnxns < 0 || cfg.MaxWatches < 0 {
				return fmt.Errorf("--max-client-cnxns and --max-watches are counts: 0 or more")
			}
			plain := listen != listenNone
			if !plain && secureListen == "" {
				return fmt.Errorf("--listen none serves TLS only: it needs --secure-listen (and --tls-cert, --tls-key)")
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
			}
			// Before anything says it is listening: a SIGTERM right after
			// the announcement must stop the server cleanly, not kill it.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var srv *zkserver.Server
			if plain {
				var err error
				if srv, err = zkserver.Start(listen, cfg); err != nil {
					return err
				}
				warnExposure(logger, srv.Addr())
				fmt.Fprintf(cmd.OutOrStdout(), "zkx embedded ZooKeeper server listening on %s (Ctrl-C to stop)\n", srv.ConnectString())
			} else {
				srv = zkserver.New(cfg)
			}
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
				warnExposure(logger, addr)
				mtls := ""
				if tlsCfg.ClientCAs != nil {
					mtls = ", client certificates required"
				}
				if plain {
					fmt.Fprintf(cmd.OutOrStdout(), "and TLS on %s%s\n", addr, mtls)
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "zkx embedded ZooKeeper server listening on %s (TLS only%s; Ctrl-C to stop)\n", addr, mtls)
				}
			}
			<-ctx.Done()
			logger.Info("stopping")
			return srv.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:2181", "address to listen on (host:port; port 0 picks a free one); --listen none with --secure-listen serves TLS only")
	f.DurationVar(&cfg.TickTime, "tick", 2*time.Second, "ZooKeeper tick time")
	f.DurationVar(&cfg.MinSessionTimeout, "min-session-timeout", 0, "smallest session timeout granted (default 2 ticks)")
	f.DurationVar(&cfg.MaxSessionTimeout, "max-session-timeout", 0, "largest session timeout granted (default 20 ticks)")
	f.StringVar(&secureListen, "secure-listen", "", "also serve TLS on this address, as ZooKeeper's secureClientPort (with --tls-cert, --tls-key, and --tls-ca to require client certificates)")
	f.BoolVar(&verbose, "verbose", false, "log every session")
	f.StringVar(&saslUsers, "sasl-users", "", "accept SASL DIGEST-MD5 from the users of this file: lines of user:password, or a ZooKeeper JAAS file's user_NAME=\"password\" entries")
	f.BoolVar(&cfg.SASLRequired, "sasl-required", false, "close any session that has not authenticated with SASL (ZooKeeper's sessionRequireClientSASLAuth)")
	f.IntVar(&cfg.MaxClientCnxns, "max-client-cnxns", defaultMaxClientCnxns, "connections accepted from one client address, as ZooKeeper's maxClientCnxns; one more is closed unanswered (0: no bound)")
	f.Var(&maxTree, "max-tree-size", "bound on the tree: paths, data and about 256 bytes a node; a write past it is refused with QUOTAEXCEEDED (0: no bound)")
	f.IntVar(&cfg.MaxWatches, "max-watches", defaultMaxWatches, "bound on the watches of all sessions together; a read that would set one more is refused with THROTTLEDOP (0: no bound)")
	f.StringVar(&fourLetterWords, "4lw-whitelist", "srvr", "the four-letter words answered, as ZooKeeper's 4lw.commands.whitelist: comma-separated, or '*' for all (cons, wchc, dump… show every client's address and watches)")
	return cmd
}

// The bounds zkx serve starts with: ZooKeeper's maxClientCnxns default,
// and room for a demo's or a test's tree and watches many times over.
const (
	defaultMaxClientCnxns = 60
	defaultMaxTree        = 256 << 20
	defaultMaxWatches     = 100_000
)

// listenNone is the --listen that opens no plain port (TLS only).
const listenNone = "none"

// fourLetterWhitelist turns --4lw-whitelist into the server's list: nil
// (every word) for '*', as ZooKeeper reads 4lw.commands.whitelist=*.
func fourLetterWhitelist(words string) []string {
	out := []string{}
	for _, w := range strings.Split(words, ",") {
		w = strings.TrimSpace(w)
		if w == "*" {
			return nil
		}
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// warnExposure warns when the server accepts connections from other
// hosts, judged by the address it actually listens on (an empty host
// listens on every interface): it has no authentication of its own
// beyond ZooKeeper's ACLs.
func warnExposure(logger *slog.Logger, addr net.Addr) {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || tcp.IP.IsLoopback() {
		return
	}
	where := addr.String()
	if tcp.IP.IsUnspecified() {
		where += " (every interface)"
	}
	logger.Warn(fmt.Sprintf("listening on %s accepts connections from other hosts: anyone who can reach it can read and change its data", where))
}
