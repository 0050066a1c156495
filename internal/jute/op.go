package jute

import "strconv"

// Op is an operation code (ZooDefs.OpCode): the type of a request header,
// of a multi's operation and result, and of a logged transaction.
type Op int32

// Operation codes.
const (
	OpNotification         Op = 0
	OpCreate               Op = 1
	OpDelete               Op = 2
	OpExists               Op = 3
	OpGetData              Op = 4
	OpSetData              Op = 5
	OpGetACL               Op = 6
	OpSetACL               Op = 7
	OpGetChildren          Op = 8
	OpSync                 Op = 9
	OpPing                 Op = 11
	OpGetChildren2         Op = 12
	OpCheck                Op = 13
	OpMulti                Op = 14
	OpCreate2              Op = 15
	OpReconfig             Op = 16
	OpCheckWatches         Op = 17
	OpRemoveWatches        Op = 18
	OpCreateContainer      Op = 19
	OpDeleteContainer      Op = 20
	OpCreateTTL            Op = 21
	OpMultiRead            Op = 22
	OpAuth                 Op = 100
	OpSetWatches           Op = 101
	OpSASL                 Op = 102
	OpGetEphemerals        Op = 103
	OpGetAllChildrenNumber Op = 104
	OpSetWatches2          Op = 105
	OpAddWatch             Op = 106
	OpWhoAmI               Op = 107
	OpCreateSession        Op = -10
	OpCloseSession         Op = -11
	OpError                Op = -1
)

// opNames are ZooKeeper 3.8's Request.op2String names, which its logs and
// TxnLogToolkit print ("createTtl" is spelled so there).
var opNames = map[Op]string{
	OpNotification: "notification", OpCreate: "create", OpDelete: "delete", OpExists: "exists",
	OpGetData: "getData", OpSetData: "setData", OpGetACL: "getACL", OpSetACL: "setACL",
	OpGetChildren: "getChildren", OpSync: "sync", OpPing: "ping", OpGetChildren2: "getChildren2",
	OpCheck: "check", OpMulti: "multi", OpCreate2: "create2", OpReconfig: "reconfig",
	OpCheckWatches: "checkWatches", OpRemoveWatches: "removeWatches", OpCreateContainer: "createContainer",
	OpDeleteContainer: "deleteContainer", OpCreateTTL: "createTtl", OpMultiRead: "multiRead",
	OpAuth: "auth", OpSetWatches: "setWatches", OpSASL: "sasl", OpGetEphemerals: "getEphemerals",
	OpGetAllChildrenNumber: "getAllChildrenNumber", OpSetWatches2: "setWatches2", OpAddWatch: "addWatch",
	OpWhoAmI: "whoAmI", OpCreateSession: "createSession", OpCloseSession: "closeSession", OpError: "error",
}

// String names the op as ZooKeeper does; an op it does not know is
// "unknown <n>", as op2String says.
func (op Op) String() string {
	if s, ok := opNames[op]; ok {
		return s
	}
	return "unknown " + strconv.Itoa(int(op))
}
