package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The files an audit-enabled member writes (RealOptions.Audit), each
// event once in every one, through log4j 1.2 in three layouts.
const (
	// AuditDir is the folder, under the member's directory, of the audit
	// log in ZooKeeper's documented layout ("%d{ISO8601} %p %c{2}: %m%n",
	// zookeeperAuditLogs.md and conf/logback.xml), rolled over every 4 KiB:
	// zookeeper_audit.log and its rotated copies .1 (newest) … .N.
	AuditDir = "audit"
	// AuditFileName is the audit log in AuditDir.
	AuditFileName = "zookeeper_audit.log"
	// AuditZonedFile is the audit log again, unrotated, with the zone in
	// its times: "%d{yyyy-MM-dd'T'HH:mm:ss.SSSZ} %-5p %c - %m%n".
	AuditZonedFile = "audit-zoned.log"
)

// auditJars are what Debian's zookeeper.jar lacks to log through log4j:
// it names slf4j-api but no binding (slf4j falls back to a no-op logger,
// and every audit event vanishes).
var auditJars = []struct{ jar, pkg string }{
	{"slf4j-log4j12.jar", "libslf4j-java"},
	{"log4j-1.2.jar", "liblog4j1.2-java"},
}

// serverLogPattern is the layout of the server's own log under log4j:
// Debian's (its log4j.properties), the thread in it as WaitSnapshots
// looks for it.
const serverLogPattern = "%d{ISO8601} - %-5p [%t:%C{1}@%L] - %m%n"

// configureAudit makes the member log through log4j 1.2 instead of
// slf4j-simple, with audit.enable=true (a key ZooKeeper does not know,
// turned into the system property zookeeper.audit.enable, which
// ZKAuditProvider reads) and the logger Slf4jAuditLogger routed to the
// audit files — and, additive, to the server's log among the other
// loggers' lines. It returns the zoo.cfg line.
func (m *Member) configureAudit() (string, error) {
	dir := filepath.Dir(m.rt.jar)
	classpath := []string{m.rt.jar}
	for _, j := range auditJars {
		p := filepath.Join(dir, j.jar)
		if !fileExists(p) {
			return "", fmt.Errorf("an audit log needs %s (fix: apt-get install -y %s)", p, j.pkg)
		}
		classpath = append(classpath, p)
	}
	// slf4j-simple stays out: with two bindings slf4j picks either.
	m.rt.classpath = strings.Join(classpath, string(filepath.ListSeparator))
	if err := os.MkdirAll(filepath.Join(m.dir, AuditDir), 0o755); err != nil {
		return "", err
	}
	props := filepath.Join(m.dir, "log4j.properties")
	conf := strings.NewReplacer("$AUDIT", filepath.Join(m.dir, AuditDir, AuditFileName),
		"$ZONED", filepath.Join(m.dir, AuditZonedFile), "$SERVER", serverLogPattern).Replace(log4jAudit)
	if err := os.WriteFile(props, []byte(conf), 0o644); err != nil {
		return "", err
	}
	m.jvmArgs = append(m.jvmArgs, "-Dlog4j.configuration=file:"+props)
	return "audit.enable=true\n", nil
}

// log4jAudit is the log4j 1.2 configuration of an audit-enabled member.
const log4jAudit = `log4j.rootLogger=INFO, CONSOLE
log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender
log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout
log4j.appender.CONSOLE.layout.ConversionPattern=$SERVER

log4j.logger.org.apache.zookeeper.audit.Slf4jAuditLogger=INFO, AUDIT, ZONED
log4j.appender.AUDIT=org.apache.log4j.RollingFileAppender
log4j.appender.AUDIT.File=$AUDIT
log4j.appender.AUDIT.MaxFileSize=4KB
log4j.appender.AUDIT.MaxBackupIndex=1000
log4j.appender.AUDIT.layout=org.apache.log4j.PatternLayout
log4j.appender.AUDIT.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
log4j.appender.ZONED=org.apache.log4j.FileAppender
log4j.appender.ZONED.File=$ZONED
log4j.appender.ZONED.layout=org.apache.log4j.PatternLayout
log4j.appender.ZONED.layout.ConversionPattern=%d{yyyy-MM-dd'T'HH:mm:ss.SSSZ} %-5p %c - %m%n
`

// AuditDir is the folder of the member's audit log (zookeeper_audit.log
// and its rotated copies), when it was started with RealOptions.Audit.
func (m *Member) AuditDir() string { return filepath.Join(m.dir, AuditDir) }

// AuditZonedFile is the member's audit log with zoned times, when it was
// started with RealOptions.Audit.
func (m *Member) AuditZonedFile() string { return filepath.Join(m.dir, AuditZonedFile) }

// LogFile is the member's own log (its stdout and stderr); with
// RealOptions.Audit, the audit events are in it too, among the other
// loggers' lines.
func (m *Member) LogFile() string { return m.logPath }
