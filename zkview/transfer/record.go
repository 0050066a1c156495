package transfer

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
)

// FormatVersion is the export format's version, in the header line.
const FormatVersion = 1

// Header is the first line of an export.
type Header struct {
	Format   int    `json:"zkx_export"`
	Root     string `json:"root"`
	Server   string `json:"server,omitempty"`
	Exported string `json:"exported"`
}

// Record is one node of an export.
type Record struct {
	Path string `json:"path"`
	// Data is base64 in JSON; null for a node created without data
	// (ZooKeeper keeps null apart from empty).
	Data []byte `json:"data"`
	// Text is the data again, when it is printable UTF-8, for people
	// and grep; import reads Data.
	Text *string `json:"text,omitempty"`
	ACL  []ACL   `json:"acl"`
	// EphemeralOwner is set for an ephemeral node (its session): import
	// skips it unless asked.
	EphemeralOwner string `json:"ephemeral_owner,omitempty"`
	Ctime          string `json:"ctime,omitempty"`
	Mtime          string `json:"mtime,omitempty"`
	Czxid          string `json:"czxid,omitempty"`
	Mzxid          string `json:"mzxid,omitempty"`
	Version        int32  `json:"version"`
	Cversion       int32  `json:"cversion"`
	Aversion       int32  `json:"aversion"`
	NumChildren    int32  `json:"num_children"`
	// Error says why the node could not be read: import refuses it.
	Error string `json:"error,omitempty"`
}

// ACL is one ACL entry; perms as zkCli spells them ("cdrwa").
type ACL struct {
	Scheme string `json:"scheme"`
	ID     string `json:"id"`
	Perms  string `json:"perms"`
}

// Ephemeral reports whether the node was ephemeral.
func (r *Record) Ephemeral() bool { return r.EphemeralOwner != "" }

// MaskedACL reports whether the server hid a digest hash of the ACL
// ("user:x"), as ZooKeeper does for a reader without ADMIN on the node:
// recreated, such an entry would lock its user out.
func (r *Record) MaskedACL() bool {
	for _, a := range r.ACL {
		if a.Scheme == "digest" && strings.HasSuffix(a.ID, ":x") {
			return true
		}
	}
	return false
}

// ZKACL is the record's ACL as go-zookeeper's.
func (r *Record) ZKACL() ([]zk.ACL, error) {
	if r.MaskedACL() {
		return nil, fmt.Errorf("its ACL's digest hash was hidden by the server at export (user:x: the exporting session had no ADMIN on it); export as an identity with ADMIN")
	}
	out := make([]zk.ACL, len(r.ACL))
	for i, a := range r.ACL {
		p, err := zkview.ParsePerms(a.Perms)
		if err != nil {
			return nil, fmt.Errorf("%s: ACL %s:%s: %w", r.Path, a.Scheme, a.ID, err)
		}
		out[i] = zk.ACL{Scheme: a.Scheme, ID: a.ID, Perms: p}
	}
	return out, nil
}

// recordOf describes a walked node.
func recordOf(n zkview.WalkNode) Record {
	r := Record{Path: n.Path}
	if n.Err != nil {
		r.Error = n.Err.Error()
		return r
	}
	if n.ACLErr != nil {
		r.Error = n.ACLErr.Error()
		return r
	}
	r.Data = n.Data
	if isText(n.Data) {
		t := string(n.Data)
		r.Text = &t
	}
	r.ACL = make([]ACL, len(n.ACL))
	for i, a := range n.ACL {
		r.ACL[i] = ACL{Scheme: a.Scheme, ID: a.ID, Perms: zkview.PermString(a.Perms)}
	}
	st := n.Stat
	if zkview.IsSessionOwner(st.EphemeralOwner) {
		r.EphemeralOwner = display.Hex(st.EphemeralOwner)
	}
	r.Ctime, r.Mtime = millis(st.Ctime), millis(st.Mtime)
	r.Czxid, r.Mzxid = display.Hex(st.Czxid), display.Hex(st.Mzxid)
	r.Version, r.Cversion, r.Aversion, r.NumChildren = st.Version, st.Cversion, st.Aversion, st.NumChildren
	return r
}

func millis(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// isText reports whether data reads as text: valid UTF-8 with no control
// characters but tab and line ends.
func isText(data []byte) bool {
	if len(data) == 0 || !utf8.Valid(data) {
		return false
	}
	for _, r := range string(data) {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
	}
	return true
}
