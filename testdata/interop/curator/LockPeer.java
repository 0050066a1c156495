import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

// A Curator lock contender that a test (or a person, by hand) drives: it
// takes an InterProcessMutex on PATH and says what Curator believes.
// It prints "SESSION 0x<id>" once connected, then "HOLDING" when acquire
// returns (Curator believes it holds the lock), "RELEASED" after a
// "release" line on stdin. When stdin closes it closes its client and
// exits. The session timeout is -Dpeer.sessionTimeoutMs (default 12000).
// Usage: LockPeer CONNECT PATH
// Written for zkx.
public class LockPeer {
  static synchronized void say(String s) {
    System.out.println(s);
    System.out.flush();
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], path = a[1];
    int timeout = Integer.getInteger("peer.sessionTimeoutMs", 12000);
    CuratorFramework client = CuratorFrameworkFactory.newClient(connect, timeout, 5000, new ExponentialBackoffRetry(50, 5));
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no connection to " + connect);
    say("SESSION 0x" + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()));
    InterProcessMutex mutex = new InterProcessMutex(client, path);
    // An InterProcessMutex is released by the thread that acquired it:
    // that thread takes the commands.
    LinkedBlockingQueue<String> commands = new LinkedBlockingQueue<>();
    Thread owner = new Thread(() -> {
      try {
        mutex.acquire();
        say("HOLDING");
        while (true) {
          String c = commands.take();
          if (c.equals("release")) {
            mutex.release();
            say("RELEASED");
            return;
          }
        }
      } catch (InterruptedException e) {
        // the process ends
      } catch (Exception e) {
        say("FAILED " + e);
      }
    }, "owner");
    owner.setDaemon(true);
    owner.start();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      commands.put(line.trim());
    }
    client.close();
    System.exit(0);
  }
}
