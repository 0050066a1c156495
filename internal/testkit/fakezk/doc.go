// Package fakezk runs small fake ZooKeeper servers that misbehave on
// purpose, for the tests that show zkx ends by itself, with a named error,
// whatever a server sends: a session timeout of 0, a reply whose vector
// length is 2^31-1, a server that answers pings and nothing else, replies
// to requests never sent, a flood of notifications, silence after the
// handshake, and peers that are not ZooKeeper at all (random bytes, a 2 GB
// frame length, HTTP, silence).
//
// A Server listens on a free loopback port and runs its Behaviour on each
// connection it accepts; a Peer is one connection as a Behaviour sees it,
// with the frames of ZooKeeper's wire protocol (internal/jute) to read and
// write. [Cases] names each misbehaviour, for tests and for the
// scripts/fakezk tool that serves one from the command line.
package fakezk
