#!/usr/bin/env python3
"""Measure Kazoo's Lock as scripts/lockbench measures recipes.Mutex.

N contenders, each with its own KazooClient (its own ZooKeeper session),
loop acquire -> release on one lock path for a duration, then one line:

  kazoo-Lock n=N secs=S acquisitions=A rate=R/s handoff_p50_ms=P handoff_p99_ms=Q violations=V

A handoff is the time from a holder starting its release to the next holder
returning from acquire(); a violation is an acquire returning while another
contender holds, as an in-process counter sees it.

Needs Debian's python3-kazoo (run it with /usr/bin/python3):

  /usr/bin/python3 scripts/lockbench-kazoo/lockbench.py HOST:PORT [N=10] [SECONDS=10]
"""
import logging
import sys
import threading
import time

from kazoo.client import KazooClient


def percentile(sorted_ns, q):
    """The sample at index floor(len*q), in milliseconds."""
    if not sorted_ns:
        return 0.0
    return sorted_ns[int(len(sorted_ns) * q)] / 1e6


def main():
    if len(sys.argv) < 2:
        print("usage: lockbench.py HOST:PORT [N=10] [SECONDS=10]", file=sys.stderr)
        return 2
    hosts = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    secs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    path = "/bench/kazoo-%d" % time.time_ns()
    logging.basicConfig(level=logging.ERROR)

    clients = []
    for _ in range(n):
        c = KazooClient(hosts=hosts, timeout=30.0)
        c.start(timeout=15)
        clients.append(c)

    state = {"count": 0, "inside": 0, "violations": 0, "last_release": 0}
    guard = threading.Lock()  # the counters' own lock, not the one measured
    handoffs = []
    failures = []
    end = time.monotonic() + secs

    def contend(client, ident):
        lock = client.Lock(path, ident)
        try:
            while time.monotonic() < end:
                lock.acquire()
                now = time.monotonic_ns()
                # Two guarded steps, not one: another contender that got the
                # lock in between (a violation) finds inside at 1.
                with guard:
                    if state["last_release"]:
                        handoffs.append(now - state["last_release"])
                    state["inside"] += 1
                    if state["inside"] != 1:
                        state["violations"] += 1
                    state["count"] += 1
                with guard:
                    state["inside"] -= 1
                    state["last_release"] = time.monotonic_ns()
                lock.release()
        except Exception as e:  # report, do not hide, a failed contender
            failures.append(e)

    threads = [threading.Thread(target=contend, args=(c, "contender-%d" % i)) for i, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in clients:
        c.stop()
        c.close()
    if failures:
        print("lockbench.py: %r" % failures[0], file=sys.stderr)
        return 1

    handoffs.sort()
    count = state["count"]
    print("kazoo-Lock n=%d secs=%d acquisitions=%d rate=%.1f/s handoff_p50_ms=%.3f handoff_p99_ms=%.3f violations=%d"
          % (n, secs, count, count / secs, percentile(handoffs, 0.5), percentile(handoffs, 0.99), state["violations"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
