// LockBench measures Apache Curator's InterProcessMutex as scripts/lockbench
// measures recipes.Mutex: N contenders, each with its own CuratorFramework
// (its own ZooKeeper session), loop acquire → release on one lock path for
// a duration, then one line:
//
//   curator-InterProcessMutex n=N secs=S acquisitions=A rate=R/s handoff_p50_ms=P handoff_p99_ms=Q violations=V
//
// A handoff is the time from a holder starting its release to the next
// holder returning from acquire(); a violation is an acquire returning
// while another contender holds, as an in-process counter sees it.
//
// Built against Debian's jars (libcurator-recipes-java) by
// scripts/bench-locks.sh:
//
//   javac -cp "$CP" -d OUT scripts/lockbench-curator/LockBench.java
//   java -cp "OUT:$CP" LockBench HOST:PORT [N=10] [SECONDS=10]
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;

public final class LockBench {
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: LockBench HOST:PORT [N=10] [SECONDS=10]");
            System.exit(2);
        }
        String connect = args[0];
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int secs = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        String path = "/bench/curator-" + System.nanoTime();

        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 30000, 15000, new RetryNTimes(3, 100));
            c.start();
            if (!c.blockUntilConnected(15, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no session with " + connect + " within 15s");
            }
            clients.add(c);
        }

        AtomicLong count = new AtomicLong(), inside = new AtomicLong(), violations = new AtomicLong();
        AtomicLong lastRelease = new AtomicLong(0);
        List<Long> handoffs = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(secs);

        List<Thread> threads = new ArrayList<>();
        for (CuratorFramework c : clients) {
            InterProcessMutex m = new InterProcessMutex(c, path);
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        m.acquire();
                        long now = System.nanoTime();
                        long lr = lastRelease.get();
                        if (lr != 0) {
                            handoffs.add(now - lr);
                        }
                        if (inside.incrementAndGet() != 1) {
                            violations.incrementAndGet();
                        }
                        count.incrementAndGet();
                        inside.decrementAndGet();
                        lastRelease.set(System.nanoTime());
                        m.release();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        for (CuratorFramework c : clients) {
            c.close();
        }
        if (failure.get() != null) {
            failure.get().printStackTrace();
            System.exit(1);
        }

        List<Long> sorted = new ArrayList<>(handoffs);
        Collections.sort(sorted);
        System.out.printf(Locale.ROOT, "curator-InterProcessMutex n=%d secs=%d acquisitions=%d rate=%.1f/s handoff_p50_ms=%.3f handoff_p99_ms=%.3f violations=%d%n",
                n, secs, count.get(), (double) count.get() / secs, percentile(sorted, 0.5), percentile(sorted, 0.99), violations.get());
    }

    // percentile of sorted nanoseconds, in milliseconds: the sample at index ⌊len·q⌋.
    static double percentile(List<Long> sorted, double q) {
        if (sorted.isEmpty()) {
            return 0;
        }
        return sorted.get((int) (sorted.size() * q)) / 1e6;
    }
}
