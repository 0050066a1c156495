// CuratorSeen sets up live state with Apache Curator 5.4 (as Debian ships it) for the
// recogniser's tests of groups, counters, semaphores' maxima and queue health
// (zkview/recognize/real_seen_test.go), each member on a session of its own:
//
//   BASE/members      GroupMember api-1 and api-2 (default payload: the host's address)
//   BASE/sem          InterProcessSemaphoreV2 reading its maximum from the SharedCount
//                     BASE/sem-max: three leases taken at 3, then the count set to 1
//   BASE/smutex       InterProcessSemaphoreMutex held, and a lease of an
//                     InterProcessSemaphoreV2 of 2 on the same path: two leases
//   BASE/shared       SharedCount of 11
//   BASE/along        DistributedAtomicLong, 42 added
//   BASE/aint         DistributedAtomicInteger, 7 added
//   BASE/delayq       DistributedDelayQueue (producer): "overdue" due 12 minutes ago,
//                     "soon" due in 3 minutes, "later" due in an hour
//   BASE/idq          DistributedIdQueue (producer): ids job-7 and job-8
//   BASE/flightq      DistributedDelayQueue with lockPath BASE/flightq-lock (producer):
//                     "stuck" due 2 s ago, "next" due 1 s ago, "future" due in an hour;
//                     CuratorConsumer consumes it
//
// It prints "READY" once it is all set up, keeps its sessions until its stdin closes,
// then exits 0 without closing them one by one (as RecognizeMain: a Java client's close
// takes about 100 ms, and closes do not overlap); they end with the process. A failure
// prints "FAIL: ..." on stderr and exits 1.
//
// Usage: java -cp CLASSPATH CuratorSeen CONNECT BASE
// Written for zkx.

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicInteger;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.framework.recipes.queue.DistributedDelayQueue;
import org.apache.curator.framework.recipes.queue.DistributedIdQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;

public final class CuratorSeen {
    static final long WAIT_SECONDS = 60;

    /** Items as UTF-8 text. */
    static final QueueSerializer<String> TEXT = new QueueSerializer<String>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    private final String connect;
    private final String base;
    /** What is set up, kept referenced while the process runs. */
    private final List<AutoCloseable> live = new ArrayList<>();

    CuratorSeen(String connect, String base) {
        this.connect = connect;
        this.base = base;
    }

    /** A new client, on its own session. */
    CuratorFramework client() throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 30000, 15000, new ExponentialBackoffRetry(100, 3));
        c.start();
        if (!c.blockUntilConnected((int) WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no session with " + connect);
        }
        live.add(c);
        return c;
    }

    void setUp() throws Exception {
        for (String id : new String[] {"api-1", "api-2"}) {
            GroupMember m = new GroupMember(client(), base + "/members", id);
            m.start();
            live.add(m);
        }
        semaphores();
        counters();
        queues();
        awaitChildren(base + "/members", 2); // GroupMember creates its node in the background
    }

    /** Waits, on watches, until path has at least n children. */
    void awaitChildren(String path, int n) throws Exception {
        CuratorFramework observer = client();
        for (;;) {
            CountDownLatch changed = new CountDownLatch(1);
            CuratorWatcher w = event -> changed.countDown();
            if (observer.checkExists().usingWatcher(w).forPath(path) != null
                    && observer.getChildren().usingWatcher(w).forPath(path).size() >= n) {
                return;
            }
            if (!changed.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("waited in vain for " + n + " children of " + path);
            }
        }
    }

    void semaphores() throws Exception {
        SharedCount max = new SharedCount(client(), base + "/sem-max", 3);
        max.start();
        live.add(max);
        for (int i = 0; i < 3; i++) {
            if (new InterProcessSemaphoreV2(client(), base + "/sem", max).acquire(WAIT_SECONDS, TimeUnit.SECONDS) == null) {
                throw new IllegalStateException("no lease " + i + " of " + base + "/sem");
            }
        }
        max.setCount(1); // Curator takes no lease back: three are held, one is allowed
        new InterProcessSemaphoreMutex(client(), base + "/smutex").acquire();
        if (new InterProcessSemaphoreV2(client(), base + "/smutex", 2).acquire(WAIT_SECONDS, TimeUnit.SECONDS) == null) {
            throw new IllegalStateException("no second lease of " + base + "/smutex");
        }
    }

    void counters() throws Exception {
        SharedCount shared = new SharedCount(client(), base + "/shared", 11);
        shared.start();
        live.add(shared);
        if (!new DistributedAtomicLong(client(), base + "/along", new RetryNTimes(10, 10)).add(42L).succeeded()) {
            throw new IllegalStateException("DistributedAtomicLong.add failed");
        }
        if (!new DistributedAtomicInteger(client(), base + "/aint", new RetryNTimes(10, 10)).add(7).succeeded()) {
            throw new IllegalStateException("DistributedAtomicInteger.add failed");
        }
    }

    void queues() throws Exception {
        long now = System.currentTimeMillis();
        DistributedDelayQueue<String> delay = QueueBuilder.builder(client(), null, TEXT, base + "/delayq").putInBackground(false).buildDelayQueue();
        delay.start();
        live.add(delay);
        delay.put("overdue", now - TimeUnit.MINUTES.toMillis(12));
        delay.put("soon", now + TimeUnit.MINUTES.toMillis(3));
        delay.put("later", now + TimeUnit.HOURS.toMillis(1));

        DistributedIdQueue<String> ids = QueueBuilder.builder(client(), null, TEXT, base + "/idq").putInBackground(false).buildIdQueue();
        ids.start();
        live.add(ids);
        ids.put("job seven", "job-7");
        ids.put("job eight", "job-8");

        DistributedDelayQueue<String> flight = QueueBuilder.builder(client(), null, TEXT, base + "/flightq")
            .lockPath(base + "/flightq-lock").putInBackground(false).buildDelayQueue();
        flight.start();
        live.add(flight);
        flight.put("stuck", now - 2000);
        flight.put("next", now - 1000);
        flight.put("future", now + TimeUnit.HOURS.toMillis(1));
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: CuratorSeen CONNECT BASE");
            System.exit(2);
        }
        CuratorSeen s = new CuratorSeen(args[0], args[1]);
        try {
            s.setUp();
            System.out.println("READY");
            System.out.flush();
            while (System.in.read() >= 0) {
                // keep the state live until the test closes our stdin
            }
        } catch (Throwable e) {
            System.err.println("FAIL: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
