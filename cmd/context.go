package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/cmd/config"
	"github.com/zkx-dev/zkx/internal/display"
)

// newContextCommand manages the contexts file, as kubectl config does.
func newContextCommand(raw *rawGlobals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "List, show and choose the named contexts of the contexts file",
		Long: `A context names an ensemble and what it takes to open it: the connect string and
chroot, credentials (best as the name of the environment variable that holds them,
auth-env), TLS and SASL files, AdminServer URLs or port, read-only, held-too-long.
--context NAME uses one; without it the file's current-context is used. A flag given
on the command line wins over the context. Credentials are per ensemble: a context
presents only those it names (auth, auth-env, sasl.password-env, tls); $ZKX_AUTH,
$ZKX_SASL_PASSWORD, $ZKX_TLS_* and $ZKX_ADMIN_URL apply only where no context is chosen
(a context takes $ZKX_AUTH by naming it: auth-env: ZKX_AUTH).

The file is ` + displayConfigPath() + ` (--config picks another):

  current-context: prod
  contexts:
    prod:
      server: zk1:2181,zk2:2181,zk3:2181
      chroot: /app
      auth-env: ZKX_PROD_AUTH        # digest:user:password, from the environment
      readonly: true
      held-too-long: 5m
      admin-urls: [http://zk1:8080/commands, http://zk2:8080/commands, http://zk3:8080/commands]
      tls: {ca: /etc/zk/ca.pem, cert: /etc/zk/client.pem, key: /etc/zk/client-key.pem}
    staging:
      server: zk-staging:2181`,
		Args: cobra.NoArgs,
		// The context commands read and write the file themselves: they
		// must work when the current context cannot be used (its
		// credentials' variable unset, its TLS files missing), since
		// choosing another is how one mends that.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the contexts; * marks the current one",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := loadContexts(cmd, raw)
			if err != nil {
				return err
			}
			if len(f.Contexts) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "zkx: %s has no contexts (zkx context --help shows the format)\n", f.Path)
				return nil
			}
			t := cliout.NewTable(cmd.OutOrStdout())
			st := cliout.NewStyles(cmd.OutOrStdout())
			t.Row(st.Header("CURRENT"), st.Header("NAME"), st.Header("SERVER"))
			for _, name := range f.Names() {
				mark := ""
				if name == f.Current {
					mark = "*"
				}
				t.Row(mark, cliout.Clean(name), cliout.Clean(f.Contexts[name].Server+f.Contexts[name].Chroot))
			}
			return t.Flush()
		},
	}
	use := &cobra.Command{
		Use:   "use NAME",
		Short: "Make NAME the current context",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := contextsPath(raw)
			if err := config.SetCurrent(path, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "current context: %s\n", cliout.Clean(args[0]))
			return nil
		},
	}
	show := &cobra.Command{
		Use:   "show [NAME]",
		Short: "Show a context (the current one by default); secrets are never shown",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := loadContexts(cmd, raw)
			if err != nil {
				return err
			}
			want := raw.context
			if len(args) == 1 {
				want = args[0]
			}
			name, c, err := f.Select(want)
			if err != nil {
				return err
			}
			if c == nil {
				return fmt.Errorf("no current context in %s: name one (zkx context show NAME) or choose one (zkx context use NAME)", f.Path)
			}
			b, err := config.Show(c)
			if err != nil {
				return err
			}
			// YAML leaves bidi overrides and zero-width runes as they are.
			fmt.Fprintf(cmd.OutOrStdout(), "# context %s\n%s", cliout.Clean(name), display.Text(string(b)))
			return nil
		},
	}
	cmd.AddCommand(list, use, show)
	return cmd
}

// contextsPath is --config, or the default contexts file.
func contextsPath(raw *rawGlobals) string {
	if raw.config != "" {
		return raw.config
	}
	return config.DefaultPath()
}

func loadContexts(cmd *cobra.Command, raw *rawGlobals) (*config.File, error) {
	f, err := config.Load(contextsPath(raw), cmd.Flags().Changed("config"))
	if err == nil {
		warnExposedSecret(cmd, f.ExposedSecret())
	}
	return f, err
}
