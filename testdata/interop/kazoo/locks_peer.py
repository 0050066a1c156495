"""A Kazoo process with one session that takes several locks, driven line
by line by a test (or a person): the way an application takes locks in an
order.

It prints "SESSION 0x<id>" once connected; then, on stdin:

  lock PATH [EXTRA_LOCK_PATTERN...]   Lock.acquire on a thread of its own -> locked PATH (once held)
  unlock PATH                         Lock.release                        -> unlocked PATH

Any failure prints "error ...". EOF ends the session and exits. The
session timeout is PEER_SESSION_TIMEOUT seconds (default 12).

Usage: locks_peer.py CONNECT ID
Written for zkx."""
import os
import sys
import threading

from kazoo.client import KazooClient

out = threading.Lock()
locks = {}


def say(line):
    with out:
        print(line, flush=True)


def take(client, ident, path, extra):
    lock = client.Lock(path, ident, extra_lock_patterns=tuple(extra))
    locks[path] = lock

    def run():
        try:
            lock.acquire()
        except Exception as e:  # the session ended while waiting
            say("error lock %s: %r" % (path, e))
            return
        say("locked %s" % path)

    threading.Thread(target=run, name="lock " + path, daemon=True).start()


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: locks_peer.py CONNECT ID")
    connect, ident = sys.argv[1:3]
    client = KazooClient(hosts=connect, timeout=float(os.environ.get("PEER_SESSION_TIMEOUT", "12")))
    client.start(timeout=30)
    say("SESSION 0x%x" % client.client_id[0])
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        try:
            if f[0] == "lock":
                take(client, ident, f[1], f[2:])
            elif f[0] == "unlock":
                locks.pop(f[1]).release()
                say("unlocked %s" % f[1])
            else:
                say("error unknown command %s" % line.strip())
        except Exception as e:
            say("error %s: %r" % (line.strip(), e))
    client.stop()
    client.close()
    sys.stdout.flush()
    os._exit(0)  # a waiter's thread is still blocked


if __name__ == "__main__":
    main()
