// Package redistest starts Redis servers for tests: miniredis in process
// ([Embedded], with keys expiring in real time as a real server's do), or
// Debian's redis-server on a free loopback port ([Real]), stopped when the
// test ends. When redis-server is missing the test is skipped with a
// message starting "SKIPPING", unless ZKX_REAL_ZK=required, in which case
// it fails, as zktest does for ZooKeeper.
package redistest
