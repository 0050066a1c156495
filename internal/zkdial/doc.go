// Package zkdial opens the network connections of go-zookeeper sessions
// for zkx: plain or TLS, to the members named as the connect string names
// them (resolved only to dial, so that a name is what TLS and Kerberos
// check), and watching how each dial went. go-zookeeper retries a member
// that does not answer forever; a Watch sees when every member has
// failed — refused, unreachable, a TLS problem, a connection closed before
// the session was answered — and says so member by member, so that zkx
// gives up in seconds instead of at its --timeout.
package zkdial
