package fakezk

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Honest opens sessions and answers as ZooKeeper would (see Answer): the
// kit's own control case.
func Honest() Behaviour {
	return func(p *Peer) {
		if p.Handshake() == nil {
			p.Serve(p.Answer)
		}
	}
}

// TimeoutZero opens a session whose negotiated timeout is 0 ms (go-zookeeper
// divides it into a ping interval of 0 and panics), then answers honestly.
func TimeoutZero() Behaviour {
	return func(p *Peer) {
		if _, err := p.ReadConnect(); err != nil {
			return
		}
		if p.SendConnect(jute.ConnectResponse{TimeOut: 0, SessionID: SessionID, Passwd: make([]byte, 16)}) == nil {
			p.Serve(p.Answer)
		}
	}
}

// HugeVector answers every listing (getChildren, getChildren2) with a body
// that is a vector length of 0x7fffffff and nothing else (go-zookeeper
// allocates what the length says); other requests it answers honestly.
func HugeVector() Behaviour {
	return func(p *Peer) {
		if p.Handshake() != nil {
			return
		}
		p.Serve(func(req Request) error {
			if req.Op == jute.OpGetChildren || req.Op == jute.OpGetChildren2 {
				return p.ReplyRaw(req.Xid, []byte{0x7f, 0xff, 0xff, 0xff})
			}
			return p.Answer(req)
		})
	}
}

// PingsOnly opens sessions and answers their pings, and nothing else.
func PingsOnly() Behaviour {
	return func(p *Peer) {
		if p.Handshake() != nil {
			return
		}
		p.Serve(func(req Request) error {
			if req.Op == jute.OpPing {
				return p.Answer(req)
			}
			return nil
		})
	}
}

// WrongXids answers pings, and every other request as ZooKeeper would but
// under an xid 1000 higher: a reply to a request never sent.
func WrongXids() Behaviour {
	return func(p *Peer) {
		if p.Handshake() != nil {
			return
		}
		p.Serve(func(req Request) error {
			if req.Op != jute.OpPing {
				req.Xid += 1000
			}
			return p.Answer(req)
		})
	}
}

// NotificationFlood opens sessions, answers their pings and floods them
// with notifications of changes to nodes nobody watches; requests go
// unanswered.
func NotificationFlood() Behaviour {
	return func(p *Peer) {
		if p.Handshake() != nil {
			return
		}
		go func() {
			for i := 0; ; i++ {
				if p.Notify(jute.EventNodeDataChanged, "/flood/"+strconv.Itoa(i)) != nil {
					return
				}
			}
		}()
		p.Serve(func(req Request) error {
			if req.Op == jute.OpPing {
				return p.Answer(req)
			}
			return nil
		})
	}
}

// SilentAfterHandshake opens sessions, then answers nothing, pings
// included.
func SilentAfterHandshake() Behaviour {
	return func(p *Peer) {
		if p.Handshake() == nil {
			p.Drain()
		}
	}
}

// Garbage answers the session request with b, then listens in silence.
func Garbage(b []byte) Behaviour {
	return func(p *Peer) {
		if p.Write(b) == nil {
			p.Drain()
		}
	}
}

// RandomBytes is 4 KiB of (repeatable) noise.
func RandomBytes() []byte {
	r := rand.New(rand.NewPCG(22, 22))
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// HugeFrame is a frame header that announces 2 GiB (0x80000000 bytes),
// then a little of the body.
func HugeFrame() []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x80000000)
	return append(b, make([]byte, 64)...)
}

// HTTPResponse is what an HTTP server (ZooKeeper's AdminServer on 8080,
// say) answers a request it cannot parse.
func HTTPResponse() []byte {
	return []byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/html;charset=iso-8859-1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
}

// HTTP answers like an HTTP server, then closes the connection.
func HTTP() Behaviour {
	return func(p *Peer) { p.Write(HTTPResponse()) }
}

// Silent accepts connections and never answers.
func Silent() Behaviour { return func(p *Peer) { p.Drain() } }

// Case is a named misbehaviour.
type Case struct {
	Name      string
	Behaviour Behaviour
	// What says in a few words what the server does.
	What string
}

// Cases are the misbehaviours zkx is tested against, in the order the
// documentation lists them.
var Cases = []Case{
	{"timeout-zero", TimeoutZero(), "opens the session with a negotiated timeout of 0 ms"},
	{"huge-vector", HugeVector(), "answers a listing with a vector length of 0x7fffffff"},
	{"pings-only", PingsOnly(), "opens the session and answers pings, nothing else"},
	{"wrong-xids", WrongXids(), "answers under xids that were never sent"},
	{"notification-flood", NotificationFlood(), "floods notifications for nodes nobody watches, answers no request"},
	{"silent-after-handshake", SilentAfterHandshake(), "opens the session, then says nothing, not even to pings"},
	{"random-bytes", Garbage(RandomBytes()), "answers the session request with 4 KiB of noise"},
	{"huge-frame", Garbage(HugeFrame()), "answers with a frame length of 2 GiB"},
	{"http", HTTP(), "answers in HTTP (400 Bad Request) and closes"},
	{"silent", Silent(), "accepts the connection and never answers"},
	{"honest", Honest(), "answers as ZooKeeper would (/ and /zookeeper)"},
}

// Lookup returns the case named name.
func Lookup(name string) (Case, bool) {
	for _, c := range Cases {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}
