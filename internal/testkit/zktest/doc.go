// Package zktest is the test harness for zkx: it starts ZooKeeper servers
// for tests and stops them when the test ends.
//
// Two kinds of server are available:
//
//   - the embedded server (package internal/zkserver), in process, on a free
//     loopback port: [Embedded] and [EmbeddedServer] (the latter returns the
//     server for fault injection);
//   - real ZooKeeper from Debian's zookeeper package (libzookeeper-java),
//     run as Java processes: [Real] starts a 1-node server or a 3-node
//     ensemble private to one test, [Shared] returns one single-node server
//     shared by the whole test binary, and [Each] runs a test against both
//     an embedded and the shared real server.
//
// Real servers need java on PATH and the zookeeper jar, found with
// "dpkg -L libzookeeper-java" (override with ZKX_ZOOKEEPER_JAR). When either
// is missing the test is skipped with a message starting "SKIPPING real
// ZooKeeper test:", unless ZKX_REAL_ZK=required, in which case it fails.
//
// A package whose tests use [Shared] should run them through [Main]:
//
//	func TestMain(m *testing.M) { zktest.Main(m) }
//
// Every Java process runs in its own process group with a parent-death
// signal, so a test binary that crashes does not leave servers behind.
package zktest
