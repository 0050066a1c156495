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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

// A Curator contender for the recipes interop test: it takes a recipe on a
// path ITERATIONS times and, while holding it, appends "IN <id> <kind>" and
// "OUT <id> <kind>" lines to a shared log (O_APPEND), which the Go test
// checks for overlaps against zkx's recipes on the same path.
// All contenders start together: each creates GATE/ready-ID and waits for
// GATE/go, which the test creates once everyone is ready.
// Usage: Contender CONNECT PATH mutex|read|write|latch ITERATIONS LOGFILE ID GATE
public class Contender {
  public static void main(String[] a) throws Exception {
    String connect = a[0], path = a[1], kind = a[2], log = a[4], id = a[5], gate = a[6];
    int iterations = Integer.parseInt(a[3]);
    CuratorFramework client = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(50, 5));
    client.start();
    if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) throw new IllegalStateException("no connection to " + connect);
    client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(gate + "/ready-" + id);
    while (true) {
      CountDownLatch changed = new CountDownLatch(1);
      if (client.checkExists().usingWatcher((CuratorWatcher) e -> changed.countDown()).forPath(gate + "/go") != null) break;
      if (!changed.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("no start signal within 60s");
    }
    try (FileOutputStream out = new FileOutputStream(log, true)) {
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
    System.out.println("done " + id);
  }

  // line appends one line with a single write, so lines of concurrent
  // writers never interleave.
  static void line(FileOutputStream out, String s) throws Exception {
    out.write((s + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
