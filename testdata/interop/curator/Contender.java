import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

// Curator contenders for the recipes interop test, one process for all of
// a test's: each takes a recipe on a path ITERATIONS times with a client
// (a session) of its own, in a thread of its own, and, while holding it,
// appends "IN <id> <kind>" and "OUT <id> <kind>" lines to a shared log
// (O_APPEND), which the Go test checks for overlaps against zkx's recipes
// on the same path. One JVM for several contenders: each JVM costs half a
// second of CPU before it contends.
// All contenders start together: each creates GATE/ready-ID and waits for
// GATE/go, which the test creates once everyone is ready.
// Usage: Contender CONNECT PATH ITERATIONS LOGFILE GATE KIND:ID...
// (KIND is mutex, read, write or latch)
public class Contender {
  public static void main(String[] a) throws Exception {
    if (a.length < 6) {
      System.err.println("usage: Contender CONNECT PATH ITERATIONS LOGFILE GATE KIND:ID...");
      System.exit(2);
    }
    String connect = a[0], path = a[1], log = a[3], gate = a[4];
    int iterations = Integer.parseInt(a[2]);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    try (FileOutputStream out = new FileOutputStream(log, true)) {
      for (int i = 5; i < a.length; i++) {
        String[] kindID = a[i].split(":", 2);
        if (kindID.length != 2) throw new IllegalArgumentException("want KIND:ID, got " + a[i]);
        Thread t = new Thread(() -> {
          try {
            contend(connect, path, kindID[0], iterations, out, kindID[1], gate);
            System.out.println("done " + kindID[1]);
          } catch (Throwable e) {
            failures.add(new IllegalStateException(kindID[1] + ": " + e, e));
          }
        });
        t.start();
        threads.add(t);
      }
      for (Thread t : threads) t.join();
    }
    for (Throwable f : failures) f.printStackTrace();
    if (!failures.isEmpty()) System.exit(1);
  }

  static void contend(String connect, String path, String kind, int iterations, FileOutputStream out, String id, String gate) throws Exception {
    CuratorFramework client = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(50, 5));
    client.start();
    try {
      if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) throw new IllegalStateException("no connection to " + connect);
      client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(gate + "/ready-" + id);
      while (true) {
        CountDownLatch changed = new CountDownLatch(1);
        if (client.checkExists().usingWatcher((CuratorWatcher) e -> changed.countDown()).forPath(gate + "/go") != null) break;
        if (!changed.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("no start signal within 60s");
      }
      for (int i = 0; i < iterations; i++) {
        if (kind.equals("latch")) {
          LeaderLatch latch = new LeaderLatch(client, path, id);
          latch.start();
          if (!latch.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("no leadership within 60s");
          line(out, "IN " + id + " " + kind);
          client.checkExists().forPath(path); // a little work while holding
          line(out, "OUT " + id + " " + kind);
          latch.close();
          continue;
        }
        InterProcessLock lock = switch (kind) {
          case "mutex" -> new InterProcessMutex(client, path);
          case "read" -> new InterProcessReadWriteLock(client, path).readLock();
          case "write" -> new InterProcessReadWriteLock(client, path).writeLock();
          default -> throw new IllegalArgumentException("unknown kind " + kind);
        };
        if (!lock.acquire(60, TimeUnit.SECONDS)) throw new IllegalStateException("no lock within 60s");
        line(out, "IN " + id + " " + kind);
        client.checkExists().forPath(path); // a little work while holding
        line(out, "OUT " + id + " " + kind);
        lock.release();
      }
    } finally {
      client.close();
    }
  }

  // line appends one line with a single write, so lines of concurrent
  // writers (threads and processes) never interleave.
  static void line(FileOutputStream out, String s) throws Exception {
    out.write((s + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
