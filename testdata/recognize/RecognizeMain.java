// RecognizeMain sets up live coordination state with Curator (CuratorRecipes) and with
// ZooKeeper's own recipes (ZkRecipes) under BASE, prints "READY" once every holder
// holds and every waiter waits, keeps it all live until its stdin closes, then ends
// its sessions and exits 0. A failure prints "FAIL: ..." on stderr and exits 1.
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
            curator.tearDown();
            zk.tearDown();
        } catch (Throwable e) {
            System.err.println("FAIL: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0); // waiters' threads are still blocked
    }
}
