// CuratorInterop drives Apache Curator 5.4 (unchanged, as Debian ships it) against a
// ZooKeeper server to show that the server speaks the protocol the way Curator expects.
//
// Usage: java -cp CLASSPATH CuratorInterop CONNECT SCENARIO
//   SCENARIO is mutex, watches or transactions.
//
// Each scenario works under its own fresh base path (/zkx-interop-curator-SCENARIO-<random>),
// removes it at the end, prints one summary line starting with "curator SCENARIO " on
// stdout, and exits 0. Any failure prints "FAIL: ..." on stderr and exits 1. The summary
// line holds no volatile values, so the same program prints the same line against every
// correct server.
//
// Written for zkx's interop tests (internal/zkserver/interop_test.go).

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;

public final class CuratorInterop {
    static final int CLIENTS = 3;
    static final int ROUNDS = 200;
    static final long WAIT_SECONDS = 20;

    /** Failure is a check that did not hold; main reports it and exits 1. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(String msg) {
            super(msg);
        }
    }

    static void check(boolean ok, String fmt, Object... args) {
        if (!ok) {
            throw new Failure(String.format(fmt, args));
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String str(byte[] b) {
        return b == null ? "null" : new String(b, StandardCharsets.UTF_8);
    }

    static String lastSegment(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /**
     * newClient starts a client with a bounded retry policy, and waits for its session. No scenario
     * waits for a session to end, so the timeouts are those of a loaded machine: a 4 s session
     * lost its connection when the test machine was busy.
     */
    static CuratorFramework newClient(String connect) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(20000)
                .connectionTimeoutMs(10000)
                .retryPolicy(new ExponentialBackoffRetry(50, 10, 1000))
                .build();
        c.start();
        if (!c.blockUntilConnected(15, TimeUnit.SECONDS)) {
            c.close();
            throw new Failure("no connection to " + connect + " within 15s");
        }
        return c;
    }

    // main runs each scenario named, one after the other, in one JVM (a
    // JVM costs half a second of CPU before it runs any), and exits 1 if
    // any failed.
    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: CuratorInterop CONNECT mutex|watches|transactions...");
            System.exit(2);
        }
        int status = 0;
        for (int i = 1; i < args.length; i++) {
            status = Math.max(status, run(args[0], args[i]));
        }
        System.out.flush();
        System.exit(status);
    }

    // run runs one scenario under a base path of its own and prints its
    // line; it returns the exit status that says how it went.
    static int run(String connect, String scenario) {
        String base = "/zkx-interop-curator-" + scenario + "-" + UUID.randomUUID().toString().substring(0, 8);
        List<CuratorFramework> clients = new ArrayList<>();
        int status = 0;
        try {
            String line;
            switch (scenario) {
                case "mutex":
                    line = mutex(connect, base, clients);
                    break;
                case "watches":
                    line = watches(connect, base, clients);
                    break;
                case "transactions":
                    line = transactions(connect, base, clients);
                    break;
                default:
                    System.err.println("unknown scenario " + scenario);
                    return 2;
            }
            System.out.println(line);
        } catch (Failure f) {
            System.err.println("FAIL: curator " + scenario + ": " + f.getMessage());
            status = 1;
        } catch (Throwable e) {
            System.err.println("FAIL: curator " + scenario + ": unexpected " + e);
            e.printStackTrace();
            status = 1;
        } finally {
            if (!clients.isEmpty()) {
                try {
                    CuratorFramework c = clients.get(0);
                    if (c.checkExists().forPath(base) != null) {
                        c.delete().deletingChildrenIfNeeded().forPath(base);
                    }
                } catch (Exception e) {
                    System.err.println("cleanup of " + base + ": " + e);
                }
            }
            for (CuratorFramework c : clients) {
                c.close();
            }
        }
        return status;
    }

    // ---- mutex -------------------------------------------------------------------------------

    /**
     * mutex: CLIENTS clients, each its own session, each an InterProcessMutex on one path, each
     * looping ROUNDS times acquire → check → release. The check is done twice: an in-JVM counter
     * of holders (must be 1), and the server's view (the lowest lock node belongs to our session).
     */
    static String mutex(String connect, String base, List<CuratorFramework> clients) throws Exception {
        String lockPath = base + "/lock";
        Set<Long> sessions = new HashSet<>();
        for (int i = 0; i < CLIENTS; i++) {
            CuratorFramework c = newClient(connect);
            clients.add(c);
            sessions.add(c.getZookeeperClient().getZooKeeper().getSessionId());
        }
        check(sessions.size() == CLIENTS, "want %d distinct sessions, got %d", CLIENTS, sessions.size());

        AtomicInteger inside = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger acquisitions = new AtomicInteger();
        AtomicInteger serverMismatches = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> done = new ArrayList<>();
        for (CuratorFramework c : clients) {
            done.add(pool.submit(() -> {
                InterProcessMutex m = new InterProcessMutex(c, lockPath);
                long session = c.getZookeeperClient().getZooKeeper().getSessionId();
                start.await();
                for (int r = 0; r < ROUNDS; r++) {
                    check(m.acquire(WAIT_SECONDS, TimeUnit.SECONDS), "acquire timed out after %ds (round %d)", WAIT_SECONDS, r);
                    try {
                        if (inside.incrementAndGet() != 1) {
                            violations.incrementAndGet();
                        }
                        acquisitions.incrementAndGet();
                        // The server's view: the lowest sequence node is the holder, and it is ours.
                        List<String> kids = c.getChildren().forPath(lockPath);
                        String lowest = kids.stream()
                                .min(Comparator.comparing(CuratorInterop::sequenceOf))
                                .orElseThrow(() -> new Failure("lock directory empty while held"));
                        Stat st = c.checkExists().forPath(lockPath + "/" + lowest);
                        if (st == null || st.getEphemeralOwner() != session) {
                            serverMismatches.incrementAndGet();
                        }
                        inside.decrementAndGet();
                    } finally {
                        m.release();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        pool.shutdown();
        for (Future<?> f : done) {
            try {
                f.get(110, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof Failure) {
                    throw (Failure) e.getCause();
                }
                throw new Failure("contender failed: " + e.getCause());
            }
        }
        check(violations.get() == 0, "%d mutual-exclusion violations", violations.get());
        check(serverMismatches.get() == 0, "%d acquisitions where the lowest lock node was not ours", serverMismatches.get());
        check(acquisitions.get() == CLIENTS * ROUNDS, "acquisitions=%d want %d", acquisitions.get(), CLIENTS * ROUNDS);
        // The lock directory is a container: a server may remove it as soon as it is empty.
        if (clients.get(0).checkExists().forPath(lockPath) != null) {
            try {
                List<String> left = clients.get(0).getChildren().forPath(lockPath);
                check(left.isEmpty(), "lock nodes left after all releases: %s", left);
            } catch (KeeperException.NoNodeException reaped) {
                // removed between the two reads
            }
        }
        return String.format("curator mutex clients=%d acquisitions=%d violations=%d", CLIENTS, acquisitions.get(), violations.get());
    }

    static int sequenceOf(String node) {
        // Curator's lock nodes end in a %010d sequence number after "-lock-".
        return Integer.parseInt(node.substring(node.length() - 10));
    }

    // ---- watches -----------------------------------------------------------------------------

    /** QueueWatcher puts each event it sees on a queue; one-shot watches register it anew. */
    static final class QueueWatcher implements CuratorWatcher {
        final BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();

        @Override
        public void process(WatchedEvent e) {
            events.add(e);
        }

        WatchedEvent next(String what) throws InterruptedException {
            WatchedEvent e = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            check(e != null, "no watch event for %s within %ds", what, WAIT_SECONDS);
            return e;
        }

        void expect(EventType type, String path, String what) throws InterruptedException {
            WatchedEvent e = next(what);
            check(e.getType() == type && path.equals(e.getPath()), "%s: want %s %s, got %s %s", what, type, path, e.getType(), e.getPath());
        }
    }

    /**
     * watches: one-shot data, child and exists watches (getData/getChildren/checkExists with a
     * watcher), then a CuratorCache (persistent recursive watch) seeing changes, a child added
     * and removed. Every change waits to be observed before the next, so the order is checked.
     */
    static String watches(String connect, String base, List<CuratorFramework> clients) throws Exception {
        CuratorFramework c = newClient(connect);
        clients.add(c);
        CuratorFramework writer = newClient(connect); // changes come from another session
        clients.add(writer);
        String node = base + "/w";
        writer.create().creatingParentsIfNeeded().forPath(node, bytes("v0"));

        // One-shot data watch: three setData calls, each seen in order, re-registered each time.
        QueueWatcher dw = new QueueWatcher();
        check("v0".equals(str(c.getData().usingWatcher(dw).forPath(node))), "initial data");
        StringJoiner data = new StringJoiner(",");
        for (int i = 1; i <= 3; i++) {
            writer.setData().forPath(node, bytes("v" + i));
            dw.expect(EventType.NodeDataChanged, node, "setData #" + i);
            Stat st = new Stat();
            String got = str(c.getData().storingStatIn(st).usingWatcher(dw).forPath(node));
            check(got.equals("v" + i) && st.getVersion() == i, "after setData #%d read %s version %d", i, got, st.getVersion());
            data.add(got);
        }
        // The watch left armed by the last read fires on delete.
        writer.delete().forPath(node);
        dw.expect(EventType.NodeDeleted, node, "delete of the watched node");
        data.add("deleted");

        // One-shot child watch: a child added, then removed.
        QueueWatcher cw = new QueueWatcher();
        check(c.getChildren().usingWatcher(cw).forPath(base).isEmpty(), "base not empty");
        StringJoiner children = new StringJoiner(",");
        writer.create().withMode(CreateMode.EPHEMERAL).forPath(base + "/kid");
        cw.expect(EventType.NodeChildrenChanged, base, "child added");
        List<String> kids = c.getChildren().usingWatcher(cw).forPath(base);
        check(kids.equals(Arrays.asList("kid")), "children after add: %s", kids);
        children.add("+kid");
        writer.delete().forPath(base + "/kid");
        cw.expect(EventType.NodeChildrenChanged, base, "child removed");
        kids = c.getChildren().forPath(base);
        check(kids.isEmpty(), "children after remove: %s", kids);
        children.add("-kid");

        // Exists watch on a missing node fires on its creation.
        QueueWatcher ew = new QueueWatcher();
        check(c.checkExists().usingWatcher(ew).forPath(node) == null, "node still exists");
        writer.create().forPath(node, bytes("again"));
        ew.expect(EventType.NodeCreated, node, "exists watch on create");

        // CuratorCache over base: a persistent recursive watch on servers that have them.
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        CountDownLatch initialized = new CountDownLatch(1);
        StringJoiner cache = new StringJoiner(",");
        try (CuratorCache cc = CuratorCache.build(c, base)) {
            cc.listenable().addListener(CuratorCacheListener.builder()
                    .forCreates(n -> seen.add("+" + lastSegment(n.getPath())))
                    .forChanges((before, after) -> seen.add("~" + lastSegment(after.getPath()) + "=" + str(after.getData())))
                    .forDeletes(n -> seen.add("-" + lastSegment(n.getPath())))
                    .forInitialized(initialized::countDown)
                    .build());
            cc.start();
            check(initialized.await(WAIT_SECONDS, TimeUnit.SECONDS), "CuratorCache not initialized");
            seen.clear(); // the initial load reports base and w as created
            String[] want = {"~w=c1", "~w=c2", "~w=c3", "+sub", "-sub"};
            for (String step : want) {
                switch (step.charAt(0)) {
                    case '~':
                        writer.setData().forPath(node, bytes(step.substring(3)));
                        break;
                    case '+':
                        writer.create().forPath(base + "/sub", bytes("s"));
                        break;
                    default:
                        writer.delete().forPath(base + "/sub");
                }
                String got = seen.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                check(step.equals(got), "CuratorCache: want %s, got %s", step, got);
                cache.add(got);
            }
        }
        return "curator watches data=" + data + " children=" + children + " exists=created cache=" + cache;
    }

    // ---- transactions ------------------------------------------------------------------------

    /** describe renders a committed transaction's results without volatile values. */
    static String describe(String base, List<CuratorTransactionResult> results) {
        StringJoiner j = new StringJoiner(" ", "[", "]");
        for (CuratorTransactionResult r : results) {
            String s = r.getType() + ":" + r.getForPath().substring(base.length() + 1);
            if (r.getResultPath() != null && !r.getResultPath().equals(r.getForPath())) {
                s += "->" + r.getResultPath().substring(base.length() + 1);
            }
            if (r.getResultStat() != null) {
                s += "(v" + r.getResultStat().getVersion() + ")";
            }
            j.add(s);
        }
        return j.toString();
    }

    /** failing commits ops that must fail, and returns the per-op result codes. */
    static String failing(CuratorFramework c, Class<? extends KeeperException> want, CuratorOp... ops) throws Exception {
        try {
            List<CuratorTransactionResult> r = c.transaction().forOperations(ops);
            throw new Failure("transaction that must fail committed: " + r.size() + " results");
        } catch (KeeperException e) {
            check(want.isInstance(e), "want %s, got %s", want.getSimpleName(), e);
            List<OpResult> results = e.getResults();
            check(results != null && results.size() == ops.length, "want %d per-op results, got %s", ops.length, results);
            StringJoiner j = new StringJoiner(" ", "[", "]");
            for (OpResult r : results) {
                check(r instanceof OpResult.ErrorResult, "op result after failure is %s, want ErrorResult", r);
                j.add(KeeperException.Code.get(((OpResult.ErrorResult) r).getErr()).name());
            }
            return j.toString();
        }
    }

    /**
     * transactions: a transaction of create+setData+check+sequential create commits; one whose
     * check has a wrong version and one that creates an existing node both throw, report a
     * result per op, and leave nothing applied.
     */
    static String transactions(String connect, String base, List<CuratorFramework> clients) throws Exception {
        CuratorFramework c = newClient(connect);
        clients.add(c);
        c.create().forPath(base);
        String tx = base + "/tx";

        List<CuratorTransactionResult> ok = c.transaction().forOperations(
                c.transactionOp().create().forPath(tx, bytes("a")),
                c.transactionOp().setData().forPath(tx, bytes("b")),
                c.transactionOp().check().withVersion(1).forPath(tx),
                c.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath(tx + "/s-", bytes("q")));
        Stat st = new Stat();
        String data = str(c.getData().storingStatIn(st).forPath(tx));
        check(data.equals("b") && st.getVersion() == 1 && st.getNumChildren() == 1,
                "after commit: data %s version %d children %d", data, st.getVersion(), st.getNumChildren());

        // A wrong version in a check: everything before it is rolled back, everything after is not tried.
        String badVersion = failing(c, KeeperException.BadVersionException.class,
                c.transactionOp().create().forPath(base + "/fail-1", bytes("x")),
                c.transactionOp().setData().forPath(tx, bytes("c")),
                c.transactionOp().check().withVersion(99).forPath(tx),
                c.transactionOp().create().forPath(base + "/fail-2", bytes("y")));
        // A create of a node that exists, and a delete of one that does not.
        String nodeExists = failing(c, KeeperException.NodeExistsException.class,
                c.transactionOp().setData().withVersion(1).forPath(tx, bytes("d")),
                c.transactionOp().create().forPath(tx, bytes("dup")),
                c.transactionOp().delete().forPath(base + "/missing"));

        // Nothing of the failed transactions is visible.
        List<String> kids = c.getChildren().forPath(base);
        check(kids.equals(Arrays.asList("tx")), "children after failed transactions: %s", kids);
        data = str(c.getData().storingStatIn(st).forPath(tx));
        check(data.equals("b") && st.getVersion() == 1, "after failed transactions: data %s version %d", data, st.getVersion());
        return "curator transactions commit=" + describe(base, ok) + " bad_version=" + badVersion
                + " node_exists=" + nodeExists + " applied_after_failures=none";
    }
}
