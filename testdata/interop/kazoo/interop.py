"""Drive Kazoo 2.8 (unchanged, as Debian ships it) against a ZooKeeper server.

Usage: python3 interop.py CONNECT SCENARIO
  SCENARIO is mutex, watches or transactions.

Each scenario works under its own fresh base path (/zkx-interop-kazoo-SCENARIO-<random>),
removes it at the end, prints one summary line starting with "kazoo SCENARIO " on stdout
and exits 0. Any failure prints "FAIL: ..." on stderr and exits 1. The summary line holds
no volatile values, so the program prints the same line against every correct server.

Written for zkx's interop tests (internal/zkserver/interop_test.go). Needs Debian's
python3-kazoo, so run it with Debian's /usr/bin/python3.
"""

import logging
import queue
import sys
import threading
import uuid

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError
from kazoo.retry import KazooRetry

CLIENTS = 3
ROUNDS = 200
WAIT = 20.0  # seconds for any one event or lock


class Failure(Exception):
    """A check that did not hold."""


def check(ok, msg, *args):
    if not ok:
        raise Failure(msg % args if args else msg)


def new_client(connect, clients):
    """Start a client with bounded retries, and wait for its session. No scenario waits for a
    session to end, so the timeout is one for a loaded machine, as CuratorInterop's."""
    c = KazooClient(
        hosts=connect,
        timeout=20.0,
        connection_retry=KazooRetry(max_tries=10, delay=0.05, max_delay=1.0),
        command_retry=KazooRetry(max_tries=10, delay=0.05, max_delay=1.0),
    )
    clients.append(c)
    c.start(timeout=15)
    return c


def sequence_of(node):
    # Lock nodes end in a %010d sequence number.
    return int(node[-10:])


# ---- mutex ----------------------------------------------------------------------------------


def mutex(connect, base, clients):
    """CLIENTS clients, each its own session and a Lock on one path, each looping ROUNDS
    times acquire -> check -> release. Checked twice: an in-process counter of holders
    (must be 1) and the server's view (the lowest lock node belongs to our session)."""
    lock_path = base + "/lock"
    cs = [new_client(connect, clients) for _ in range(CLIENTS)]
    sessions = {c.client_id[0] for c in cs}
    check(len(sessions) == CLIENTS, "want %d distinct sessions, got %d", CLIENTS, len(sessions))

    mu = threading.Lock()
    counts = {"inside": 0, "violations": 0, "acquisitions": 0, "mismatches": 0}
    errors = []
    start = threading.Event()

    def contend(i, c):
        try:
            lock = c.Lock(lock_path, "contender-%d" % i)
            session = c.client_id[0]
            start.wait()
            for r in range(ROUNDS):
                check(lock.acquire(timeout=WAIT), "acquire timed out (round %d)", r)
                try:
                    with mu:
                        counts["inside"] += 1
                        if counts["inside"] != 1:
                            counts["violations"] += 1
                        counts["acquisitions"] += 1
                    kids = c.get_children(lock_path)
                    check(kids, "lock directory empty while held")
                    lowest = min(kids, key=sequence_of)
                    st = c.exists(lock_path + "/" + lowest)
                    if st is None or st.ephemeralOwner != session:
                        with mu:
                            counts["mismatches"] += 1
                    with mu:
                        counts["inside"] -= 1
                finally:
                    lock.release()
        except Exception as e:  # reported by the main thread
            errors.append("contender %d: %r" % (i, e))

    threads = [threading.Thread(target=contend, args=(i, c), daemon=True) for i, c in enumerate(cs)]
    for t in threads:
        t.start()
    start.set()
    for t in threads:
        t.join(110)
        check(not t.is_alive(), "a contender did not finish within 110s")
    check(not errors, "; ".join(errors))
    check(counts["violations"] == 0, "%d mutual-exclusion violations", counts["violations"])
    check(counts["mismatches"] == 0, "%d acquisitions where the lowest lock node was not ours", counts["mismatches"])
    check(counts["acquisitions"] == CLIENTS * ROUNDS, "acquisitions=%d want %d", counts["acquisitions"], CLIENTS * ROUNDS)
    left = cs[0].get_children(lock_path)
    check(not left, "lock nodes left after all releases: %s", left)
    return "kazoo mutex clients=%d acquisitions=%d violations=%d" % (CLIENTS, counts["acquisitions"], counts["violations"])


# ---- watches --------------------------------------------------------------------------------


def next_item(q, what):
    try:
        return q.get(timeout=WAIT)
    except queue.Empty:
        raise Failure("nothing observed for %s within %ds" % (what, WAIT))


def watches(connect, base, clients):
    """DataWatch sees three set() calls in order and the delete; ChildrenWatch sees a child
    added and removed; a one-shot exists watch fires on create. Each change waits to be
    observed before the next, so the order is checked."""
    c = new_client(connect, clients)
    writer = new_client(connect, clients)  # changes come from another session
    node = base + "/w"
    writer.create(node, b"v0", makepath=True)

    data_seen = queue.Queue()

    def on_data(data, stat, event):
        data_seen.put((data, stat.version if stat else None, event.type if event else None))

    c.DataWatch(node, on_data)
    got = next_item(data_seen, "DataWatch initial call")
    check(got == (b"v0", 0, None), "DataWatch initial call: %r", got)
    data = []
    for i in range(1, 4):
        writer.set(node, b"v%d" % i)
        got = next_item(data_seen, "set #%d" % i)
        check(got == (b"v%d" % i, i, "CHANGED"), "set #%d: DataWatch saw %r", i, got)
        data.append(got[0].decode())
    writer.delete(node)
    got = next_item(data_seen, "delete")
    check(got == (None, None, "DELETED"), "delete: DataWatch saw %r", got)
    data.append("deleted")

    kids_seen = queue.Queue()
    c.ChildrenWatch(base, lambda kids: kids_seen.put(sorted(kids)))
    got = next_item(kids_seen, "ChildrenWatch initial call")
    check(got == [], "ChildrenWatch initial call: %r", got)
    children = []
    writer.create(base + "/kid", ephemeral=True)
    got = next_item(kids_seen, "child added")
    check(got == ["kid"], "child added: ChildrenWatch saw %r", got)
    children.append("+kid")
    writer.delete(base + "/kid")
    got = next_item(kids_seen, "child removed")
    check(got == [], "child removed: ChildrenWatch saw %r", got)
    children.append("-kid")

    # The DataWatch on node is still armed (through exists): a re-create reaches it too,
    # as does a plain one-shot exists watch.
    events = queue.Queue()
    check(c.exists(base + "/e", watch=events.put) is None, "%s/e exists" % base)
    writer.create(base + "/e", b"")
    ev = next_item(events, "exists watch")
    check(ev.type == "CREATED" and ev.path == base + "/e", "exists watch saw %r", ev)
    writer.create(node, b"again")
    got = next_item(data_seen, "re-create")
    check(got == (b"again", 0, "CREATED"), "re-create: DataWatch saw %r", got)
    return "kazoo watches data=%s children=%s exists=created recreate=seen" % (",".join(data), ",".join(children))


# ---- transactions ---------------------------------------------------------------------------


def describe(base, results):
    """Render per-op results without volatile values: created paths, versions, errors."""
    out = []
    for r in results:
        if isinstance(r, Exception):
            out.append(type(r).__name__)
        elif isinstance(r, str):
            out.append(r[len(base) + 1:])
        elif r is True:
            out.append("True")
        elif hasattr(r, "version"):
            out.append("v%d" % r.version)
        else:
            out.append(repr(r))
    return "[" + " ".join(out) + "]"


def transactions(connect, base, clients):
    """A create+set+check+sequential-create transaction commits; one with a wrong version in a
    check and one creating an existing node return an error per op (RolledBackError before
    the failing op, the real error, RuntimeInconsistency after) and leave nothing applied."""
    c = new_client(connect, clients)
    c.create(base)
    tx = base + "/tx"

    t = c.transaction()
    t.create(tx, b"a")
    t.set_data(tx, b"b")
    t.check(tx, 1)
    t.create(tx + "/s-", b"q", sequence=True)
    ok = t.commit()
    check(not any(isinstance(r, Exception) for r in ok), "transaction failed: %r", ok)
    data, st = c.get(tx)
    check(data == b"b" and st.version == 1 and st.numChildren == 1,
          "after commit: data %r version %d children %d", data, st.version, st.numChildren)

    t = c.transaction()
    t.create(base + "/fail-1", b"x")
    t.set_data(tx, b"c")
    t.check(tx, 99)
    t.create(base + "/fail-2", b"y")
    bad_version = t.commit()
    check(all(isinstance(r, Exception) for r in bad_version), "failing transaction applied ops: %r", bad_version)

    t = c.transaction()
    t.set_data(tx, b"d", version=1)
    t.create(tx, b"dup")
    t.delete(base + "/missing")
    node_exists = t.commit()
    check(all(isinstance(r, Exception) for r in node_exists), "failing transaction applied ops: %r", node_exists)

    kids = c.get_children(base)
    check(kids == ["tx"], "children after failed transactions: %r", kids)
    data, st = c.get(tx)
    check(data == b"b" and st.version == 1, "after failed transactions: data %r version %d", data, st.version)
    return "kazoo transactions commit=%s bad_version=%s node_exists=%s applied_after_failures=none" % (
        describe(base, ok), describe(base, bad_version), describe(base, node_exists))


SCENARIOS = {"mutex": mutex, "watches": watches, "transactions": transactions}


def main():
    """Runs each scenario named, one after the other, in one process (an
    interpreter with Kazoo loaded costs a quarter of a CPU-second), and
    exits 1 if any failed."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if len(sys.argv) < 3 or any(s not in SCENARIOS for s in sys.argv[2:]):
        print("usage: interop.py CONNECT mutex|watches|transactions...", file=sys.stderr)
        return 2
    connect = sys.argv[1]
    return max(run(connect, scenario) for scenario in sys.argv[2:])


def run(connect, scenario):
    """Runs one scenario under a base path of its own and prints its line;
    returns the exit status that says how it went."""
    base = "/zkx-interop-kazoo-%s-%s" % (scenario, uuid.uuid4().hex[:8])
    clients = []
    status = 0
    try:
        print(SCENARIOS[scenario](connect, base, clients), flush=True)
    except Failure as f:
        print("FAIL: kazoo %s: %s" % (scenario, f), file=sys.stderr)
        status = 1
    except Exception as e:
        logging.exception("unexpected error")
        print("FAIL: kazoo %s: unexpected %r" % (scenario, e), file=sys.stderr)
        status = 1
    finally:
        if clients and clients[0].connected:
            try:
                clients[0].delete(base, recursive=True)
            except NoNodeError:
                pass
            except Exception as e:
                print("cleanup of %s: %r" % (base, e), file=sys.stderr)
        for c in clients:
            try:
                c.stop()
                c.close()
            except Exception as e:
                print("closing a client: %r" % (e,), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
