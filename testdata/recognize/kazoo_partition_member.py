"""One member of a Kazoo 2.8 SetPartitioner, for the recogniser's tests
(zkview/recognize/real_seen_test.go): it joins the party at PATH as
IDENTIFIER, partitions ITEMS (comma-separated) with a time_boundary of one
second, releases its set whenever the party changes, as Kazoo asks of its
users, and prints each state it reaches:

  SESSION 0x<id>        once connected
  JOINED                once in the party
  ACQUIRED <items>      its share, each time it has taken every lock of it
  RELEASED              each time it let its share go
  FAILED                when the partitioner failed

Its session times out after 30 seconds, so that a test may freeze it
(SIGSTOP) and look at what it leaves. When stdin closes it leaves the
party and exits.

Usage: kazoo_partition_member.py CONNECT PATH IDENTIFIER ITEMS
Written for zkx."""
import os
import sys
import threading

from kazoo.client import KazooClient

out = threading.Lock()

# POLL bounds each wait of the runner, so that it stops within POLL seconds
# of its stdin closing: the test waits for every member to exit.
POLL = 0.1


def say(line):
    with out:
        print(line, flush=True)


def run(partitioner, stop):
    said = None
    while not stop.is_set():
        if partitioner.failed:
            say("FAILED")
            return
        if partitioner.release:
            partitioner.release_set()
            say("RELEASED")
            said = None
        elif partitioner.acquired:
            share = ",".join(str(i) for i in partitioner)
            if said != share:
                say("ACQUIRED " + share)
                said = share
            partitioner.state_change_event.clear()
            partitioner.state_change_event.wait(POLL)
        else:
            partitioner.wait_for_acquire(POLL)


def main():
    if len(sys.argv) != 5:
        raise SystemExit("usage: kazoo_partition_member.py CONNECT PATH IDENTIFIER ITEMS")
    connect, path, ident, items = sys.argv[1:]
    client = KazooClient(hosts=connect, timeout=30)
    client.start(timeout=60)
    say("SESSION 0x%x" % client.client_id[0])
    partitioner = client.SetPartitioner(path, set=items.split(","), identifier=ident, time_boundary=1)
    say("JOINED")
    stop = threading.Event()
    runner = threading.Thread(target=run, args=(partitioner, stop), name="partitioner", daemon=True)
    runner.start()
    sys.stdin.read()  # until the test closes it
    stop.set()
    runner.join()
    try:
        partitioner.finish()
    except ValueError:
        # Kazoo 2.8's finish() and an allocation it aborts because the
        # party changed (as it does after a SIGSTOP) both release the item
        # locks from one list, and the second remove fails. Closing the
        # session below releases every lock anyway.
        pass
    client.stop()
    client.close()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
