// Package auditlog reads ZooKeeper's audit log (3.6+, audit.enable=true):
// the events org.apache.zookeeper.audit.Slf4jAuditLogger logs, one line
// each, through whatever logging layout the server's configuration gives
// that logger.
//
// An event is AuditEvent.toString: tab-separated key=value fields in the
// order ZKAuditProvider.createLogEvent adds them — session (0x…, the
// ServerCnxn's getSessionIdHex), user (AuthUtil.getUsers: the names of the
// session's authenticated ids, comma-separated, in no fixed order; the ip
// scheme's id is the client's address, a digest id its bare user name),
// ip (the client's address), operation (AuditConstants: create, delete,
// setData, setAcl, multiOperation, reconfig, serverStart, serverStop,
// ephemeralZNodeDeletionOnSessionCloseOrExpire), znode, znode_type (a
// create's CreateMode, lower case), acl (a setAcl's, ZKUtil.aclToString)
// — each left out when null — then result (success, failure, invoked).
// Slf4jAuditLogger logs a failure at ERROR and the rest at INFO.
//
// The layout around the event is the logging configuration's: zkx finds
// the event in the line (its first field after the layout's prefix) and
// the time at the line's start, as log4j's and logback's %d{ISO8601}
// writes it ("2006-01-02 15:04:05,000"), or RFC 3339 with a zone. A line
// of another logger is skipped; a line that names the audit logger or
// holds an event's fields but does not parse is a *LineError (a truncated
// last line is ErrTruncated), and reading goes on.
package auditlog
