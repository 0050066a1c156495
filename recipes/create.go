package recipes

import (
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/zklimit"
)

// create sends a create, unless it is too large for ZooKeeper: a server
// drops the connection of a client that sends more than jute.maxbuffer,
// and the recipes, which retry after a connection loss, would send it
// again for ever.
func (s *Session) create(path string, data []byte, mode int32, acl []zk.ACL) (string, error) {
	if err := zklimit.CheckCreate(path, data, acl); err != nil {
		return "", err
	}
	return s.conn.Create(path, data, mode, acl)
}
