package sasl

import "errors"

// Kerberos is a Kerberos login (placeholder until GSSAPI lands).
type Kerberos struct{ principal string }

// Principal is the client principal, NAME@REALM.
func (k *Kerberos) Principal() string { return k.principal }

// NewGSSAPI starts a GSSAPI exchange with service/host.
func (k *Kerberos) NewGSSAPI(service, host string) (Client, error) {
	return nil, errors.New("GSSAPI is not built yet")
}

// KerberosOptions say where a login's credentials are.
type KerberosOptions struct{ Principal, Keytab, Krb5Conf string }

// NewKerberos logs in.
func NewKerberos(o KerberosOptions) (*Kerberos, error) {
	return nil, errors.New("GSSAPI is not built yet")
}
