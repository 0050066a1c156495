package forensics

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
)

// nodeDigest is a node's share of the tree digest ZooKeeper logs with each
// transaction (DigestCalculator.calculateDigest, version 2): the CRC32 of
// its path ("" for the root), its data and its persisted stat; nodes under
// /zookeeper/ count for nothing. The tree digest is the sum over every
// node (AdHash), so a replay can check itself after each transaction.
func nodeDigest(path string, n Node) uint64 {
	if strings.HasPrefix(path, "/zookeeper/") {
		return 0
	}
	if path == "/" {
		path = ""
	}
	var b [60]byte
	st := n.Stat
	binary.BigEndian.PutUint64(b[0:], uint64(st.Czxid))
	binary.BigEndian.PutUint64(b[8:], uint64(st.Mzxid))
	binary.BigEndian.PutUint64(b[16:], uint64(st.Pzxid))
	binary.BigEndian.PutUint64(b[24:], uint64(st.Ctime))
	binary.BigEndian.PutUint64(b[32:], uint64(st.Mtime))
	binary.BigEndian.PutUint32(b[40:], uint32(st.Version))
	binary.BigEndian.PutUint32(b[44:], uint32(st.Cversion))
	binary.BigEndian.PutUint32(b[48:], uint32(st.Aversion))
	binary.BigEndian.PutUint64(b[52:], uint64(st.EphemeralOwner))
	crc := crc32.NewIEEE()
	crc.Write([]byte(path))
	crc.Write(n.Data)
	crc.Write(b[:])
	return uint64(crc.Sum32())
}

// digestDelta is how a step moved the tree digest.
func (s *Step) digestDelta() uint64 {
	var d uint64
	for _, c := range s.Changes {
		switch c.Kind {
		case Created:
			d += nodeDigest(c.Path, c.After)
		case Deleted:
			d -= nodeDigest(c.Path, c.Before)
		case Updated:
			d += nodeDigest(c.Path, c.After) - nodeDigest(c.Path, c.Before)
		}
	}
	return d
}
