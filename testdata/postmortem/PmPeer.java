import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

// A Curator peer the post-mortem scenario (internal/testkit/zktest) drives
// line by line, so that the transaction log it leaves is known step by
// step. Commands on stdin, answers on stdout:
//   open NAME [USER:PASSWORD]
//                      a client (a session) of its own, authenticated with
//                      digest USER:PASSWORD when given -> opened NAME 0x<session>
//   lock NAME PATH     InterProcessMutex.acquire, on a thread of its own
//                                                         -> locked NAME PATH (once held)
//   unlock NAME PATH   release, on the thread that holds  -> unlocked NAME PATH
//   lead NAME PATH     LeaderLatch.start                  -> leading NAME PATH (once leader)
//   resign NAME PATH   LeaderLatch.close                  -> resigned NAME PATH
//   close NAME         the client's close (closeSession)  -> closed NAME
// Any failure prints "error ..." and the peer goes on. EOF ends it.
// Usage: PmPeer CONNECT
public class PmPeer {
  static final Map<String, CuratorFramework> clients = new HashMap<>();
  static final Map<String, BlockingQueue<String>> holders = new HashMap<>();
  static final Map<String, LeaderLatch> latches = new HashMap<>();

  public static void main(String[] a) throws Exception {
    String connect = a[0];
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] f = line.trim().split(" ");
      try {
        switch (f[0]) {
          case "open": open(connect, f[1], f.length > 2 ? f[2] : null); break;
          case "lock": lock(f[1], f[2]); break;
          case "unlock": holders.remove(f[1] + " " + f[2]).put("release"); break;
          case "lead": lead(f[1], f[2]); break;
          case "resign": latches.remove(f[1] + " " + f[2]).close(); say("resigned " + f[1] + " " + f[2]); break;
          case "close": clients.remove(f[1]).close(); say("closed " + f[1]); break;
          default: say("error unknown command " + line);
        }
      } catch (Exception e) {
        say("error " + line + ": " + e);
      }
    }
    for (CuratorFramework c : clients.values()) c.close();
  }

  static synchronized void say(String s) {
    System.out.println(s);
    System.out.flush();
  }

  static void open(String connect, String name, String digest) throws Exception {
    CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder().connectString(connect)
        .sessionTimeoutMs(30000).connectionTimeoutMs(10000).retryPolicy(new ExponentialBackoffRetry(50, 5));
    if (digest != null) b = b.authorization("digest", digest.getBytes("UTF-8"));
    CuratorFramework c = b.build();
    c.start();
    if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no connection to " + connect);
    clients.put(name, c);
    say("opened " + name + " 0x" + Long.toHexString(c.getZookeeperClient().getZooKeeper().getSessionId()));
  }

  // lock holds the mutex on a thread of its own: Curator's locks belong to
  // the thread that acquired them, and only it may release.
  static void lock(String name, String path) {
    CuratorFramework c = clients.get(name);
    BlockingQueue<String> release = new LinkedBlockingQueue<>();
    holders.put(name + " " + path, release);
    Thread t = new Thread(() -> {
      InterProcessMutex m = new InterProcessMutex(c, path);
      try {
        if (!m.acquire(120, TimeUnit.SECONDS)) {
          say("error lock " + name + " " + path + ": not acquired within 120s");
          return;
        }
        say("locked " + name + " " + path);
        release.take();
        try {
          m.release();
        } catch (Exception e) {
          // the node was deleted by someone else: Curator still lets go
        }
        say("unlocked " + name + " " + path);
      } catch (Exception e) {
        say("error lock " + name + " " + path + ": " + e);
      }
    }, "lock-" + name);
    t.setDaemon(true);
    t.start();
  }

  static void lead(String name, String path) throws Exception {
    LeaderLatch l = new LeaderLatch(clients.get(name), path, name);
    latches.put(name + " " + path, l);
    l.start();
    Thread t = new Thread(() -> {
      try {
        if (l.await(120, TimeUnit.SECONDS)) say("leading " + name + " " + path);
        else say("error lead " + name + " " + path + ": not leader within 120s");
      } catch (Exception e) {
        // closed before it led
      }
    }, "latch-" + name);
    t.setDaemon(true);
    t.start();
  }
}
