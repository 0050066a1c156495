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
	size := 8 + 4 + len(path) + 4 + len(data) + 4 + 4 // header, path, data, acl count, flags
	for _, a := range acl {
		size += 4 + 4 + len(a.Scheme) + 4 + len(a.ID)
	}
	return check(path, len(data), size)
}

// CheckSet checks the size of a setData request.
func CheckSet(path string, data []byte) error {
	return check(path, len(data), 8+4+len(path)+4+len(data)+4) // header, path, data, version
}

func check(path string, data, size int) error {
	if size <= MaxRequest {
		return nil
	}
	return fmt.Errorf("%w: %d bytes of data for %s make a %d-byte request; ZooKeeper takes at most %d (its default jute.maxbuffer, 1 MiB) and drops the connection of a client that sends more",
		ErrTooLarge, data, path, size, MaxRequest)
}
