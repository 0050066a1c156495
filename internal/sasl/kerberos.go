package sasl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/types"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// KerberosOptions say where a login's credentials are.
type KerberosOptions struct {
	// Principal is NAME[/INSTANCE][@REALM] (the default realm of the
	// configuration when none). With a keytab it defaults to the
	// keytab's first; with a credential cache, it must be the cache's.
	Principal string
	// Keytab, when set, logs in with its key (and again before the
	// ticket expires); else the credential cache is used.
	Keytab string
	// CCache is the credential cache ($KRB5CCNAME's syntax: FILE:path
	// or a path); "" is $KRB5CCNAME, else /tmp/krb5cc_UID.
	CCache string
	// Krb5Conf is the configuration; "" is $KRB5_CONFIG (its first
	// file that exists), else /etc/krb5.conf. gokrb5 reads neither
	// variable by itself.
	Krb5Conf string
}

// Kerberos is a login that GSSAPI exchanges take service tickets from.
type Kerberos struct {
	principal string
	conf      *config.Config
	keytab    bool

	mu          sync.Mutex
	client      *client.Client
	ccache      string    // the cache file, when from one
	ccacheMTime time.Time // when it was read: a kinit since is picked up
	expires     time.Time // the cache's ticket-granting ticket's end
}

// NewKerberos reads the configuration and the credentials and, with a
// keytab, logs in (so a wrong key or unknown principal fails here, named).
func NewKerberos(o KerberosOptions) (*Kerberos, error) {
	confPath := krb5ConfPath(o.Krb5Conf)
	conf, err := loadConfig(confPath)
	if err != nil {
		return nil, fmt.Errorf("Kerberos configuration %s: %w", confPath, err)
	}
	k := &Kerberos{conf: conf}
	if o.Keytab != "" {
		if err := k.loginKeytab(o.Principal, o.Keytab); err != nil {
			return nil, err
		}
		return k, nil
	}
	if k.ccache, err = ccachePath(o.CCache); err != nil {
		return nil, err
	}
	if err := k.loadCCache(); err != nil {
		return nil, err
	}
	if o.Principal != "" && !samePrincipal(o.Principal, k.principal, conf.LibDefaults.DefaultRealm) {
		return nil, fmt.Errorf("--principal %s, but the credential cache %s holds %s's tickets (kinit %s, or give --keytab)", o.Principal, k.ccache, k.principal, o.Principal)
	}
	return k, nil
}

// Principal is the client principal, NAME@REALM.
func (k *Kerberos) Principal() string { return k.principal }

func (k *Kerberos) loginKeytab(principal, path string) error {
	kt := keytab.New()
	b, err := fileread.ReadFile(path)
	if err == nil {
		err = kt.Unmarshal(b)
	}
	if err != nil {
		return fmt.Errorf("keytab %s: %w", path, err)
	}
	if principal == "" {
		if len(kt.Entries) == 0 {
			return fmt.Errorf("keytab %s holds no keys", path)
		}
		p := kt.Entries[0].Principal
		principal = strings.Join(p.Components, "/") + "@" + p.Realm
	}
	name, realm := splitPrincipal(principal, k.conf.LibDefaults.DefaultRealm)
	if realm == "" {
		return fmt.Errorf("principal %s has no realm, and %s names no default_realm", principal, "the Kerberos configuration")
	}
	k.principal, k.keytab = name+"@"+realm, true
	// Pre-authentication without a first refused try; FAST off, as MIT's
	// kinit does by default.
	cl := client.NewWithKeytab(name, realm, kt, k.conf, client.DisablePAFXFAST(true))
	if err := cl.Login(); err != nil {
		return fmt.Errorf("Kerberos login of %s with keytab %s: %w", k.principal, path, explainKRB(err))
	}
	// gokrb5 renews the ticket of a keytab login by itself, before it
	// expires, so a long session's reconnects keep authenticating.
	k.client = cl
	return nil
}

// loadCCache (re)reads the credential cache.
func (k *Kerberos) loadCCache() error {
	info, err := os.Stat(k.ccache)
	if err != nil {
		return fmt.Errorf("no Kerberos credential cache: %w (run kinit, or give --keytab)", err)
	}
	cc := new(credentials.CCache)
	b, err := fileread.ReadFile(k.ccache)
	if err == nil {
		err = cc.Unmarshal(b)
	}
	if err != nil {
		return fmt.Errorf("Kerberos credential cache %s: %w", k.ccache, err)
	}
	cl, err := client.NewFromCCache(cc, k.conf, client.DisablePAFXFAST(true))
	if err != nil {
		return fmt.Errorf("Kerberos credential cache %s: %w (run kinit)", k.ccache, err)
	}
	tgt, _ := cc.GetEntry(types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: []string{"krbtgt", cc.DefaultPrincipal.Realm}})
	k.client, k.ccacheMTime = cl, info.ModTime()
	k.principal = strings.Join(cc.DefaultPrincipal.PrincipalName.NameString, "/") + "@" + cc.DefaultPrincipal.Realm
	k.expires = tgt.EndTime
	return k.checkExpiry()
}

func (k *Kerberos) checkExpiry() error {
	if k.keytab || k.expires.IsZero() || time.Now().Before(k.expires) {
		return nil
	}
	return &ExpiredError{Principal: k.principal, CCache: k.ccache, At: k.expires}
}

// ExpiredError is a credential cache whose ticket has expired.
type ExpiredError struct {
	Principal, CCache string
	At                time.Time
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("the Kerberos ticket of %s in %s expired at %s (run kinit again, or give --keytab so that zkx logs in by itself)",
		e.Principal, e.CCache, e.At.Local().Format(time.DateTime))
}

// serviceTicket returns a ticket for service/host, re-reading a
// credential cache that changed since (a kinit renewed it) and naming an
// expired one.
func (k *Kerberos) serviceTicket(spn string) (*client.Client, ticket, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.keytab {
		if info, err := os.Stat(k.ccache); err == nil && !info.ModTime().Equal(k.ccacheMTime) {
			if err := k.loadCCache(); err != nil {
				return nil, ticket{}, err
			}
		}
		if err := k.checkExpiry(); err != nil {
			return nil, ticket{}, err
		}
	}
	tkt, key, err := k.client.GetServiceTicket(spn)
	if err != nil {
		return nil, ticket{}, fmt.Errorf("a Kerberos ticket for %s: %w", spn, explainKRB(err))
	}
	return k.client, ticket{tkt: tkt, key: key}, nil
}

// explainKRB adds what a KDC's refusal usually means.
func explainKRB(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "KDC_ERR_S_PRINCIPAL_UNKNOWN"):
		return fmt.Errorf("the KDC does not know the server's principal (is the host written as in its principal? is --sasl-service right?): %w", err)
	case strings.Contains(msg, "KDC_ERR_C_PRINCIPAL_UNKNOWN"):
		return fmt.Errorf("the KDC does not know this principal: %w", err)
	case strings.Contains(msg, "KDC_ERR_PREAUTH_FAILED"), strings.Contains(msg, "Decrypting_Error"), strings.Contains(msg, "integrity verification"):
		return fmt.Errorf("wrong key (the keytab is out of date with the KDC?): %w", err)
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "no KDC"):
		return fmt.Errorf("no KDC answered (see the realm's kdc lines in the Kerberos configuration): %w", err)
	}
	return err
}

// krb5ConfPath is the configuration to read: given, $KRB5_CONFIG's first
// existing file, or /etc/krb5.conf.
func krb5ConfPath(given string) string {
	if given != "" {
		return given
	}
	for _, p := range filepath.SplitList(os.Getenv("KRB5_CONFIG")) {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "/etc/krb5.conf"
}

// ccachePath is the cache file: given or $KRB5CCNAME (FILE: or a plain
// path; other cache types are not files zkx can read), else MIT's default.
func ccachePath(given string) (string, error) {
	name := first(given, os.Getenv("KRB5CCNAME"))
	if name == "" {
		return fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid()), nil
	}
	if kind, _, ok := strings.Cut(name, ":"); ok && kind != "FILE" && !strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("credential cache %s: %w", name, errNoCCacheType)
	}
	return strings.TrimPrefix(name, "FILE:"), nil
}

func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// splitPrincipal splits NAME@REALM, the realm defaulting to realm.
func splitPrincipal(p, realm string) (name, r string) {
	if i := strings.LastIndex(p, "@"); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, realm
}

func samePrincipal(a, b, realm string) bool {
	an, ar := splitPrincipal(a, realm)
	bn, br := splitPrincipal(b, realm)
	return an == bn && ar == br
}

// errNoCCacheType is a $KRB5CCNAME of a type that is not a file.
var errNoCCacheType = errors.New("only FILE: credential caches can be read (KEYRING:, KCM: and DIR: caches cannot): kinit -c FILE:/path, or give --keytab")

// loadConfig reads a krb5.conf (gokrb5's config.Load, through a file that
// must be a regular one).
func loadConfig(path string) (*config.Config, error) {
	f, err := fileread.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return config.NewFromReader(f)
}
