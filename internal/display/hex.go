package display

import "strconv"

// Hex writes a session id or a zxid as ZooKeeper and zkCli do: 0x and the
// lower-case hex of its 64 bits, unsigned.
func Hex(v int64) string { return "0x" + strconv.FormatUint(uint64(v), 16) }
