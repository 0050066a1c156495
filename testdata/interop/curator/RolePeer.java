import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

// A Curator process with one session that takes several recipes at once,
// for the tests and the benchmark of a sick ensemble (a member or a holder
// frozen with SIGSTOP): each ROLE:PATH is taken on a thread of its own, in
// the order given, the next one started once the previous one's node is
// in place (held, or waiting in line).
//
//   read:PATH   InterProcessReadWriteLock(PATH).readLock()
//   write:PATH  InterProcessReadWriteLock(PATH).writeLock()
//   mutex:PATH  InterProcessMutex(PATH)
//   latch:PATH  LeaderLatch(PATH)
//
// It prints "SESSION 0x<id>" once connected, "QUEUED ROLE PATH" once the
// recipe's node is created (Curator does that before it waits), and
// "HOLDING ROLE PATH" when Curator believes it holds (the latch: leads).
// -Dpeer.sessionTimeoutMs sets the session timeout (default 10000);
// -Dpeer.touchMs, when positive, makes the process ask the server
// something (exists of the first PATH) that often, as a busy client does.
// When stdin closes it closes its client and exits.
// Usage: RolePeer CONNECT ROLE:PATH [ROLE:PATH...]
// Written for zkx.
public class RolePeer {
  static synchronized void say(String s) {
    System.out.println(s);
    System.out.flush();
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0];
    int timeout = Integer.getInteger("peer.sessionTimeoutMs", 10000);
    int touchMs = Integer.getInteger("peer.touchMs", 0);
    CuratorFramework client = CuratorFrameworkFactory.newClient(connect, timeout, 5000, new ExponentialBackoffRetry(50, 5));
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no connection to " + connect);
    say("SESSION 0x" + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()));
    List<String> paths = new ArrayList<>();
    for (int i = 1; i < a.length; i++) {
      String[] rp = a[i].split(":", 2);
      String role = rp[0], path = rp[1];
      paths.add(path);
      int before = children(client, path);
      Thread t = new Thread(() -> take(client, role, path), role + " " + path);
      t.setDaemon(true);
      t.start();
      // Wait for this recipe's node before the next one's: the order of
      // the nodes is the order of the arguments.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (children(client, path) <= before && System.nanoTime() < deadline) Thread.sleep(20);
      say("QUEUED " + role + " " + path);
    }
    if (touchMs > 0) {
      Thread toucher = new Thread(() -> {
        try {
          while (true) {
            client.checkExists().forPath(paths.get(0));
            Thread.sleep(touchMs);
          }
        } catch (Exception e) {
          // the process ends
        }
      }, "toucher");
      toucher.setDaemon(true);
      toucher.start();
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    while (in.readLine() != null) {
      // stdin only tells us when to stop
    }
    client.close();
    System.exit(0);
  }

  // children counts the nodes under path, 0 when it does not exist yet.
  static int children(CuratorFramework client, String path) {
    try {
      return client.checkExists().forPath(path) == null ? 0 : client.getChildren().forPath(path).size();
    } catch (Exception e) {
      return 0;
    }
  }

  static void take(CuratorFramework client, String role, String path) {
    try {
      if (role.equals("latch")) {
        LeaderLatch latch = new LeaderLatch(client, path);
        latch.start();
        latch.await();
        say("HOLDING latch " + path);
        return; // the latch keeps leading until the client closes
      }
      InterProcessLock lock = switch (role) {
        case "read" -> new InterProcessReadWriteLock(client, path).readLock();
        case "write" -> new InterProcessReadWriteLock(client, path).writeLock();
        case "mutex" -> new InterProcessMutex(client, path);
        default -> throw new IllegalArgumentException("unknown role " + role);
      };
      lock.acquire();
      say("HOLDING " + role + " " + path);
    } catch (Exception e) {
      say("FAILED " + role + " " + path + " " + e);
    }
  }
}
