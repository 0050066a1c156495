// Package promtest starts Debian's Prometheus for tests: a server of its
// own on a free loopback port, in a temporary directory, scraping the
// targets and evaluating the rule files a test gives it four times a
// second, and reads what it sees through its HTTP API — instant queries
// (/api/v1/query), alerts (/api/v1/alerts), targets (/api/v1/targets) —
// as typed values, with helpers that wait for a condition under a deadline.
//
// The server runs as zktest runs ZooKeeper: in a process group of its own
// with a parent-death signal, killed when the test ends. When prometheus
// (or promtool, for [Program]) is not on PATH the test is skipped with a
// message starting "SKIPPING Prometheus test:", unless ZKX_REAL_ZK=required,
// in which case it fails.
package promtest
