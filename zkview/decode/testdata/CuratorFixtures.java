// CuratorFixtures writes the bytes Curator 5.4 itself produces for the data
// decoders' fixtures, by calling Curator's own (package-private) serialisers:
//
//   - queue/ItemSerializer.serialize: the data of a DistributedQueue node;
//   - shared/SharedCount.toBytes: a SharedCount's value;
//   - atomic/DistributedAtomicLong.valueToBytes: a DistributedAtomicLong's value.
//
// Run it from this directory (Debian: libcurator-recipes-java):
//
//   CP=/usr/share/java/curator-recipes.jar:/usr/share/java/curator-framework.jar:\
//   /usr/share/java/curator-client.jar:/usr/share/java/guava.jar:\
//   /usr/share/java/slf4j-api.jar:/usr/share/java/slf4j-nop.jar:\
//   /usr/share/java/zookeeper.jar:/usr/share/java/zookeeper-jute.jar
//   javac -d /tmp/fixtures -cp "$CP" CuratorFixtures.java
//   java -cp "/tmp/fixtures:$CP" CuratorFixtures .
//
// The files it writes are committed; the tests read them and do not need Java.
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.queue.MultiItem;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.retry.RetryOneTime;

public class CuratorFixtures {
    /** Items pass through unchanged: the queue holds raw byte arrays. */
    static final QueueSerializer<byte[]> RAW = new QueueSerializer<byte[]>() {
        public byte[] serialize(byte[] item) { return item; }
        public byte[] deserialize(byte[] bytes) { return bytes; }
    };

    static byte[] itemSet(List<byte[]> items) throws Exception {
        Class<?> c = Class.forName("org.apache.curator.framework.recipes.queue.ItemSerializer");
        Method m = c.getDeclaredMethod("serialize", MultiItem.class, QueueSerializer.class);
        m.setAccessible(true);
        Iterator<byte[]> it = items.iterator();
        MultiItem<byte[]> multi = () -> it.hasNext() ? it.next() : null;
        return (byte[]) m.invoke(null, multi, RAW);
    }

    static byte[] gzip(byte[] in) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(in);
        }
        return out.toByteArray();
    }

    static byte[] sharedCount(int v) throws Exception {
        Class<?> c = Class.forName("org.apache.curator.framework.recipes.shared.SharedCount");
        Method m = c.getDeclaredMethod("toBytes", int.class);
        m.setAccessible(true);
        return (byte[]) m.invoke(null, v);
    }

    static byte[] atomicLong(CuratorFramework client, long v) throws Exception {
        DistributedAtomicLong l = new DistributedAtomicLong(client, "/counter", new RetryOneTime(1));
        Method m = DistributedAtomicLong.class.getDeclaredMethod("valueToBytes", Long.class);
        m.setAccessible(true);
        return (byte[]) m.invoke(l, v);
    }

    static void write(Path dir, String name, byte[] data) throws Exception {
        Files.write(dir.resolve(name), data);
        System.out.println(name + ": " + data.length + " bytes");
    }

    static byte[] utf8(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args.length > 0 ? args[0] : ".");
        // What DistributedQueue.put(item) writes: one item.
        write(dir, "curator-queue-one.bin", itemSet(Arrays.asList(utf8("order-1001"))));
        // What DistributedQueue.putMulti writes: several items of every kind.
        write(dir, "curator-queue-multi.bin", itemSet(Arrays.asList(
            utf8("hello, queue"),
            utf8("{\"order\":42,\"lines\":[\"a\",\"b\"]}"),
            new byte[0],
            gzip(utf8("{\"compressed\":true}")),
            new byte[] {0, 1, 2, 3, (byte) 0xfe, (byte) 0xff, 0x1b, 0x7f, 'z'})));
        // An item set with no items (putMulti of an empty MultiItem).
        write(dir, "curator-queue-empty.bin", itemSet(Arrays.<byte[]>asList()));
        write(dir, "shared-count-42.bin", sharedCount(42));
        write(dir, "shared-count-neg7.bin", sharedCount(-7));
        CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
        write(dir, "atomic-long-1234567890123.bin", atomicLong(client, 1234567890123L));
        write(dir, "atomic-long-neg1.bin", atomicLong(client, -1L));
        client.close();
    }
}
