package jute

import "strconv"

// Code is an error code of a reply header or a multi's result
// (KeeperException.Code). A Code is an error, so a refusal can travel
// as one and be matched with errors.Is; ErrOK is the code of success,
// and functions that may succeed return a Code, never an error holding ErrOK.
type Code int32

// Error codes.
const (
	ErrOK                      Code = 0
	ErrSystemError             Code = -1
	ErrRuntimeInconsistency    Code = -2
	ErrDataInconsistency       Code = -3
	ErrConnectionLoss          Code = -4
	ErrMarshallingError        Code = -5
	ErrUnimplemented           Code = -6
	ErrOperationTimeout        Code = -7
	ErrBadArguments            Code = -8
	ErrUnknownSession          Code = -12
	ErrNewConfigNoQuorum       Code = -13
	ErrReconfigInProgress      Code = -14
	ErrAPIError                Code = -100
	ErrNoNode                  Code = -101
	ErrNoAuth                  Code = -102
	ErrBadVersion              Code = -103
	ErrNoChildrenForEphemerals Code = -108
	ErrNodeExists              Code = -110
	ErrNotEmpty                Code = -111
	ErrSessionExpired          Code = -112
	ErrInvalidCallback         Code = -113
	ErrInvalidACL              Code = -114
	ErrAuthFailed              Code = -115
	ErrSessionMoved            Code = -118
	ErrNotReadOnly             Code = -119
	ErrNoWatcher               Code = -121
	ErrReconfigDisabled        Code = -123
	ErrQuotaExceeded           Code = -125
	ErrThrottled               Code = -127
)

// ErrSessionClosedRequireSASL is the server's answer when it requires SASL
// of every session and this one has none, or failed it; the server then
// closes the connection.
const ErrSessionClosedRequireSASL Code = -124

var codeNames = map[Code]string{
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

// String names the code for messages and logs; a code ZooKeeper does not
// define is "error <n>".
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return "error " + strconv.Itoa(int(c))
}

// Error is String: a Code is the error a server answered.
func (c Code) Error() string { return c.String() }
