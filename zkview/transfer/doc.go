// Package transfer moves subtrees: export writes one as JSON Lines (a
// header line, then one line per node in preorder, parents first), import
// recreates such a file in transactions (multi) of many nodes each, and
// copy and move run the two back to back without a file.
//
// The file keeps what recreating a node needs — its path, data (base64,
// and as text when it is text), ACL — and stat fields worth reading
// (times, versions, zxids, the ephemeral owner). Versions, zxids and times
// cannot be recreated; ephemeral nodes are marked and skipped on import
// unless asked for (they are then created persistent, since their owner's
// session cannot be). Sequential names are recreated as they were.
package transfer
