package jute

// Special xids the client and server agree on.
const (
	XidNotification int32 = -1
	XidPing         int32 = -2
	XidAuth         int32 = -4
	XidSetWatches   int32 = -8
)

// EventType is the type of a watch notification (Watcher.Event.EventType).
type EventType int32

// Watch event types.
const (
	EventNone                   EventType = -1
	EventNodeCreated            EventType = 1
	EventNodeDeleted            EventType = 2
	EventNodeDataChanged        EventType = 3
	EventNodeChildrenChanged    EventType = 4
	EventDataWatchRemoved       EventType = 5
	EventChildWatchRemoved      EventType = 6
	EventPersistentWatchRemoved EventType = 7
)

// State is a session's state as a notification carries it
// (Watcher.Event.KeeperState).
type State int32

// Keeper states. StateSyncConnected is the state sent with every
// server-side event; the others are a client's own.
const (
	StateDisconnected  State = 0
	StateSyncConnected State = 3
	StateExpired       State = -112
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
