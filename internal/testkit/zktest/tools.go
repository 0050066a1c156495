package zktest

import (
	"testing"
	"time"
)

// toolTimeout bounds one run of a ZooKeeper tool on a test's files.
const toolTimeout = 2 * time.Minute

// ZooKeeperTool runs one of the classes of Debian's zookeeper jar that read
// a data directory's files — org.apache.zookeeper.server.persistence.
// TxnLogToolkit, org.apache.zookeeper.server.SnapshotFormatter — with args,
// and returns what it printed (stderr apart). The JVM runs in UTC with an
// English locale, so the dates TxnLogToolkit prints read the same on every
// machine. Like Real, it skips the test when java or the jar is missing
// (fails it under ZKX_REAL_ZK=required).
func ZooKeeperTool(t testing.TB, class string, args ...string) Program {
	t.Helper()
	rt := requireRuntime(t)
	jvm := []string{"-Duser.timezone=UTC", "-Duser.language=en", "-Duser.country=US",
		"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-cp", rt.jar, class}
	return RunProgram(t, toolTimeout, "", false, rt.java, append(jvm, args...)...)
}
