"""Sets up live state with Kazoo 2.8 (as Debian ships it) for the recogniser's
tests of groups, leases and counters (zkview/recognize/real_seen_test.go),
each member on a session of its own:

  BASE/party      Party with members p1, p2
  BASE/shallow    ShallowParty with members s1, s2
  BASE/lease      NonBlockingLease of an hour, held by live-holder
  BASE/expired    NonBlockingLease taken by old-holder for 2 seconds: soon
                  expired, its record still there
  BASE/skewed     NonBlockingLease taken by slow-clock for 5 minutes, its
                  utcnow an hour behind: written already past its end
  BASE/multi      MultiNonBlockingLease of 3 for an hour: m1 has slot 0, m2
                  slot 1 (slot 2 is never tried)
  BASE/counter    Counter, 5 added
  BASE/ccounter   Counter with support_curator=True, 7 added

It prints "READY" once it is all set up, keeps the members' sessions until
its stdin closes, then ends them and exits 0.

Usage: kazoo_seen.py CONNECT BASE
Written for zkx."""
import datetime
import os
import sys

from kazoo.client import KazooClient


class Setup:
    def __init__(self, connect, base):
        self.connect = connect
        self.base = base
        self.clients = []

    def client(self):
        c = KazooClient(hosts=self.connect, timeout=30)
        c.start(timeout=60)
        self.clients.append(c)
        return c

    def set_up(self):
        for name in ("p1", "p2"):
            self.client().Party(self.base + "/party", name).join()
        for name in ("s1", "s2"):
            self.client().ShallowParty(self.base + "/shallow", name).join()
        hour = datetime.timedelta(hours=1)
        if not self.client().NonBlockingLease(self.base + "/lease", hour, identifier="live-holder"):
            raise SystemExit("live-holder did not get its lease")
        if not self.client().NonBlockingLease(self.base + "/expired", datetime.timedelta(seconds=2),
                                              identifier="old-holder"):
            raise SystemExit("old-holder did not get its lease")
        behind = lambda: datetime.datetime.utcnow() - hour  # noqa: E731
        if not self.client().NonBlockingLease(self.base + "/skewed", datetime.timedelta(minutes=5),
                                              identifier="slow-clock", utcnow=behind):
            raise SystemExit("slow-clock did not get its lease")
        for name in ("m1", "m2"):
            if not self.client().MultiNonBlockingLease(3, self.base + "/multi", hour, identifier=name):
                raise SystemExit(name + " did not get a lease")
        counter = self.client().Counter(self.base + "/counter")
        counter += 5
        curator = self.client().Counter(self.base + "/ccounter", support_curator=True)
        curator += 7

    def tear_down(self):
        for c in reversed(self.clients):
            c.stop()
            c.close()


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: kazoo_seen.py CONNECT BASE")
    s = Setup(sys.argv[1], sys.argv[2])
    s.set_up()
    print("READY", flush=True)
    sys.stdin.read()  # until the test closes it
    s.tear_down()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
