package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/zkx-dev/zkx/cmd/config"
	"github.com/zkx-dev/zkx/internal/sasl"
	"github.com/zkx-dev/zkx/internal/zksasl"
)

// saslPasswordEnv holds the DIGEST-MD5 password: never a flag, which the
// process list would show.
const saslPasswordEnv = "ZKX_SASL_PASSWORD"

// saslFlags are the SASL flags as given.
type saslFlags struct {
	mechanism, user, principal, keytab, krb5Conf, service string
}

func (f *saslFlags) register(pf *pflag.FlagSet) {
	pf.StringVar(&f.mechanism, "sasl", "", "authenticate every connection with SASL: DIGEST-MD5 or GSSAPI (Kerberos)")
	pf.StringVar(&f.user, "sasl-user", "", "the DIGEST-MD5 user; the password is read from $"+saslPasswordEnv+" (never a flag)")
	pf.StringVar(&f.principal, "principal", "", "the GSSAPI client principal NAME@REALM (default: the credential cache's)")
	pf.StringVar(&f.keytab, "keytab", "", "the keytab holding --principal's key (default: the credential cache in $KRB5CCNAME)")
	pf.StringVar(&f.krb5Conf, "krb5-conf", "", "the Kerberos configuration (default: $KRB5_CONFIG, else /etc/krb5.conf)")
	pf.StringVar(&f.service, "sasl-service", "zookeeper", "the GSSAPI service: servers are service/HOST@REALM, HOST as the connect string writes it")
}

// resolveSASL settles the SASL options, each flag > context > default,
// and logs into Kerberos for GSSAPI. Nothing of a password is echoed.
// $ZKX_SASL_PASSWORD (read through env, empty where a context is chosen)
// is the password of --sasl given on the command line, or of no context;
// a context's DIGEST-MD5 names its own variable.
func (g *globalOptions) resolveSASL(given func(string) bool, f saslFlags, ctx *config.SASL, contextName string, env func(string) string) error {
	if ctx == nil {
		ctx = &config.SASL{}
	}
	pick := func(flag, flagValue, ctxValue string) string {
		if given(flag) {
			return flagValue
		}
		return first(ctxValue, flagValue)
	}
	mech := strings.ToUpper(pick("sasl", f.mechanism, ctx.Mechanism))
	user := pick("sasl-user", f.user, ctx.User)
	principal := pick("principal", f.principal, ctx.Principal)
	keytab := pick("keytab", f.keytab, ctx.Keytab)
	krb5Conf := pick("krb5-conf", f.krb5Conf, ctx.Krb5Conf)
	service := pick("sasl-service", f.service, ctx.Service)
	if mech == "" {
		for flag, v := range map[string]string{"sasl-user": user, "principal": principal, "keytab": keytab} {
			if given(flag) && v != "" {
				return fmt.Errorf("--%s without --sasl DIGEST-MD5 or --sasl GSSAPI", flag)
			}
		}
		return nil
	}
	cfg := &zksasl.Config{Mechanism: mech, User: user, Service: service}
	switch mech {
	case zksasl.DigestMD5:
		switch {
		case ctx.PasswordEnv != "":
			if cfg.Password = os.Getenv(ctx.PasswordEnv); cfg.Password == "" {
				return fmt.Errorf("SASL DIGEST-MD5 needs the password in $%s (context %s's sasl.password-env), which is not set", ctx.PasswordEnv, contextName)
			}
		case given("sasl"):
			cfg.Password = os.Getenv(saslPasswordEnv)
		default:
			cfg.Password = env(saslPasswordEnv)
		}
		if cfg.Password == "" && ctx.PasswordEnv == "" {
			if contextName != "" && !given("sasl") {
				return fmt.Errorf("context %s uses SASL DIGEST-MD5 but names no password variable: add sasl.password-env (zkx reads $%s only without a context, or with --sasl)", contextName, saslPasswordEnv)
			}
			return fmt.Errorf("SASL DIGEST-MD5 needs the password in $%s, which is not set", saslPasswordEnv)
		}
	case zksasl.GSSAPI:
		login, err := sasl.NewKerberos(sasl.KerberosOptions{Principal: principal, Keytab: keytab, Krb5Conf: krb5Conf})
		if err != nil {
			return err
		}
		cfg.Kerberos = login
	}
	if err := cfg.Check(); err != nil {
		return err
	}
	g.sasl = cfg
	return nil
}
