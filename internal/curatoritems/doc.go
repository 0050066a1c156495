// Package curatoritems reads and writes the item set that Apache Curator's
// DistributedQueue stores in each queue node (ItemSerializer, Curator 5.4):
// a big-endian int32 version 0x00010001, then for each item the opcode
// 0x01, its length as a big-endian int32 and its bytes, then the end
// opcode 0x02. One node holds one item (DistributedQueue.put) or several
// (putMulti). The data decoders (zkview/decode) and the recipes' CuratorQueue
// share this one reading.
package curatoritems
