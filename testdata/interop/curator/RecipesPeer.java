import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.MultiItem;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

// Curator 5.4's recipes, driven line by line by the recipes' interop tests
// (recipes/interop_recipes_test.go, cmd/revoke_test.go), each command on
// stdin answered by a line on stdout; a failure prints "error ...".
//
//   group PATH ID PAYLOAD    start a GroupMember                → JOINED
//   members IDS              wait until getCurrentMembers is exactly IDS
//                            (id=payload,... sorted; "-" for none) → MEMBERS ...
//   leave                    close the GroupMember              → LEFT
//   count-read PATH          a fresh SharedCount's versioned value → COUNT V VERSION
//   count-add PATH N         N increments by trySetCount          → ADDED N
//   count-set PATH V         setCount                             → SET V
//   queue-put PATH ITEM...   DistributedQueue.put (one item) or putMulti → PUT N
//   queue-take PATH N        a DistributedQueue consumer until it was
//                            handed N items, each printed as it comes → ITEM X ... TOOK N
//   revocable PATH mutex|read|write [deaf]
//                            acquire an InterProcessMutex (or one side of an
//                            InterProcessReadWriteLock) made revocable, whose
//                            listener releases it → HOLDING, later
//                            REVOKED then RELEASED; with deaf the listener
//                            only says REVOKED, and the lock stays held
//   revoke NODE              Revoker.attemptRevoke on a lock's node → ASKED
//   session                  → SESSION 0x<id>
//
// Items and payloads are UTF-8 text. When stdin closes it closes everything
// and exits. Written for zkx.
public class RecipesPeer {
  static synchronized void say(String s) {
    System.out.println(s);
    System.out.flush();
  }

  static final QueueSerializer<byte[]> BYTES = new QueueSerializer<byte[]>() {
    public byte[] serialize(byte[] item) { return item; }
    public byte[] deserialize(byte[] bytes) { return bytes; }
  };

  static CuratorFramework client;
  static GroupMember member;

  public static void main(String[] a) throws Exception {
    client = CuratorFrameworkFactory.newClient(a[0], 12000, 5000, new ExponentialBackoffRetry(50, 5));
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no connection to " + a[0]);
    say("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] w = line.trim().split(" ");
      try {
        run(w);
      } catch (Exception e) {
        say("error " + line + ": " + e);
      }
    }
    if (member != null) member.close();
    client.close();
    System.exit(0);
  }

  static void run(String[] w) throws Exception {
    switch (w[0]) {
      case "session" -> say("SESSION 0x" + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()));
      case "group" -> {
        member = new GroupMember(client, w[1], w[2], w[3].getBytes(StandardCharsets.UTF_8));
        member.start();
        say("JOINED");
      }
      case "members" -> say("MEMBERS " + awaitMembers(w[1]));
      case "leave" -> {
        member.close();
        member = null;
        say("LEFT");
      }
      case "count-read" -> {
        try (SharedCount count = new SharedCount(client, w[1], 0)) {
          count.start();
          VersionedValue<Integer> v = count.getVersionedValue();
          say("COUNT " + v.getValue() + " " + v.getVersion());
        }
      }
      case "count-add" -> {
        int n = Integer.parseInt(w[2]);
        try (SharedCount count = new SharedCount(client, w[1], 0)) {
          count.start();
          for (int i = 0; i < n; ) {
            VersionedValue<Integer> v = count.getVersionedValue();
            if (count.trySetCount(v, v.getValue() + 1)) i++;
          }
        }
        say("ADDED " + n);
      }
      case "count-set" -> {
        try (SharedCount count = new SharedCount(client, w[1], 0)) {
          count.start();
          count.setCount(Integer.parseInt(w[2]));
        }
        say("SET " + w[2]);
      }
      case "queue-put" -> {
        DistributedQueue<byte[]> q = QueueBuilder.builder(client, null, BYTES, w[1]).buildQueue();
        q.start();
        List<byte[]> items = new ArrayList<>();
        for (String s : Arrays.copyOfRange(w, 2, w.length)) items.add(s.getBytes(StandardCharsets.UTF_8));
        if (items.size() == 1) {
          q.put(items.get(0));
        } else {
          var it = items.iterator();
          q.putMulti(new MultiItem<byte[]>() {
            public byte[] nextItem() { return it.hasNext() ? it.next() : null; }
          });
        }
        if (!q.flushPuts(30, TimeUnit.SECONDS)) throw new IllegalStateException("puts not flushed within 30s");
        q.close();
        say("PUT " + items.size());
      }
      case "queue-take" -> {
        int n = Integer.parseInt(w[2]);
        LinkedBlockingQueue<byte[]> handed = new LinkedBlockingQueue<>();
        QueueConsumer<byte[]> consumer = new QueueConsumer<byte[]>() {
          public void consumeMessage(byte[] item) { handed.add(item); }
          public void stateChanged(CuratorFramework c, ConnectionState s) {}
        };
        DistributedQueue<byte[]> q = QueueBuilder.builder(client, consumer, BYTES, w[1]).buildQueue();
        q.start();
        for (int i = 0; i < n; i++) {
          byte[] item = handed.poll(30, TimeUnit.SECONDS);
          if (item == null) throw new IllegalStateException("handed " + i + " items of " + n + " within 30s");
          say("ITEM " + new String(item, StandardCharsets.UTF_8));
        }
        q.close();
        say("TOOK " + n);
      }
      case "revocable" -> revocable(w[1], w[2], w.length > 3 && w[3].equals("deaf"));
      case "revoke" -> {
        Revoker.attemptRevoke(client, w[1]);
        say("ASKED");
      }
      default -> throw new IllegalArgumentException("unknown command");
    }
  }

  // awaitMembers waits until the GroupMember's view is exactly want.
  static String awaitMembers(String want) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    String got = "";
    while (System.currentTimeMillis() < deadline) {
      Map<String, String> view = new TreeMap<>();
      for (var e : member.getCurrentMembers().entrySet()) view.put(e.getKey(), new String(e.getValue(), StandardCharsets.UTF_8));
      List<String> parts = new ArrayList<>();
      view.forEach((k, v) -> parts.add(k + "=" + v));
      got = parts.isEmpty() ? "-" : String.join(",", parts);
      if (got.equals(want)) return got;
      Thread.sleep(20); // the view is a cache filled in the background
    }
    throw new IllegalStateException("members " + got + ", want " + want + " within 30s");
  }

  // revocable holds a lock made revocable on a thread of its own (Curator
  // locks are released by the thread that took them) until the listener
  // asks it to release.
  static void revocable(String path, String kind, boolean deaf) {
    InterProcessMutex lock = switch (kind) {
      case "mutex" -> new InterProcessMutex(client, path);
      case "read" -> new InterProcessReadWriteLock(client, path).readLock();
      case "write" -> new InterProcessReadWriteLock(client, path).writeLock();
      default -> throw new IllegalArgumentException("kind " + kind);
    };
    LinkedBlockingQueue<String> asked = new LinkedBlockingQueue<>();
    lock.makeRevocable(l -> {
      say("REVOKED");
      if (!deaf) asked.add("release");
    });
    Thread owner = new Thread(() -> {
      try {
        lock.acquire();
        say("HOLDING");
        asked.take();
        lock.release();
        say("RELEASED");
      } catch (Exception e) {
        say("error revocable " + path + ": " + e);
      }
    }, "owner");
    owner.setDaemon(true);
    owner.start();
  }
}
