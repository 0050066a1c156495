// ZkRecipes sets up live state with ZooKeeper's own recipes (zookeeper-recipes-lock,
// -election and -queue 3.8, as Debian ships them) for zkview's recogniser tests, each
// contender on a ZooKeeper handle of its own, one after the other:
//
//   BASE/zklock      WriteLock: x1 holds, x2 and x3 wait
//   BASE/zkelection  LeaderElectionSupport: hosts h1 (leader), h2, h3
//   BASE/zkqueue     DistributedQueue with "first", "second"
//
// Written for zkx. Not standalone: RecognizeMain runs it (with CuratorRecipes).

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.recipes.leader.LeaderElectionSupport;
import org.apache.zookeeper.recipes.lock.WriteLock;
import org.apache.zookeeper.recipes.queue.DistributedQueue;

public final class ZkRecipes {
    static final long WAIT_SECONDS = 60;

    private final String connect;
    private final String base;
    private final List<ZooKeeper> handles = new ArrayList<>();

    ZkRecipes(String connect, String base) {
        this.connect = connect;
        this.base = base;
    }

    ZooKeeper handle() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 30000, event -> {
            if (event.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no session with " + connect);
        }
        handles.add(zk);
        return zk;
    }

    void ensure(ZooKeeper zk, String path) throws Exception {
        String sofar = "";
        for (String part : path.substring(1).split("/")) {
            sofar += "/" + part;
            try {
                zk.create(sofar, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
                // there
            }
        }
    }

    void setUp() throws Exception {
        String lock = base + "/zklock";
        for (int i = 1; i <= 3; i++) {
            boolean holds = new WriteLock(handle(), lock, ZooDefs.Ids.OPEN_ACL_UNSAFE).lock();
            if (holds != (i == 1)) {
                throw new IllegalStateException("WriteLock " + i + " holds: " + holds);
            }
        }

        String election = base + "/zkelection";
        ensure(handles.get(0), election);
        for (int i = 1; i <= 3; i++) {
            LeaderElectionSupport s = new LeaderElectionSupport();
            s.setZooKeeper(handle());
            s.setRootNodeName(election);
            s.setHostName("h" + i);
            s.start(); // makes its offer and determines its status before returning
        }

        DistributedQueue q = new DistributedQueue(handle(), base + "/zkqueue", ZooDefs.Ids.OPEN_ACL_UNSAFE);
        q.offer("first".getBytes(StandardCharsets.UTF_8));
        q.offer("second".getBytes(StandardCharsets.UTF_8));
    }
}
