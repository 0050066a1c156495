package zkview

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
)

// Field is one name/value row of the detail pane or of `zkx stat`.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ephemeralOwner values that are not sessions, as ZooKeeper's EphemeralType
// encodes them. ZooKeeper 3.8 (and zkx's embedded server) report containers
// and TTL nodes to clients with an owner of 0, so these are only seen from
// servers that pass the raw value through.
const (
	ownerContainer    = -1 << 63                                 // 0x8000000000000000
	ownerTTLMask      = 0xff00000000000000                       // TTL: top byte all ones…
	ownerTTLTypeMask  = 0x00ffff0000000000                       // …and the extended type 0
	ownerTTLValueMask = ^uint64(ownerTTLMask | ownerTTLTypeMask) // the TTL in ms
)

// FormatStat gives a node's stat as zkCli's `stat` names and orders it:
// zxids in hex, times as local date and time with how long ago (relative to
// now, in now's time zone), versions, the ephemeral owner as a session id or
// what the node is, the data length and the number of children. A nil stat
// gives no rows.
func FormatStat(st *zk.Stat, now time.Time) []Field {
	if st == nil {
		return nil
	}
	return []Field{
		{"cZxid", display.Hex(st.Czxid)},
		{"ctime", statTime(st.Ctime, now)},
		{"mZxid", display.Hex(st.Mzxid)},
		{"mtime", statTime(st.Mtime, now)},
		{"pZxid", display.Hex(st.Pzxid)},
		{"cversion", strconv.Itoa(int(st.Cversion))},
		{"dataVersion", strconv.Itoa(int(st.Version))},
		{"aclVersion", strconv.Itoa(int(st.Aversion))},
		{"ephemeralOwner", statOwner(st.EphemeralOwner)},
		{"dataLength", statSize(int64(st.DataLength))},
		{"numChildren", strconv.Itoa(int(st.NumChildren))},
	}
}

// statTime formats a time in milliseconds since the epoch.
func statTime(ms int64, now time.Time) string {
	if ms == 0 {
		return "0 (not set)"
	}
	t := time.UnixMilli(ms).In(now.Location())
	return t.Format("2006-01-02 15:04:05.000 MST") + " (" + statAgo(t, now) + ")"
}

// statAgo says how long before now t was: "just now", "45s ago", "3m20s ago",
// "2h05m ago", "3d04h ago", or "in 5s" for a time ahead of now (clock skew
// between the server and this machine).
func statAgo(t, now time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		return "in " + display.Duration(-d)
	}
	if d < time.Second {
		return "just now"
	}
	return display.Duration(d) + " ago"
}

// statOwner says whose a node is from its ephemeralOwner.
func statOwner(id int64) string {
	hex := display.Hex(id)
	u := uint64(id)
	switch {
	case id == 0:
		return hex + " (not ephemeral: persistent, container or TTL)"
	case id == ownerContainer:
		return hex + " (container)"
	case u&ownerTTLMask == ownerTTLMask && u&ownerTTLTypeMask == 0:
		return hex + " (TTL node, TTL " + time.Duration(int64(u&ownerTTLValueMask)*int64(time.Millisecond)).String() + ")"
	default:
		return hex + " (ephemeral)"
	}
}

// statSize is a byte count, with a binary-prefixed size from 1 KiB up.
func statSize(n int64) string {
	s := strconv.FormatInt(n, 10)
	const unit = 1024
	if n < unit {
		return s
	}
	v, prefix := float64(n)/unit, "KMGTPE"
	i := 0
	for v >= unit && i < len(prefix)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%s (%.1f %ciB)", s, v, prefix[i])
}

// FormatACL gives one row per ACL entry, as zkCli's getAcl prints them: the
// name "scheme:id" and the permissions as letters in zkCli's order, "cdrwa"
// (create, delete, read, write, admin); an entry granting nothing shows
// "none", and unknown permission bits are added in hex.
func FormatACL(acl []zk.ACL) []Field {
	fields := make([]Field, 0, len(acl))
	for _, a := range acl {
		fields = append(fields, Field{Name: a.Scheme + ":" + a.ID, Value: aclPerms(a.Perms)})
	}
	return fields
}

// aclPerms spells ACL permissions as zkCli does.
func aclPerms(p int32) string {
	var b strings.Builder
	for _, f := range []struct {
		bit    int32
		letter byte
	}{{zk.PermCreate, 'c'}, {zk.PermDelete, 'd'}, {zk.PermRead, 'r'}, {zk.PermWrite, 'w'}, {zk.PermAdmin, 'a'}} {
		if p&f.bit != 0 {
			b.WriteByte(f.letter)
		}
	}
	if rest := p &^ zk.PermAll; rest != 0 {
		fmt.Fprintf(&b, "+0x%x", uint32(rest))
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}
