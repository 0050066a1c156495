"""A Kazoo lock contender that a test (or a person, by hand) drives: it
takes Kazoo's Lock on PATH, optionally with extra_lock_patterns, and says
what Kazoo believes.

It prints "SESSION 0x<id>" once connected, then "HOLDING <node>" when
Lock.acquire returns (Kazoo believes it holds the lock), "RELEASED" after
a "release" line on stdin. When stdin closes it ends its session and exits.
The session timeout is PEER_SESSION_TIMEOUT seconds (default 12).

Usage: lock_peer.py CONNECT PATH ID [EXTRA_LOCK_PATTERN...]
Written for zkx."""
import os
import sys
import threading

from kazoo.client import KazooClient

out = threading.Lock()


def say(line):
    with out:
        print(line, flush=True)


def main():
    if len(sys.argv) < 4:
        raise SystemExit("usage: lock_peer.py CONNECT PATH ID [EXTRA_LOCK_PATTERN...]")
    connect, path, ident = sys.argv[1:4]
    extra = tuple(sys.argv[4:])
    timeout = float(os.environ.get("PEER_SESSION_TIMEOUT", "12"))
    client = KazooClient(hosts=connect, timeout=timeout)
    client.start(timeout=30)
    say("SESSION 0x%x" % client.client_id[0])
    lock = client.Lock(path, ident, extra_lock_patterns=extra)
    held = threading.Event()

    def take():
        try:
            lock.acquire()
        except Exception as e:  # the session ended while waiting
            say("FAILED %r" % e)
            return
        held.set()
        say("HOLDING %s" % lock.node)

    threading.Thread(target=take, name="acquire", daemon=True).start()
    for line in sys.stdin:
        if line.strip() == "release" and held.is_set():
            lock.release()
            held.clear()
            say("RELEASED")
    client.stop()
    client.close()
    sys.stdout.flush()
    os._exit(0)  # a waiter's thread is still blocked


if __name__ == "__main__":
    main()
