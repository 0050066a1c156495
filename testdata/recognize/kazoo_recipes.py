"""Sets up live coordination state with Kazoo 2.8 (as Debian ships it) for
zkview's recogniser tests (zkview/recognize_real_test.go), each contender on a
session of its own, one after the other so that the order of the nodes is
known:

  BASE/klock      Lock: k1 holds, k2 and k3 wait
  BASE/krw        ReadLock r1 holds, WriteLock w2 waits, ReadLock r3 waits
                  (no writer is ever queued behind a reader that waits: Kazoo
                  2.8's ReadLock waits for the highest writer, python-zk/kazoo#649)
  BASE/ksem       Semaphore of 2 leases: s1, s2 hold, s3 waits for a lease
                  (holding BASE/ksem-__lock__), s4 waits for s3's lock node
  BASE/kelection  Election: c1 leads, c2 waits
  BASE/kqueue     Queue with "high" (priority 10), "mid" (100), "low" (200)
  BASE/klq        LockingQueue with "a", "b"; a consumer has taken "a"

It prints "READY" once every holder holds and every waiter waits, keeps the
state live until its stdin closes, then ends its sessions and exits 0.

Usage: kazoo_recipes.py CONNECT BASE
Written for zkx."""
import os
import sys
import threading

from kazoo.client import KazooClient

WAIT = 60


class Setup:
    def __init__(self, connect, base):
        self.connect = connect
        self.base = base
        self.clients = []
        self.done = threading.Event()
        self.observer = self.client()

    def client(self):
        c = KazooClient(hosts=self.connect, timeout=30)
        c.start(timeout=WAIT)
        self.clients.append(c)
        return c

    def background(self, name, fn):
        def run():
            try:
                fn()
            except Exception as e:  # the session ended under a waiter
                if not self.done.is_set():
                    print("%s: %r" % (name, e), file=sys.stderr)
        t = threading.Thread(target=run, name=name, daemon=True)
        t.start()

    def await_children(self, path, n):
        """Waits, on watches, until path has at least n children."""
        while True:
            changed = threading.Event()
            children = None
            if self.observer.exists(path, watch=lambda e: changed.set()):
                children = self.observer.get_children(path, watch=lambda e: changed.set())
                if len(children) >= n:
                    return
            if not changed.wait(WAIT):
                raise SystemExit("waited in vain for %s: %s" % (path, children))

    def lock(self):
        path = self.base + "/klock"
        self.client().Lock(path, "k1").acquire()
        for i in (2, 3):
            lock = self.client().Lock(path, "k%d" % i)
            self.background("k%d" % i, lock.acquire)
            self.await_children(path, i)

    def read_write(self):
        path = self.base + "/krw"
        self.client().ReadLock(path, "r1").acquire()
        w2 = self.client().WriteLock(path, "w2")
        self.background("w2", w2.acquire)
        self.await_children(path, 2)
        r3 = self.client().ReadLock(path, "r3")
        self.background("r3", r3.acquire)
        self.await_children(path, 3)

    def semaphore(self):
        path = self.base + "/ksem"
        for i in (1, 2):
            self.client().Semaphore(path, "s%d" % i, max_leases=2).acquire()
        s3 = self.client().Semaphore(path, "s3", max_leases=2)
        self.background("s3", s3.acquire)
        self.await_children(path + "-__lock__", 1)
        s4 = self.client().Semaphore(path, "s4", max_leases=2)
        self.background("s4", s4.acquire)
        self.await_children(path + "-__lock__", 2)

    def election(self):
        path = self.base + "/kelection"
        leading = threading.Event()

        def lead():
            leading.set()
            self.done.wait()
        for i in (1, 2):
            e = self.client().Election(path, "c%d" % i)
            self.background("c%d" % i, lambda e=e: e.run(lead))
            if i == 1 and not leading.wait(WAIT):
                raise SystemExit("no leader for " + path)
            self.await_children(path, i)

    def queues(self):
        q = self.client().Queue(self.base + "/kqueue")
        q.put(b"low", priority=200)
        q.put(b"high", priority=10)
        q.put(b"mid")
        lq = self.client().LockingQueue(self.base + "/klq")
        lq.put(b"a")
        lq.put(b"b")
        if self.client().LockingQueue(self.base + "/klq").get(WAIT) != b"a":
            raise SystemExit("the locking queue did not hand out a")

    def set_up(self):
        self.lock()
        self.read_write()
        self.semaphore()
        self.election()
        self.queues()

    def tear_down(self):
        self.done.set()
        for c in reversed(self.clients):
            c.stop()
            c.close()


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: kazoo_recipes.py CONNECT BASE")
    s = Setup(sys.argv[1], sys.argv[2])
    s.set_up()
    print("READY", flush=True)
    sys.stdin.read()  # until the test closes it
    s.tear_down()
    sys.stdout.flush()
    os._exit(0)  # waiters' threads are still blocked


if __name__ == "__main__":
    main()
