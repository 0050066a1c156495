// Package zkwire is one ZooKeeper connection speaking the wire protocol
// itself, for the requests go-zookeeper cannot send: zkview reads a large
// tree with multiRead, many getChildren and getData in one request, and it
// holds persistent watches (addWatch, 3.6+). It is deliberately small: a
// session, credentials, requests and their replies, notifications handed
// to one callback in the order the server sent them, pings; no
// reconnection (a caller that loses it dials again). One goroutine reads
// the socket and hands each reply to its caller.
package zkwire
