// Package zkdial opens the network connections of ZooKeeper sessions for
// zkx (go-zookeeper's, and zkwire's for batched reads and writes): plain
// or TLS, to the members named as the connect string names them (resolved
// only to dial, so that a name is what TLS and Kerberos check), and checks
// every byte a server sends before the client reads it.
//
// Each connection is layered: the network (TLS) connection; a guard that
// sees the member's first bytes and names a peer that is not ZooKeeper
// (TLS where plain was expected, HTTP, noise, a frame length no answer to
// a session request has, silence past four seconds); the wrap (SASL runs
// its exchange there); and, where the session reads, a check that reads
// each request on its way out (xid, opcode, path, watch) and each frame
// from the server whole, against what was asked: the answer to the session
// request (a positive timeout, a session), then replies to requests sent
// and not yet answered, each decoded as its request's reply with jute's
// bounded decoder (every length within the frame, the frame within
// jute.maxbuffer), answers to pings sent, and notifications for paths
// watched. What is not ZooKeeper's closes the connection with a
// *ProtocolError that says what it was, before go-zookeeper — which
// allocates whatever a length says and panics on a session timeout of 0 —
// reads a byte of it. A request left unanswered for a session timeout
// while pings sent after it are answered is a stall, named the same way.
//
// A Watch follows the dials of one client: go-zookeeper retries a member
// that does not answer forever; a Watch sees when every member has
// failed — refused, unreachable, a TLS problem, a connection closed before
// the session was answered, not ZooKeeper — and says so member by member,
// so that zkx gives up in seconds instead of at its --timeout; and it gives
// up at once on what no member will mend (a SASL refusal, a server that
// sent what ZooKeeper never sends).
package zkdial
