// Package zktls opens TLS connections to ZooKeeper the way its
// secureClientPort expects them: PEM files for the CA, the client
// certificate and its key (PKCS#8 or PKCS#1), TLS 1.2 or later (ZooKeeper
// 3.8 speaks 1.2 only). Its errors name the certificate problem — an
// unknown authority, a name that does not match, an expired certificate,
// a client certificate the server refused, a port that does not speak TLS
// — rather than ending as a timeout.
package zktls
