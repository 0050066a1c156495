"""A Kazoo contender for the recipes interop test: it takes a Lock (or a
WriteLock) on a path ITERATIONS times and, while holding it, appends
"IN <id> <kind>" and "OUT <id> <kind>" lines to a shared log (O_APPEND), which
the Go test checks for overlaps against zkx's recipes (Kazoo format) on the
same path. (Kazoo 2.8's ReadLock waits for the highest writer, even one queued
after it, python-zk/kazoo#649, so readers are not used.)
All contenders start together: each creates GATE/ready-ID and waits for
GATE/go, which the test creates once everyone is ready.
Usage: contender.py CONNECT PATH lock|write ITERATIONS LOGFILE ID GATE"""
import os
import sys
import threading

from kazoo.client import KazooClient


def main():
    connect, path, kind, iterations, log, ident, gate = sys.argv[1:8]
    if kind not in ("lock", "write"):
        raise SystemExit("unknown kind %s" % kind)
    client = KazooClient(hosts=connect, timeout=10)
    client.start(timeout=20)
    client.create(gate + "/ready-" + ident, ephemeral=True, makepath=True)
    changed = threading.Event()
    while not client.exists(gate + "/go", watch=lambda event: changed.set()):
        if not changed.wait(60):
            raise SystemExit("no start signal within 60s")
        changed.clear()
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        lock = client.Lock(path, ident) if kind == "lock" else client.WriteLock(path, ident)
        for _ in range(int(iterations)):
            if not lock.acquire(timeout=60):
                raise SystemExit("no lock within 60s")
            os.write(fd, ("IN %s %s\n" % (ident, kind)).encode())
            client.exists(path)  # a little work while holding
            os.write(fd, ("OUT %s %s\n" % (ident, kind)).encode())
            lock.release()
    finally:
        os.close(fd)
        client.stop()
        client.close()
    print("done", ident)


if __name__ == "__main__":
    main()
