package zkserver_test

import (
	"encoding/binary"
	"io"
	"math/rand"
	"net"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/wireclient"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

func lengthPrefixed(body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	return append(b, body...)
}

func connectPacket() []byte {
	e := jute.NewEncoder(nil)
	(&jute.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)}).Encode(e)
	return lengthPrefixed(e.Bytes())
}

// TestGarbageClosesOnlyThatConnection sends malformed bytes on fresh
// connections and checks each is closed while a healthy client goes on.
func TestGarbageClosesOnlyThatConnection(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	healthy, err := wireclient.Dial(srv.ConnectString(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer healthy.Close()
	random := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(random)
	cases := map[string][]byte{
		"random bytes":             random,
		"length -1":                {0xff, 0xff, 0xff, 0xff, 1, 2, 3},
		"length over 1 MiB":        binary.BigEndian.AppendUint32(nil, 2<<20),
		"not a four-letter word":   []byte("kill"),
		"truncated connect":        lengthPrefixed([]byte{0, 0, 0, 0, 0}),
		"connect then short frame": append(connectPacket(), 0, 0, 0, 3, 1, 2, 3),
		"connect then huge frame":  append(connectPacket(), 0x7f, 0xff, 0xff, 0xff),
		"connect then unknown op": append(connectPacket(), lengthPrefixed(
			[]byte{0, 0, 0, 1, 0, 0, 0x03, 0xe7})...),
	}
	for name, garbage := range cases {
		t.Run(name, func(t *testing.T) {
			nc, err := net.Dial("tcp", srv.ConnectString())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.Write(garbage)
			nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.Copy(io.Discard, nc); err != nil {
				t.Fatalf("server did not close the connection: %v", err)
			}
			h, err := healthy.Call(jute.OpExists, &jute.PathWatchRequest{Path: "/zookeeper"}, &jute.StatResponse{})
			if err != nil || h.Err != jute.ErrOK {
				t.Fatalf("healthy client after %s: %v %s", name, err, h.Err.String())
			}
		})
	}
}

// TestMalformedBodyIsAnError checks a well-framed request with a broken body
// is answered MarshallingError, as ZooKeeper does, and the session goes on.
func TestMalformedBodyIsAnError(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	c, err := wireclient.Dial(srv.ConnectString(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, op := range []jute.Op{jute.OpCreate, jute.OpGetData, jute.OpMulti, jute.OpSetWatches} {
		body := binary.BigEndian.AppendUint32(nil, 1) // xid
		body = binary.BigEndian.AppendUint32(body, uint32(op))
		body = append(body, 0, 0, 0, 50, 'x') // a string claiming 50 bytes
		f, err := c.SendFrame(1, lengthPrefixed(body))
		if err != nil {
			t.Fatalf("op %d: %v", op, err)
		}
		if f.Header.Err != jute.ErrMarshallingError {
			t.Errorf("op %d: got %s, want marshalling error", op, f.Header.Err.String())
		}
	}
	h, err := c.Call(jute.OpExists, &jute.PathWatchRequest{Path: "/"}, nil)
	if err != nil || h.Err != jute.ErrOK {
		t.Fatalf("session after malformed bodies: %v %s", err, h.Err.String())
	}
}
