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
func (g *globalOptions) resolveSASL(given func(string) bool, f saslFlags, ctx *config.SASL, contextName string) error {
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
		env := first(ctx.PasswordEnv, saslPasswordEnv)
		cfg.Password = os.Getenv(env)
		if cfg.Password == "" {
			where := ""
			if ctx.PasswordEnv != "" {
				where = " (context " + contextName + "'s sasl.password-env)"
			}
			return fmt.Errorf("SASL DIGEST-MD5 needs the password in $%s%s, which is not set", env, where)
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
