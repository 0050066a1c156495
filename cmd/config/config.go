package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// File is a contexts file.
type File struct {
	// Path is where the file was read from ("" for none).
	Path string `yaml:"-"`
	// mode is the file's permission bits (0 for none).
	mode fs.FileMode
	// Current is the context used when --context is not given.
	Current  string              `yaml:"current-context,omitempty"`
	Contexts map[string]*Context `yaml:"contexts,omitempty"`
}

// Context is one named way to reach an ensemble. Every field is optional;
// a flag given on the command line wins over it, and it wins over the
// environment.
type Context struct {
	// Server is a connect string: host:port[,host:port...][/chroot].
	Server string `yaml:"server,omitempty"`
	// Chroot is added to Server when Server has none.
	Chroot string `yaml:"chroot,omitempty"`
	// Auth is scheme:credentials (digest:user:password). AuthEnv names
	// the environment variable that holds it instead, which keeps the
	// password out of the file.
	Auth    string `yaml:"auth,omitempty"`
	AuthEnv string `yaml:"auth-env,omitempty"`
	// ReadOnly makes every command of the context read-only.
	ReadOnly bool `yaml:"readonly,omitempty"`
	// HeldTooLong is how long a holder may hold before a warning.
	HeldTooLong Duration `yaml:"held-too-long,omitempty"`
	// SessionTimeout is the ZooKeeper session timeout.
	SessionTimeout Duration `yaml:"session-timeout,omitempty"`
	// AdminURLs are the members' AdminServers; AdminPort the port tried on
	// every member when none is given.
	AdminURLs []string `yaml:"admin-urls,omitempty"`
	AdminPort int      `yaml:"admin-port,omitempty"`
	TLS       *TLS     `yaml:"tls,omitempty"`
	SASL      *SASL    `yaml:"sasl,omitempty"`
}

// TLS are the PEM files of a TLS connection.
type TLS struct {
	CA         string `yaml:"ca,omitempty"`
	Cert       string `yaml:"cert,omitempty"`
	Key        string `yaml:"key,omitempty"`
	ServerName string `yaml:"server-name,omitempty"`
}

// SASL is how a context authenticates with SASL. The password is never
// in the file: PasswordEnv names the variable that holds it.
type SASL struct {
	Mechanism   string `yaml:"mechanism,omitempty"` // DIGEST-MD5 or GSSAPI
	User        string `yaml:"user,omitempty"`
	PasswordEnv string `yaml:"password-env,omitempty"`
	Principal   string `yaml:"principal,omitempty"`
	Keytab      string `yaml:"keytab,omitempty"`
	Krb5Conf    string `yaml:"krb5-conf,omitempty"`
	Service     string `yaml:"service,omitempty"`
}

// Duration is a time.Duration written as Go writes them ("5m", "90s").
type Duration time.Duration

// UnmarshalYAML reads a duration, naming the line of a bad one.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q is not a duration (write it as 90s, 5m, 1h)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes a duration as Go does.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// DefaultPath is $XDG_CONFIG_HOME/zkx/config.yaml, or ~/.config/zkx/config.yaml.
func DefaultPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "zkx", "config.yaml")
}

// Load reads the contexts file at path. A missing file is an empty one
// unless required (the user named it with --config).
func Load(path string, required bool) (*File, error) {
	f := &File{Path: path, Contexts: map[string]*Context{}}
	if path == "" {
		return f, nil
	}
	b, err := fileread.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("contexts file: %w", err)
	}
	if st, err := os.Stat(path); err == nil {
		f.mode = st.Mode().Perm()
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)                                            // a misspelt key is an error, not silently ignored
	if err := dec.Decode(f); err != nil && !errors.Is(err, io.EOF) { // EOF: an empty file
		return nil, fmt.Errorf("contexts file %s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if f.Contexts == nil {
		f.Contexts = map[string]*Context{}
	}
	for name, c := range f.Contexts {
		if c == nil {
			f.Contexts[name] = &Context{}
		}
	}
	if f.Current != "" && f.Contexts[f.Current] == nil {
		return nil, fmt.Errorf("contexts file %s: current-context %q is not one of its contexts (%s)", path, f.Current, strings.Join(f.Names(), ", "))
	}
	return f, nil
}

// Names are the contexts' names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Contexts))
	for n := range f.Contexts {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Select returns the context named, or the current one when name is "";
// nil (and no error) when neither names one.
func (f *File) Select(name string) (string, *Context, error) {
	if name == "" {
		name = f.Current
	}
	if name == "" {
		return "", nil, nil
	}
	c := f.Contexts[name]
	if c == nil {
		where := "the contexts file"
		if f.Path != "" {
			where = f.Path
		}
		if len(f.Contexts) == 0 {
			return "", nil, fmt.Errorf("no context %q: %s has no contexts", name, where)
		}
		return "", nil, fmt.Errorf("no context %q in %s (it has %s)", name, where, strings.Join(f.Names(), ", "))
	}
	return name, c, nil
}

// ExposedSecret says, in one line, that the file holds a password (a
// context's auth) and others than its owner may read it, as ssh refuses a
// key file others can read; "" when it holds none or only its owner reads
// it. The line names the contexts, never the password.
func (f *File) ExposedSecret() string {
	if f.mode&0o044 == 0 {
		return ""
	}
	var holders []string
	for _, name := range f.Names() {
		if f.Contexts[name].Auth != "" {
			holders = append(holders, name)
		}
	}
	if len(holders) == 0 {
		return ""
	}
	return fmt.Sprintf("%s holds credentials (the auth of context %s) and is readable by others than its owner (mode %04o): chmod 600 %s, or keep them in the environment with auth-env",
		f.Path, strings.Join(holders, ", "), f.mode, f.Path)
}
