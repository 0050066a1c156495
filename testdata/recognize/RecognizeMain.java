// RecognizeMain sets up live coordination state with Curator (CuratorRecipes) and with
// ZooKeeper's own recipes (ZkRecipes) under BASE, prints "READY" once every holder
// holds and every waiter waits, keeps it all live until its stdin closes, then exits 0
// without closing its sessions one by one: a ZooKeeper Java client's close takes about
// 100 ms and closes do not overlap, so its thirty sessions took the test 3 s to end.
// They end with the process: the server sees their connections close and expires them. A
// failure prints "FAIL: ..." on stderr and exits 1.
//
// Usage: java -cp CLASSPATH RecognizeMain CONNECT BASE
//
// Written for zkx's recogniser tests (zkview/recognize_real_test.go).

public final class RecognizeMain {
    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: RecognizeMain CONNECT BASE");
            System.exit(2);
        }
        CuratorRecipes curator = new CuratorRecipes(args[0], args[1]);
        ZkRecipes zk = new ZkRecipes(args[0], args[1]);
        try {
            curator.setUp();
            zk.setUp();
            System.out.println("READY");
            System.out.flush();
            while (System.in.read() >= 0) {
                // keep the state live until the test closes our stdin
            }
        } catch (Throwable e) {
            System.err.println("FAIL: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0); // waiters' threads are still blocked; the sessions go with the process
    }
}
