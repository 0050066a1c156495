package fakezk

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Peer is one client connection as a Behaviour sees it.
type Peer struct {
	conn   net.Conn
	reader *bufio.Reader
	done   <-chan struct{}

	writeMu sync.Mutex // a behaviour may write from two goroutines
}

func newPeer(c net.Conn, done <-chan struct{}) *Peer {
	return &Peer{conn: c, reader: bufio.NewReader(c), done: done}
}

// Done is closed when the server closes.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Request is one request read from the client.
type Request struct {
	Xid  int32
	Op   jute.Op
	Path string // for the requests that carry one first
	Body []byte // after the header
}

// maxRequest bounds what a fake reads of one frame.
const maxRequest = 4 << 20

// ReadConnect reads the client's session request.
func (p *Peer) ReadConnect() (jute.ConnectRequest, error) {
	var req jute.ConnectRequest
	body, err := jute.ReadFrame(p.reader, maxRequest)
	if err != nil {
		return req, err
	}
	d := jute.NewDecoder(body)
	req.Decode(d)
	return req, d.Err()
}

// SendConnect answers the session request with resp as it is, however
// wrong.
func (p *Peer) SendConnect(resp jute.ConnectResponse) error {
	e := jute.NewFrameEncoder()
	resp.Encode(e)
	return p.Write(jute.Frame(e))
}

// SessionID is the id every fake session gets.
const SessionID int64 = 0x1000f4ce0001

// Handshake reads the session request and opens a session with the
// timeout asked for.
func (p *Peer) Handshake() error {
	req, err := p.ReadConnect()
	if err != nil {
		return err
	}
	return p.SendConnect(jute.ConnectResponse{TimeOut: req.TimeOut, SessionID: SessionID, Passwd: make([]byte, 16)})
}

// ReadRequest reads the next request.
func (p *Peer) ReadRequest() (Request, error) {
	body, err := jute.ReadFrame(p.reader, maxRequest)
	if err != nil {
		return Request{}, err
	}
	d := jute.NewDecoder(body)
	var h jute.RequestHeader
	h.Decode(d)
	if d.Err() != nil {
		return Request{}, fmt.Errorf("fakezk: request header: %w", d.Err())
	}
	req := Request{Xid: h.Xid, Op: h.Type, Body: body[d.Offset():]}
	switch h.Type {
	case jute.OpExists, jute.OpGetData, jute.OpGetChildren, jute.OpGetChildren2, jute.OpGetACL, jute.OpSync,
		jute.OpCreate, jute.OpDelete, jute.OpSetData, jute.OpSetACL:
		req.Path = jute.NewDecoder(req.Body).String()
	}
	return req, nil
}

// Reply sends a reply: the header, then body unless it is nil.
func (p *Peer) Reply(xid int32, code jute.Code, body jute.Record) error {
	e := jute.NewFrameEncoder()
	(&jute.ReplyHeader{Xid: xid, Zxid: 1, Err: code}).Encode(e)
	if body != nil {
		body.Encode(e)
	}
	return p.Write(jute.Frame(e))
}

// ReplyRaw sends a reply header with no error, then body as it is.
func (p *Peer) ReplyRaw(xid int32, body []byte) error {
	e := jute.NewFrameEncoder()
	(&jute.ReplyHeader{Xid: xid, Zxid: 1, Err: jute.ErrOK}).Encode(e)
	frame := append(e.Bytes(), body...)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	return p.Write(frame)
}

// Notify sends a watch notification.
func (p *Peer) Notify(eventType jute.EventType, path string) error {
	e := jute.NewFrameEncoder()
	(&jute.ReplyHeader{Xid: jute.XidNotification, Zxid: -1, Err: jute.ErrOK}).Encode(e)
	(&jute.WatcherEvent{Type: eventType, State: jute.StateSyncConnected, Path: path}).Encode(e)
	return p.Write(jute.Frame(e))
}

// Write sends bytes as they are.
func (p *Peer) Write(b []byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := p.conn.Write(b)
	return err
}

// Drain reads and drops whatever the client sends until the connection
// or the server closes: a peer that listens and never answers.
func (p *Peer) Drain() {
	buf := make([]byte, 4096)
	for {
		if _, err := p.reader.Read(buf); err != nil {
			return
		}
	}
}
