"""Kazoo's recipes, driven line by line by the recipes' interop tests
(recipes/interop_recipes_test.go, cmd/revoke_test.go): each command on
stdin is answered by a line on stdout; a failure prints "error ...".

  party PATH IDENT          join a Party with identifier IDENT  -> JOINED
  party-members PATH        a Party's len and identifiers       -> MEMBERS N IDENT,... (sorted; "-" for none)
  party-leave               leave the Party joined              -> LEFT
  counter-add PATH N        N increments of a Counter with
                            support_curator=True                -> ADDED N
  counter-read PATH         its value                           -> COUNTER V
  lock PATH                 take a Lock                         -> HOLDING
  session                   -> SESSION 0x<id>

When stdin closes it ends its session and exits. Needs Debian's
python3-kazoo, so run it with Debian's /usr/bin/python3.

Usage: recipes_peer.py CONNECT
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
    # Retry a Counter's refused compare-and-set as often as it takes: the
    # tests add from three libraries at once.
    client = KazooClient(hosts=sys.argv[1], timeout=12,
                         command_retry={"max_tries": -1, "delay": 0.01, "max_delay": 0.2})
    client.start(timeout=30)
    say("READY")
    party = None
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        try:
            if w[0] == "session":
                say("SESSION 0x%x" % client.client_id[0])
            elif w[0] == "party":
                party = client.Party(w[1], w[2])
                party.join()
                say("JOINED")
            elif w[0] == "party-members":
                p = client.Party(w[1])
                idents = sorted(p)
                say("MEMBERS %d %s" % (len(p), ",".join(idents) or "-"))
            elif w[0] == "party-leave":
                party.leave()
                party = None
                say("LEFT")
            elif w[0] == "counter-add":
                counter = client.Counter(w[1], default=0, support_curator=True)
                for _ in range(int(w[2])):
                    counter += 1
                say("ADDED %s" % w[2])
            elif w[0] == "counter-read":
                counter = client.Counter(w[1], default=0, support_curator=True)
                say("COUNTER %d" % counter.value)
            elif w[0] == "lock":
                client.Lock(w[1], "kazoo").acquire()
                say("HOLDING")
            else:
                raise ValueError("unknown command")
        except Exception as e:  # reported to the test, which fails
            say("error %s: %r" % (line.strip(), e))
    client.stop()
    client.close()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
