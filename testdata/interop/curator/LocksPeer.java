import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

// A Curator process with one session that takes several locks, driven
// line by line by a test (or a person): the way an application takes
// locks in an order. It prints "SESSION 0x<id>" once connected; then, on
// stdin:
//   lock PATH     InterProcessMutex.acquire on a thread of its own  -> locked PATH (once held)
//   read PATH     InterProcessReadWriteLock's read lock             -> read-locked PATH
//   write PATH    InterProcessReadWriteLock's write lock            -> write-locked PATH
//   unlock PATH   release, on the thread that holds it              -> unlocked PATH
// Any failure prints "error ...". EOF closes the client and exits. The
// session timeout is -Dpeer.sessionTimeoutMs (default 12000).
// Usage: LocksPeer CONNECT
// Written for zkx.
public class LocksPeer {
  static final Map<String, BlockingQueue<String>> holders = new HashMap<>();

  static synchronized void say(String s) {
    System.out.println(s);
    System.out.flush();
  }

  public static void main(String[] a) throws Exception {
    int timeout = Integer.getInteger("peer.sessionTimeoutMs", 12000);
    CuratorFramework client = CuratorFrameworkFactory.newClient(a[0], timeout, 5000, new ExponentialBackoffRetry(50, 5));
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no connection to " + a[0]);
    say("SESSION 0x" + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] f = line.trim().split(" ");
      try {
        switch (f[0]) {
          case "lock": take(f[1], new InterProcessMutex(client, f[1]), "locked"); break;
          case "read": take(f[1], new InterProcessReadWriteLock(client, f[1]).readLock(), "read-locked"); break;
          case "write": take(f[1], new InterProcessReadWriteLock(client, f[1]).writeLock(), "write-locked"); break;
          case "unlock": holders.remove(f[1]).put("release"); break;
          default: say("error unknown command " + line);
        }
      } catch (Exception e) {
        say("error " + line + ": " + e);
      }
    }
    client.close();
    System.exit(0);
  }

  // take acquires on a thread of its own, which keeps the lock until told
  // to release it: Curator's locks belong to the thread that acquired them.
  static void take(String path, InterProcessLock lock, String said) {
    BlockingQueue<String> release = new LinkedBlockingQueue<>();
    holders.put(path, release);
    Thread t = new Thread(() -> {
      try {
        lock.acquire();
        say(said + " " + path);
        release.take();
        lock.release();
        say("unlocked " + path);
      } catch (InterruptedException e) {
        // the process ends
      } catch (Exception e) {
        say("error " + said + " " + path + ": " + e);
      }
    }, "lock " + path);
    t.setDaemon(true);
    t.start();
  }
}
