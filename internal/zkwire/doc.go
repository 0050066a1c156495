// Package zkwire is one ZooKeeper connection speaking the wire protocol
// itself, for the requests go-zookeeper cannot send: zkview reads a large
// tree with multiRead, many getChildren and getData in one request. It is
// deliberately small: a session, credentials, requests and their replies,
// pings; no watches, no reconnection (a caller that loses it dials again).
// One goroutine reads the socket and hands each reply to its caller.
package zkwire
