package jute

// RequestRecord returns an empty record of the body a request of op
// carries (zookeeper.jute's request records), ready to decode, or nil
// for an op with no body (ping, closeSession, whoAmI) or a body this
// package does not model (reconfig, deleteContainer, createSession).
// createTTL's create and setWatches2's lists are set up for their op.
func RequestRecord(op Op) Record {
	switch op {
	case OpCreate, OpCreate2, OpCreateContainer:
		return &CreateRequest{}
	case OpCreateTTL:
		return &CreateRequest{HasTTL: true}
	case OpDelete, OpCheck, OpAddWatch, OpCheckWatches, OpRemoveWatches:
		return &PathIntRequest{}
	case OpSetData:
		return &SetDataRequest{}
	case OpSetACL:
		return &SetACLRequest{}
	case OpExists, OpGetData, OpGetChildren, OpGetChildren2:
		return &PathWatchRequest{}
	case OpGetACL, OpSync, OpGetAllChildrenNumber, OpGetEphemerals:
		return &PathRequest{}
	case OpSetWatches, OpSetWatches2:
		return &SetWatches{HasPersistent: op == OpSetWatches2}
	case OpMulti, OpMultiRead:
		return &MultiRequest{}
	case OpAuth:
		return &AuthPacket{}
	case OpSASL:
		return &SASLToken{}
	}
	return nil
}
