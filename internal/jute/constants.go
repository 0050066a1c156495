package jute

import "fmt"

// Op codes of request headers (ZooDefs.OpCode).
const (
	OpNotification         int32 = 0
	OpCreate               int32 = 1
	OpDelete               int32 = 2
	OpExists               int32 = 3
	OpGetData              int32 = 4
	OpSetData              int32 = 5
	OpGetACL               int32 = 6
	OpSetACL               int32 = 7
	OpGetChildren          int32 = 8
	OpSync                 int32 = 9
	OpPing                 int32 = 11
	OpGetChildren2         int32 = 12
	OpCheck                int32 = 13
	OpMulti                int32 = 14
	OpCreate2              int32 = 15
	OpReconfig             int32 = 16
	OpCheckWatches         int32 = 17
	OpRemoveWatches        int32 = 18
	OpCreateContainer      int32 = 19
	OpDeleteContainer      int32 = 20
	OpCreateTTL            int32 = 21
	OpMultiRead            int32 = 22
	OpAuth                 int32 = 100
	OpSetWatches           int32 = 101
	OpSASL                 int32 = 102
	OpGetEphemerals        int32 = 103
	OpGetAllChildrenNumber int32 = 104
	OpSetWatches2          int32 = 105
	OpAddWatch             int32 = 106
	OpWhoAmI               int32 = 107
	OpCreateSession        int32 = -10
	OpCloseSession         int32 = -11
	OpError                int32 = -1
)

// Special xids the client and server agree on.
const (
	XidNotification int32 = -1
	XidPing         int32 = -2
	XidAuth         int32 = -4
	XidSetWatches   int32 = -8
)

// Error codes carried in reply headers (KeeperException.Code).
const (
	ErrOK                      int32 = 0
	ErrSystemError             int32 = -1
	ErrRuntimeInconsistency    int32 = -2
	ErrDataInconsistency       int32 = -3
	ErrConnectionLoss          int32 = -4
	ErrMarshallingError        int32 = -5
	ErrUnimplemented           int32 = -6
	ErrOperationTimeout        int32 = -7
	ErrBadArguments            int32 = -8
	ErrUnknownSession          int32 = -12
	ErrNewConfigNoQuorum       int32 = -13
	ErrReconfigInProgress      int32 = -14
	ErrAPIError                int32 = -100
	ErrNoNode                  int32 = -101
	ErrNoAuth                  int32 = -102
	ErrBadVersion              int32 = -103
	ErrNoChildrenForEphemerals int32 = -108
	ErrNodeExists              int32 = -110
	ErrNotEmpty                int32 = -111
	ErrSessionExpired          int32 = -112
	ErrInvalidCallback         int32 = -113
	ErrInvalidACL              int32 = -114
	ErrAuthFailed              int32 = -115
	ErrSessionMoved            int32 = -118
	ErrNotReadOnly             int32 = -119
	ErrNoWatcher               int32 = -121
	ErrReconfigDisabled        int32 = -123
	ErrQuotaExceeded           int32 = -125
	ErrThrottled               int32 = -127
)

// ErrSessionClosedRequireSASL is the server's answer when it requires SASL
// of every session and this one has none, or failed it; the server then
// closes the connection.
const ErrSessionClosedRequireSASL int32 = -124

var errNames = map[int32]string{
	ErrOK: "ok", ErrSystemError: "system error", ErrRuntimeInconsistency: "runtime inconsistency",
	ErrDataInconsistency: "data inconsistency", ErrConnectionLoss: "connection loss",
	ErrMarshallingError: "marshalling error", ErrUnimplemented: "unimplemented",
	ErrOperationTimeout: "operation timeout", ErrBadArguments: "bad arguments",
	ErrUnknownSession: "unknown session", ErrNewConfigNoQuorum: "new config no quorum",
	ErrReconfigInProgress: "reconfig in progress", ErrAPIError: "api error", ErrNoNode: "no node",
	ErrNoAuth: "not authorized", ErrBadVersion: "bad version",
	ErrNoChildrenForEphemerals: "no children for ephemerals", ErrNodeExists: "node exists",
	ErrNotEmpty: "directory not empty", ErrSessionExpired: "session expired",
	ErrInvalidCallback: "invalid callback", ErrInvalidACL: "invalid ACL", ErrAuthFailed: "auth failed",
	ErrSessionMoved: "session moved", ErrNotReadOnly: "not read-only", ErrNoWatcher: "no watcher",
	ErrReconfigDisabled: "reconfig disabled", ErrSessionClosedRequireSASL: "session closed, SASL authentication required",
	ErrQuotaExceeded: "quota exceeded", ErrThrottled: "throttled",
}

// ErrName names an error code for messages and logs.
func ErrName(code int32) string {
	if s, ok := errNames[code]; ok {
		return s
	}
	return fmt.Sprintf("error %d", code)
}

// Watch event types (Watcher.Event.EventType).
const (
	EventNone                   int32 = -1
	EventNodeCreated            int32 = 1
	EventNodeDeleted            int32 = 2
	EventNodeDataChanged        int32 = 3
	EventNodeChildrenChanged    int32 = 4
	EventDataWatchRemoved       int32 = 5
	EventChildWatchRemoved      int32 = 6
	EventPersistentWatchRemoved int32 = 7
)

// StateSyncConnected is the keeper state sent with every server-side event.
const StateSyncConnected int32 = 3

// Create mode flags (CreateMode).
const (
	ModePersistent                  int32 = 0
	ModeEphemeral                   int32 = 1
	ModePersistentSequential        int32 = 2
	ModeEphemeralSequential         int32 = 3
	ModeContainer                   int32 = 4
	ModePersistentWithTTL           int32 = 5
	ModePersistentSequentialWithTTL int32 = 6
)

// Permission bits of an ACL (ZooDefs.Perms).
const (
	PermRead   int32 = 1 << 0
	PermWrite  int32 = 1 << 1
	PermCreate int32 = 1 << 2
	PermDelete int32 = 1 << 3
	PermAdmin  int32 = 1 << 4
	PermAll    int32 = PermRead | PermWrite | PermCreate | PermDelete | PermAdmin
)

// Watcher types of checkWatches and removeWatches (WatcherType).
const (
	WatcherChildren int32 = 1
	WatcherData     int32 = 2
	WatcherAny      int32 = 3
)

// Modes of addWatch (AddWatchMode).
const (
	AddWatchPersistent          int32 = 0
	AddWatchPersistentRecursive int32 = 1
)

// MaxPacket is jute.maxbuffer's default (0xfffff): larger packets are refused.
const MaxPacket = 0xfffff

// ProtocolVersion is the only protocol version ZooKeeper 3.x speaks.
const ProtocolVersion int32 = 0
