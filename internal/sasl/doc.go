// Package sasl holds the SASL mechanisms zkx speaks with ZooKeeper:
// DIGEST-MD5 (RFC 2831, qop "auth" only: ZooKeeper asks for no security
// layer), client and server, and GSSAPI (RFC 4752) as a client, on
// Kerberos from gokrb5. A mechanism only turns tokens into tokens; how
// they travel (ZooKeeper's opcode 102 packets) is internal/zksasl's job.
package sasl
