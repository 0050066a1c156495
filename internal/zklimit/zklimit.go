// Package zklimit knows the size limit ZooKeeper puts on a request, so
// zkx refuses an oversized write with a clear error instead of sending
// it: a server drops the connection of a client whose request is longer
// than jute.maxbuffer, and a client that retries after connection loss
// would then retry forever.
package zklimit

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// MaxRequest is ZooKeeper's default jute.maxbuffer (0xfffff bytes), the
// longest request a server reads.
const MaxRequest = 0xfffff

// ErrTooLarge is returned for a write longer than MaxRequest.
var ErrTooLarge = errors.New("request too large for ZooKeeper")

// CheckCreate checks the size of a create request.
func CheckCreate(path string, data []byte, acl []zk.ACL) error {
	return check(path, len(data), RequestHeader+CreateSize(path, data, acl))
}

// RequestHeader is the xid and type before every request.
const RequestHeader = 8

// MultiOpHeader is the header before each operation of a multi (type,
// done, error); one more ends the list.
const MultiOpHeader = 9

// CreateSize is the length of a create record (path, data, ACL, flags).
func CreateSize(path string, data []byte, acl []zk.ACL) int {
	size := 4 + len(path) + 4 + len(data) + 4 + 4
	for _, a := range acl {
		size += 4 + 4 + len(a.Scheme) + 4 + len(a.ID)
	}
	return size
}

// SetDataSize is the length of a setData record (path, data, version).
func SetDataSize(path string, data []byte) int { return 4 + len(path) + 4 + len(data) + 4 }

// DeleteSize is the length of a delete record (path, version).
func DeleteSize(path string) int { return 4 + len(path) + 4 }

// PathWatchSize is the length of a read of one path (getData,
// getChildren, exists: the path and the watch flag).
func PathWatchSize(path string) int { return 4 + len(path) + 1 }

// MultiSize is the length of a multi or multiRead request whose records
// add up to records bytes over ops operations.
func MultiSize(ops, records int) int {
	return RequestHeader + ops*MultiOpHeader + MultiOpHeader + records
}

// CheckMulti checks the size of a multi whose records add up to records
// bytes over ops operations; what names the multi in the error.
func CheckMulti(what string, ops, records int) error {
	size := MultiSize(ops, records)
	if size <= MaxRequest {
		return nil
	}
	return fmt.Errorf("%w: %s makes a %d-byte request; ZooKeeper takes at most %d (its default jute.maxbuffer)", ErrTooLarge, what, size, MaxRequest)
}

// CheckSet checks the size of a setData request.
func CheckSet(path string, data []byte) error {
	return check(path, len(data), RequestHeader+SetDataSize(path, data))
}

func check(path string, data, size int) error {
	if size <= MaxRequest {
		return nil
	}
	return fmt.Errorf("%w: %d bytes of data for %s make a %d-byte request; ZooKeeper takes at most %d (its default jute.maxbuffer, 1 MiB) and drops the connection of a client that sends more",
		ErrTooLarge, data, path, size, MaxRequest)
}
