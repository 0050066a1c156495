// Package config reads zkx's contexts file ($XDG_CONFIG_HOME/zkx/config.yaml):
// named contexts, each a connect string with what it takes to open it (chroot,
// credentials or the environment variable holding them, TLS and SASL files,
// AdminServer URLs), and the current context. A bad file is an error naming
// its line. Credentials are best kept out of it: a context names the
// environment variable that holds them (auth-env, sasl.password-env), and
// Show never prints a secret.
package config
