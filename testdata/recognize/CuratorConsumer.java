// CuratorConsumer is the process a recogniser test (zkview/recognize/real_seen_test.go)
// kills to leave things behind, with Apache Curator 5.4 (as Debian ships it):
//
//   - a PersistentTtlNode at BASE/ttl with a TTL of TTL_MS (touched every TTL_MS / 2); it
//     prints "TOUCHED <n>" once touch was set a second time;
//   - once it reads the line "consume" on stdin (the queue set up), the consumer of the
//     DistributedDelayQueue BASE/flightq, with guaranteed delivery (lockPath
//     BASE/flightq-lock), one item at a time: it prints "CONSUMING <item>" and blocks in
//     consumeMessage, so the item stays in flight under its lock node.
//
// Killed, its session's connection closes while the item is in flight and touch is no
// longer set. Closing its stdin ends it cleanly.
//
// Usage: java -cp CLASSPATH CuratorConsumer CONNECT BASE TTL_MS
// Written for zkx.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.recipes.nodes.PersistentTtlNode;
import org.apache.curator.framework.recipes.queue.DistributedDelayQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;

public final class CuratorConsumer {
    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: CuratorConsumer CONNECT BASE TTL_MS");
            System.exit(2);
        }
        String connect = args[0], base = args[1];
        long ttlMs = Long.parseLong(args[2]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        CountDownLatch end = new CountDownLatch(1);
        try {
            CuratorFramework client = CuratorFrameworkFactory.newClient(connect, 30000, 15000, new ExponentialBackoffRetry(100, 3));
            client.start();
            if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no session with " + connect);
            }
            PersistentTtlNode ttl = new PersistentTtlNode(client, base + "/ttl", ttlMs, "owner-data".getBytes());
            ttl.start();
            String touch = base + "/ttl/touch";
            for (;;) {
                CountDownLatch changed = new CountDownLatch(1);
                CuratorWatcher w = event -> changed.countDown();
                Stat st = client.checkExists().usingWatcher(w).forPath(touch);
                if (st != null && st.getVersion() >= 1) {
                    say("TOUCHED " + st.getVersion());
                    break;
                }
                if (!changed.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("touch was not set twice");
                }
            }
            QueueConsumer<String> consumer = new QueueConsumer<String>() {
                @Override
                public void consumeMessage(String item) throws Exception {
                    say("CONSUMING " + item);
                    end.await(); // in flight until the test ends us
                }

                @Override
                public void stateChanged(CuratorFramework c, ConnectionState s) {
                }
            };
            DistributedDelayQueue<String> q = QueueBuilder.builder(client, consumer, CuratorSeen.TEXT, base + "/flightq")
                .lockPath(base + "/flightq-lock").executor(Executors.newSingleThreadExecutor()).buildDelayQueue();
            String line;
            while ((line = in.readLine()) != null && !line.equals("consume")) {
                // until the test has set the queue up
            }
            if (line != null) {
                q.start();
                while (in.readLine() != null) {
                    // until the test closes our stdin (or kills us)
                }
                end.countDown();
                q.close();
            }
            ttl.close();
            client.close();
        } catch (Throwable e) {
            System.err.println("FAIL: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
