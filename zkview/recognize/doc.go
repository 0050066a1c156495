// Package recognize tells what a directory of znodes is: a lock, a
// read-write lock, a semaphore, an election, a queue or a barrier, as
// Curator, Kazoo, ZooKeeper's own recipes, go-zookeeper and zkx lay them
// out (and a generic form for any directory of ephemeral sequential
// children). Each recognised object is a Recipe: who holds, who waits for
// whom, what sits in line, and warnings. Dir recognises one directory, Scan
// every one under a root through a pipelined walk. It reads through
// zkview.Reader and takes the servers' tables as a ServerTables.
package recognize
