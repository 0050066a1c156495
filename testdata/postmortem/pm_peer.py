"""A Kazoo peer the post-mortem scenario (internal/testkit/zktest) drives
line by line, so that the transaction log it leaves is known step by step.
Commands on stdin, answers on stdout:

  open NAME TIMEOUT [USER:PASSWORD]
                       a client (a session) of its own, authenticated
                       with digest USER:PASSWORD when given
                                                       -> opened NAME 0x<session>
  lock NAME PATH       Lock.acquire, on a thread of its own -> locked NAME PATH (once held)
  unlock NAME PATH     Lock.release                         -> unlocked NAME PATH
  put NAME PATH DATA   Queue.put                            -> put NAME PATH DATA
  take NAME PATH       Queue.get                            -> took NAME PATH DATA
  close NAME           the client's stop and close          -> closed NAME

Any failure prints "error ..." and the peer goes on. EOF ends it.

Usage: pm_peer.py CONNECT
Written for zkx."""
import sys
import threading

from kazoo.client import KazooClient

clients = {}
locks = {}
out = threading.Lock()


def say(s):
    with out:
        print(s, flush=True)


def lock(name, path):
    lk = clients[name].Lock(path, name)
    locks[(name, path)] = lk

    def run():
        try:
            if lk.acquire(timeout=120):
                say("locked %s %s" % (name, path))
            else:
                say("error lock %s %s: not acquired within 120s" % (name, path))
        except Exception as e:
            say("error lock %s %s: %r" % (name, path, e))
    threading.Thread(target=run, daemon=True).start()


def main():
    connect = sys.argv[1]
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        try:
            if f[0] == "open":
                auth = [("digest", f[3])] if len(f) > 3 else None
                c = KazooClient(hosts=connect, timeout=float(f[2]), auth_data=auth)
                c.start(timeout=30)
                clients[f[1]] = c
                say("opened %s 0x%x" % (f[1], c.client_id[0]))
            elif f[0] == "lock":
                lock(f[1], f[2])
            elif f[0] == "unlock":
                locks.pop((f[1], f[2])).release()
                say("unlocked %s %s" % (f[1], f[2]))
            elif f[0] == "put":
                clients[f[1]].Queue(f[2]).put(f[3].encode())
                say("put %s %s %s" % (f[1], f[2], f[3]))
            elif f[0] == "take":
                item = clients[f[1]].Queue(f[2]).get()
                say("took %s %s %s" % (f[1], f[2], item.decode() if item is not None else "-"))
            elif f[0] == "close":
                c = clients.pop(f[1])
                c.stop()
                c.close()
                say("closed %s" % f[1])
            else:
                say("error unknown command %s" % line.strip())
        except Exception as e:
            say("error %s: %r" % (line.strip(), e))
    for c in clients.values():
        c.stop()
        c.close()


if __name__ == "__main__":
    main()
