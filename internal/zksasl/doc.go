// Package zksasl runs ZooKeeper's SASL exchange on each new connection:
// right after the server's connect response and before anything else —
// go-zookeeper's setWatches included — the client's tokens go out as
// requests of opcode 102 (GetSASLRequest) and the server's come back as
// SetSASLResponse, until the mechanism is done. It is a connection
// wrapper for zkdial.Options.Wrap: the first Read holds the connect
// response, runs the exchange, then hands the response on and steps
// aside. Refusals are zkdial.FatalErrors that say which member refused
// whom, so zkx stops instead of trying every member again.
package zksasl
