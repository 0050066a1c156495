"""Kazoo contenders for the recipes interop test, one process for all of a
test's: each takes a Lock (or a WriteLock) on a path ITERATIONS times with a
client (a session) of its own, in a thread of its own, and, while holding it,
appends "IN <id> <kind>" and "OUT <id> <kind>" lines to a shared log
(O_APPEND), which the Go test checks for overlaps against zkx's recipes (Kazoo
format) on the same path. (Kazoo 2.8's ReadLock waits for the highest writer,
even one queued after it, python-zk/kazoo#649, so readers are not used.) One
process for several contenders: an interpreter with Kazoo loaded costs a
quarter of a CPU-second.
All contenders start together: each creates GATE/ready-ID and waits for
GATE/go, which the test creates once everyone is ready.
Usage: contender.py CONNECT PATH ITERATIONS LOGFILE GATE KIND:ID...
(KIND is lock or write)"""
import os
import sys
import threading

from kazoo.client import KazooClient


def main():
    if len(sys.argv) < 7:
        raise SystemExit("usage: contender.py CONNECT PATH ITERATIONS LOGFILE GATE KIND:ID...")
    connect, path, iterations, log, gate = sys.argv[1:6]
    contenders = [arg.split(":", 1) for arg in sys.argv[6:]]
    for kind_id in contenders:
        if len(kind_id) != 2 or kind_id[0] not in ("lock", "write"):
            raise SystemExit("want KIND:ID with KIND lock or write, got %s" % ":".join(kind_id))
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    failures = []

    def run(kind, ident):
        try:
            contend(connect, path, kind, int(iterations), fd, ident, gate)
            print("done", ident, flush=True)
        except BaseException as e:  # SystemExit too: it says why
            failures.append("%s: %s" % (ident, e))

    threads = [threading.Thread(target=run, args=(kind, ident)) for kind, ident in contenders]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        os.close(fd)
    if failures:
        raise SystemExit("\n".join(failures))


def contend(connect, path, kind, iterations, fd, ident, gate):
    client = KazooClient(hosts=connect, timeout=10)
    client.start(timeout=20)
    try:
        client.create(gate + "/ready-" + ident, ephemeral=True, makepath=True)
        changed = threading.Event()
        while not client.exists(gate + "/go", watch=lambda event: changed.set()):
            if not changed.wait(60):
                raise SystemExit("no start signal within 60s")
            changed.clear()
        lock = client.Lock(path, ident) if kind == "lock" else client.WriteLock(path, ident)
        for _ in range(iterations):
            if not lock.acquire(timeout=60):
                raise SystemExit("no lock within 60s")
            os.write(fd, ("IN %s %s\n" % (ident, kind)).encode())
            client.exists(path)  # a little work while holding
            os.write(fd, ("OUT %s %s\n" % (ident, kind)).encode())
            lock.release()
    finally:
        client.stop()
        client.close()


if __name__ == "__main__":
    main()
