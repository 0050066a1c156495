package jute

// Record is one jute record: it can write itself and read itself back.
type Record interface {
	Encode(e *Encoder)
	Decode(d *Decoder)
}

// Id is an authentication identity: a scheme and an id within it.
type Id struct {
	Scheme string
	ID     string
}

func (r *Id) Encode(e *Encoder) { e.String(r.Scheme); e.String(r.ID) }
func (r *Id) Decode(d *Decoder) { r.Scheme = d.String(); r.ID = d.String() }

// ACL grants Perms to an Id.
type ACL struct {
	Perms int32
	ID    Id
}

func (r *ACL) Encode(e *Encoder) { e.Int(r.Perms); r.ID.Encode(e) }
func (r *ACL) Decode(d *Decoder) { r.Perms = d.Int(); r.ID.Decode(d) }

// minACLSize is the smallest encoding of an ACL: perms and two empty strings.
const minACLSize = 12

func encodeACLs(e *Encoder, acls []ACL) {
	e.Int(int32(len(acls)))
	for i := range acls {
		acls[i].Encode(e)
	}
}

// ReadACLs reads a vector of ACLs, as the records that carry one do;
// null reads as nil. The transaction log's records (package txnlog) use it.
func ReadACLs(d *Decoder) []ACL { return decodeACLs(d) }

func decodeACLs(d *Decoder) []ACL {
	n := d.Count(minACLSize)
	if n == 0 {
		return nil
	}
	out := make([]ACL, n)
	for i := range out {
		out[i].Decode(d)
	}
	return out
}

// Stat is a znode's metadata as the client sees it.
type Stat struct {
	Czxid          int64
	Mzxid          int64
	Ctime          int64
	Mtime          int64
	Version        int32
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64
	DataLength     int32
	NumChildren    int32
	Pzxid          int64
}

func (r *Stat) Encode(e *Encoder) {
	e.Long(r.Czxid)
	e.Long(r.Mzxid)
	e.Long(r.Ctime)
	e.Long(r.Mtime)
	e.Int(r.Version)
	e.Int(r.Cversion)
	e.Int(r.Aversion)
	e.Long(r.EphemeralOwner)
	e.Int(r.DataLength)
	e.Int(r.NumChildren)
	e.Long(r.Pzxid)
}

func (r *Stat) Decode(d *Decoder) {
	r.Czxid = d.Long()
	r.Mzxid = d.Long()
	r.Ctime = d.Long()
	r.Mtime = d.Long()
	r.Version = d.Int()
	r.Cversion = d.Int()
	r.Aversion = d.Int()
	r.EphemeralOwner = d.Long()
	r.DataLength = d.Int()
	r.NumChildren = d.Int()
	r.Pzxid = d.Long()
}

// ClientInfo is one identity in a whoAmI answer.
type ClientInfo struct {
	AuthScheme string
	User       string
}

func (r *ClientInfo) Encode(e *Encoder) { e.String(r.AuthScheme); e.String(r.User) }
func (r *ClientInfo) Decode(d *Decoder) { r.AuthScheme = d.String(); r.User = d.String() }

// ConnectRequest opens or re-attaches a session. ReadOnly is optional on the
// wire: HasReadOnly says whether the client sent it (old clients do not, and
// then the server must not send it back either).
type ConnectRequest struct {
	ProtocolVersion int32
	LastZxidSeen    int64
	TimeOut         int32
	SessionID       int64
	Passwd          []byte
	ReadOnly        bool
	HasReadOnly     bool
}

func (r *ConnectRequest) Encode(e *Encoder) {
	e.Int(r.ProtocolVersion)
	e.Long(r.LastZxidSeen)
	e.Int(r.TimeOut)
	e.Long(r.SessionID)
	e.Buffer(r.Passwd)
	if r.HasReadOnly {
		e.Bool(r.ReadOnly)
	}
}

func (r *ConnectRequest) Decode(d *Decoder) {
	r.ProtocolVersion = d.Int()
	r.LastZxidSeen = d.Long()
	r.TimeOut = d.Int()
	r.SessionID = d.Long()
	r.Passwd = d.Buffer()
	if d.Err() == nil && d.Remaining() > 0 {
		r.ReadOnly = d.Bool()
		r.HasReadOnly = true
	}
}

// ConnectResponse answers a ConnectRequest; a zero TimeOut and SessionID mean
// the session is expired.
type ConnectResponse struct {
	ProtocolVersion int32
	TimeOut         int32
	SessionID       int64
	Passwd          []byte
	ReadOnly        bool
	HasReadOnly     bool
}

func (r *ConnectResponse) Encode(e *Encoder) {
	e.Int(r.ProtocolVersion)
	e.Int(r.TimeOut)
	e.Long(r.SessionID)
	e.Buffer(r.Passwd)
	if r.HasReadOnly {
		e.Bool(r.ReadOnly)
	}
}

func (r *ConnectResponse) Decode(d *Decoder) {
	r.ProtocolVersion = d.Int()
	r.TimeOut = d.Int()
	r.SessionID = d.Long()
	r.Passwd = d.Buffer()
	if d.Err() == nil && d.Remaining() > 0 {
		r.ReadOnly = d.Bool()
		r.HasReadOnly = true
	}
}

// RequestHeader starts every request after the handshake.
type RequestHeader struct {
	Xid  int32
	Type Op
}

func (r *RequestHeader) Encode(e *Encoder) { e.Int(r.Xid); e.Int(int32(r.Type)) }
func (r *RequestHeader) Decode(d *Decoder) { r.Xid = d.Int(); r.Type = Op(d.Int()) }

// ReplyHeader starts every reply and notification.
type ReplyHeader struct {
	Xid  int32
	Zxid int64
	Err  Code
}

func (r *ReplyHeader) Encode(e *Encoder) { e.Int(r.Xid); e.Long(r.Zxid); e.Int(int32(r.Err)) }
func (r *ReplyHeader) Decode(d *Decoder) { r.Xid = d.Int(); r.Zxid = d.Long(); r.Err = Code(d.Int()) }

// MultiHeader precedes each operation and each result of a multi.
type MultiHeader struct {
	Type Op
	Done bool
	Err  Code
}

func (r *MultiHeader) Encode(e *Encoder) { e.Int(int32(r.Type)); e.Bool(r.Done); e.Int(int32(r.Err)) }
func (r *MultiHeader) Decode(d *Decoder) {
	r.Type = Op(d.Int())
	r.Done = d.Bool()
	r.Err = Code(d.Int())
}

// AuthPacket adds credentials to a connection (addauth).
type AuthPacket struct {
	Type   int32
	Scheme string
	Auth   []byte
}

func (r *AuthPacket) Encode(e *Encoder) { e.Int(r.Type); e.String(r.Scheme); e.Buffer(r.Auth) }
func (r *AuthPacket) Decode(d *Decoder) { r.Type = d.Int(); r.Scheme = d.String(); r.Auth = d.Buffer() }

// SetWatches re-registers a client's watches after it reconnects. The
// persistent lists are only on the wire in SetWatches2 (HasPersistent).
type SetWatches struct {
	RelativeZxid               int64
	DataWatches                []string
	ExistWatches               []string
	ChildWatches               []string
	PersistentWatches          []string
	PersistentRecursiveWatches []string
	HasPersistent              bool
}

func (r *SetWatches) Encode(e *Encoder) {
	e.Long(r.RelativeZxid)
	e.Strings(r.DataWatches)
	e.Strings(r.ExistWatches)
	e.Strings(r.ChildWatches)
	if r.HasPersistent {
		e.Strings(r.PersistentWatches)
		e.Strings(r.PersistentRecursiveWatches)
	}
}

func (r *SetWatches) Decode(d *Decoder) {
	r.RelativeZxid = d.Long()
	r.DataWatches = d.Strings()
	r.ExistWatches = d.Strings()
	r.ChildWatches = d.Strings()
	if r.HasPersistent {
		r.PersistentWatches = d.Strings()
		r.PersistentRecursiveWatches = d.Strings()
	}
}

// PathRequest carries only a path: sync, getACL, getAllChildrenNumber,
// getEphemerals (whose path is a prefix).
type PathRequest struct {
	Path string
}

func (r *PathRequest) Encode(e *Encoder) { e.String(r.Path) }
func (r *PathRequest) Decode(d *Decoder) { r.Path = d.String() }

// PathWatchRequest is a read that may leave a watch: exists, getData,
// getChildren, getChildren2.
type PathWatchRequest struct {
	Path  string
	Watch bool
}

func (r *PathWatchRequest) Encode(e *Encoder) { e.String(r.Path); e.Bool(r.Watch) }
func (r *PathWatchRequest) Decode(d *Decoder) { r.Path = d.String(); r.Watch = d.Bool() }

// PathIntRequest is a path with one integer: delete and check (a version),
// addWatch (a mode), checkWatches and removeWatches (a watcher type).
type PathIntRequest struct {
	Path  string
	Value int32
}

func (r *PathIntRequest) Encode(e *Encoder) { e.String(r.Path); e.Int(r.Value) }
func (r *PathIntRequest) Decode(d *Decoder) { r.Path = d.String(); r.Value = d.Int() }

// CreateRequest creates a znode; TTL is on the wire only for createTTL.
type CreateRequest struct {
	Path   string
	Data   []byte
	ACL    []ACL
	Flags  CreateMode
	TTL    int64
	HasTTL bool
}

func (r *CreateRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Buffer(r.Data)
	encodeACLs(e, r.ACL)
	e.Int(int32(r.Flags))
	if r.HasTTL {
		e.Long(r.TTL)
	}
}

func (r *CreateRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Data = d.Buffer()
	r.ACL = decodeACLs(d)
	r.Flags = CreateMode(d.Int())
	r.TTL = -1
	if r.HasTTL {
		r.TTL = d.Long()
	}
}

// SetDataRequest replaces a znode's data if its version matches (-1: any).
type SetDataRequest struct {
	Path    string
	Data    []byte
	Version int32
}

func (r *SetDataRequest) Encode(e *Encoder) { e.String(r.Path); e.Buffer(r.Data); e.Int(r.Version) }
func (r *SetDataRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Data = d.Buffer()
	r.Version = d.Int()
}

// SetACLRequest replaces a znode's ACL if its aversion matches (-1: any).
type SetACLRequest struct {
	Path    string
	ACL     []ACL
	Version int32
}

func (r *SetACLRequest) Encode(e *Encoder) { e.String(r.Path); encodeACLs(e, r.ACL); e.Int(r.Version) }
func (r *SetACLRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.ACL = decodeACLs(d)
	r.Version = d.Int()
}

// WatcherEvent is the body of a notification.
type WatcherEvent struct {
	Type  EventType
	State State
	Path  string
}

func (r *WatcherEvent) Encode(e *Encoder) {
	e.Int(int32(r.Type))
	e.Int(int32(r.State))
	e.String(r.Path)
}
func (r *WatcherEvent) Decode(d *Decoder) {
	r.Type = EventType(d.Int())
	r.State = State(d.Int())
	r.Path = d.String()
}

// IntResponse carries one integer: ErrorResponse, GetAllChildrenNumberResponse.
type IntResponse struct {
	Value int32
}

func (r *IntResponse) Encode(e *Encoder) { e.Int(r.Value) }
func (r *IntResponse) Decode(d *Decoder) { r.Value = d.Int() }

// PathResponse carries one path: CreateResponse, SyncResponse.
type PathResponse struct {
	Path string
}

func (r *PathResponse) Encode(e *Encoder) { e.String(r.Path) }
func (r *PathResponse) Decode(d *Decoder) { r.Path = d.String() }

// StatResponse carries one stat: exists, setData, setACL, check.
type StatResponse struct {
	Stat Stat
}

func (r *StatResponse) Encode(e *Encoder) { r.Stat.Encode(e) }
func (r *StatResponse) Decode(d *Decoder) { r.Stat.Decode(d) }

// Create2Response carries the created path and its stat.
type Create2Response struct {
	Path string
	Stat Stat
}

func (r *Create2Response) Encode(e *Encoder) { e.String(r.Path); r.Stat.Encode(e) }
func (r *Create2Response) Decode(d *Decoder) { r.Path = d.String(); r.Stat.Decode(d) }

// GetDataResponse carries data and stat.
type GetDataResponse struct {
	Data []byte
	Stat Stat
}

func (r *GetDataResponse) Encode(e *Encoder) { e.Buffer(r.Data); r.Stat.Encode(e) }
func (r *GetDataResponse) Decode(d *Decoder) { r.Data = d.Buffer(); r.Stat.Decode(d) }

// StringsResponse carries a list of names: getChildren, getEphemerals.
type StringsResponse struct {
	Strings []string
}

func (r *StringsResponse) Encode(e *Encoder) { e.Strings(r.Strings) }
func (r *StringsResponse) Decode(d *Decoder) { r.Strings = d.Strings() }

// GetChildren2Response carries children and the parent's stat.
type GetChildren2Response struct {
	Children []string
	Stat     Stat
}

func (r *GetChildren2Response) Encode(e *Encoder) { e.Strings(r.Children); r.Stat.Encode(e) }
func (r *GetChildren2Response) Decode(d *Decoder) { r.Children = d.Strings(); r.Stat.Decode(d) }

// GetACLResponse carries an ACL and the node's stat.
type GetACLResponse struct {
	ACL  []ACL
	Stat Stat
}

func (r *GetACLResponse) Encode(e *Encoder) { encodeACLs(e, r.ACL); r.Stat.Encode(e) }
func (r *GetACLResponse) Decode(d *Decoder) { r.ACL = decodeACLs(d); r.Stat.Decode(d) }

// WhoAmIResponse lists the identities of a connection.
type WhoAmIResponse struct {
	ClientInfo []ClientInfo
}

func (r *WhoAmIResponse) Encode(e *Encoder) {
	e.Int(int32(len(r.ClientInfo)))
	for i := range r.ClientInfo {
		r.ClientInfo[i].Encode(e)
	}
}

func (r *WhoAmIResponse) Decode(d *Decoder) {
	n := d.Count(8)
	r.ClientInfo = make([]ClientInfo, n)
	for i := range r.ClientInfo {
		r.ClientInfo[i].Decode(d)
	}
}

// SASLToken is a SASL exchange's record both ways: GetSASLRequest (the
// client's token, opcode 102) and SetSASLResponse (the server's answer).
// A nil token is written as -1, as the server writes its last answer.
type SASLToken struct {
	Token []byte
}

func (r *SASLToken) Encode(e *Encoder) { e.Buffer(r.Token) }
func (r *SASLToken) Decode(d *Decoder) { r.Token = d.Buffer() }
