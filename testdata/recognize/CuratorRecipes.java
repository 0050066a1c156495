// CuratorRecipes sets up live coordination state with Apache Curator 5.4 (as Debian
// ships it) for zkview's recogniser tests (zkview/recognize_real_test.go), each
// contender on a session of its own, created one after the other so that the order
// of the nodes is known:
//
//   BASE/mutex      InterProcessMutex: m1 holds, m2 and m3 wait
//   BASE/rw         InterProcessReadWriteLock: r1 and r2 read, w3 waits, r4 waits, w5 waits
//   BASE/semaphore  InterProcessSemaphoreV2 of 2 leases: s1, s2 hold, s3 waits for a
//                   lease (holding locks/), s4 waits in locks/
//   BASE/latch      LeaderLatch: p1 leads, p2 and p3 wait
//   BASE/selector   LeaderSelector: e1 leads, e2 waits
//   BASE/queue      DistributedQueue (producer only) with "one", "two", "three"
//   BASE/simple     SimpleDistributedQueue with "a", "b"
//   BASE/barrier    DistributedBarrier, set
//   BASE/double     DistributedDoubleBarrier of 3, two entered
//
// Written for zkx. Not standalone: RecognizeMain runs it (with ZkRecipes).

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.queue.SimpleDistributedQueue;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorRecipes {
    static final long WAIT_SECONDS = 60;

    private final String connect;
    private final String base;
    private final List<CuratorFramework> clients = new ArrayList<>();
    /** Never released: leaders lead until the process exits. */
    private final CountDownLatch done = new CountDownLatch(1);

    CuratorRecipes(String connect, String base) {
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
        clients.add(c);
        return c;
    }

    /** Runs a blocking call on a thread of its own (a waiter). */
    static void background(String name, Callable call) {
        Thread t = new Thread(() -> {
            try {
                call.run();
            } catch (InterruptedException e) {
                // the end
            } catch (Exception e) {
                if (!(e.getCause() instanceof InterruptedException)) {
                    System.err.println(name + ": " + e);
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    interface Callable {
        void run() throws Exception;
    }

    /** Waits, on watches, until the children of path satisfy ok. */
    void awaitChildren(String path, Predicate<List<String>> ok) throws Exception {
        CuratorFramework c = clients.get(0);
        for (;;) {
            CountDownLatch changed = new CountDownLatch(1);
            CuratorWatcher w = event -> changed.countDown();
            List<String> children = null;
            if (c.checkExists().usingWatcher(w).forPath(path) != null) {
                children = c.getChildren().usingWatcher(w).forPath(path);
                if (ok.test(children)) {
                    return;
                }
            }
            if (!changed.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("waited in vain for " + path + ": " + children);
            }
        }
    }

    void awaitCount(String path, int n) throws Exception {
        awaitChildren(path, children -> children.size() >= n);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    void setUp() throws Exception {
        client(); // the observer: awaitChildren watches through it
        mutex();
        readWrite();
        semaphore();
        latch();
        selector();
        queues();
        barriers();
    }

    void mutex() throws Exception {
        String path = base + "/mutex";
        new InterProcessMutex(client(), path).acquire();
        for (int i = 2; i <= 3; i++) {
            InterProcessMutex m = new InterProcessMutex(client(), path);
            background("m" + i, m::acquire);
            awaitCount(path, i);
        }
    }

    void readWrite() throws Exception {
        String path = base + "/rw";
        new InterProcessReadWriteLock(client(), path).readLock().acquire();
        awaitCount(path, 1);
        new InterProcessReadWriteLock(client(), path).readLock().acquire();
        awaitCount(path, 2);
        InterProcessReadWriteLock w3 = new InterProcessReadWriteLock(client(), path);
        background("w3", () -> w3.writeLock().acquire());
        awaitCount(path, 3);
        InterProcessReadWriteLock r4 = new InterProcessReadWriteLock(client(), path);
        background("r4", () -> r4.readLock().acquire());
        awaitCount(path, 4);
        InterProcessReadWriteLock w5 = new InterProcessReadWriteLock(client(), path);
        background("w5", () -> w5.writeLock().acquire());
        awaitCount(path, 5);
    }

    void semaphore() throws Exception {
        String path = base + "/semaphore";
        new InterProcessSemaphoreV2(client(), path, 2).acquire();
        new InterProcessSemaphoreV2(client(), path, 2).acquire();
        InterProcessSemaphoreV2 s3 = new InterProcessSemaphoreV2(client(), path, 2);
        background("s3", s3::acquire);
        awaitCount(path + "/leases", 3); // s3 holds locks/ and waits for a lease
        InterProcessSemaphoreV2 s4 = new InterProcessSemaphoreV2(client(), path, 2);
        background("s4", s4::acquire);
        awaitCount(path + "/locks", 2);
    }

    void latch() throws Exception {
        String path = base + "/latch";
        for (int i = 1; i <= 3; i++) {
            LeaderLatch l = new LeaderLatch(client(), path, "p" + i);
            l.start();
            awaitCount(path, i);
        }
    }

    void selector() throws Exception {
        String path = base + "/selector";
        CountDownLatch leading = new CountDownLatch(1);
        for (int i = 1; i <= 2; i++) {
            LeaderSelector s = new LeaderSelector(client(), path, new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) throws Exception {
                    leading.countDown();
                    done.await();
                }
            });
            s.setId("e" + i);
            s.start();
            if (i == 1 && !leading.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no leader for " + path);
            }
            awaitCount(path, i);
        }
    }

    void queues() throws Exception {
        QueueSerializer<String> text = new QueueSerializer<String>() {
            @Override
            public byte[] serialize(String item) {
                return bytes(item);
            }

            @Override
            public String deserialize(byte[] bytes) {
                return new String(bytes, StandardCharsets.UTF_8);
            }
        };
        DistributedQueue<String> q = QueueBuilder.builder(client(), null, text, base + "/queue").putInBackground(false).buildQueue();
        q.start();
        for (String item : new String[] {"one", "two", "three"}) {
            q.put(item);
        }
        SimpleDistributedQueue simple = new SimpleDistributedQueue(client(), base + "/simple");
        simple.offer(bytes("a"));
        simple.offer(bytes("b"));
    }

    void barriers() throws Exception {
        new DistributedBarrier(client(), base + "/barrier").setBarrier();
        String path = base + "/double";
        for (int i = 1; i <= 2; i++) {
            DistributedDoubleBarrier b = new DistributedDoubleBarrier(client(), path, 3);
            background("d" + i, b::enter);
            awaitCount(path, i);
        }
    }
}
