package jute

// CreateMode is the flags of a create request (CreateMode): whether the
// node is ephemeral, sequential, a container or has a TTL.
type CreateMode int32

// Create modes, by their flag values.
const (
	ModePersistent                  CreateMode = 0
	ModeEphemeral                   CreateMode = 1
	ModePersistentSequential        CreateMode = 2
	ModeEphemeralSequential         CreateMode = 3
	ModeContainer                   CreateMode = 4
	ModePersistentWithTTL           CreateMode = 5
	ModePersistentSequentialWithTTL CreateMode = 6
)

// Valid reports whether ZooKeeper knows the mode (CreateMode.fromFlag
// refuses any other flag value).
func (m CreateMode) Valid() bool { return m >= ModePersistent && m <= ModePersistentSequentialWithTTL }

// IsEphemeral reports whether the node goes with its session.
func (m CreateMode) IsEphemeral() bool { return m == ModeEphemeral || m == ModeEphemeralSequential }

// IsSequential reports whether the server appends a sequence number to
// the node's name.
func (m CreateMode) IsSequential() bool {
	return m == ModePersistentSequential || m == ModeEphemeralSequential || m == ModePersistentSequentialWithTTL
}

// IsContainer reports whether the node is a container, which the server
// deletes once its last child is gone.
func (m CreateMode) IsContainer() bool { return m == ModeContainer }

// IsTTL reports whether the node has a time to live, after which the
// server deletes it if it has no children.
func (m CreateMode) IsTTL() bool {
	return m == ModePersistentWithTTL || m == ModePersistentSequentialWithTTL
}
