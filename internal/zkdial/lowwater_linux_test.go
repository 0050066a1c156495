package zkdial

import (
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// TestCheckedConnPaceLowWater: while the reader waits for notifications
// to gather, the socket's low-water mark is raised (so that no packet
// wakes the netpoller), and it is one byte again once the wait ends, so
// that the answer to a request is read as it comes.
func TestCheckedConnPaceLowWater(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // the server: each answer after its request
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		for _, answer := range [][]byte{
			connectAnswer(10000, 1),
			rawReply(1, jute.ErrOK, record(&jute.StatResponse{})),
			rawReply(2, jute.ErrOK, record(&jute.GetDataResponse{})),
		} {
			if _, err := jute.ReadFrame(conn, 1<<20); err != nil {
				return
			}
			if _, err := conn.Write(answer); err != nil {
				return
			}
		}
		jute.ReadFrame(conn, 1<<20) // until the client closes
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a := &attempt{addr: ln.Addr().String(), watch: NewWatch([]string{ln.Addr().String()}, Options{})}
	c := newCheckedConn(conn, a, 1<<20, false)
	defer c.Close()
	c.socket = rawSocket(conn)
	if c.socket == nil {
		t.Fatal("no socket found under a TCP connection")
	}
	c.readPace = time.Hour
	conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // a mark left up fails the test rather than hang it
	lowWater := func() int {
		var mark int
		var getErr error
		c.socket.Control(func(fd uintptr) {
			mark, getErr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT)
		})
		if getErr != nil {
			t.Error(getErr)
		}
		return mark
	}
	buf := make([]byte, 4096)
	c.Write(connectRequest)
	if _, err := c.Read(buf); err != nil {
		t.Fatal(err)
	}
	c.Write(requestOf(1, jute.OpExists, &jute.PathWatchRequest{Path: "/t", Watch: true}))
	if _, err := c.Read(buf); err != nil {
		t.Fatal(err)
	}
	// The next read waits (nothing is asked): the mark goes up; a request
	// ends the wait.
	raised := make(chan int, 1)
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		mark := lowWater()
		for mark == 1 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
			mark = lowWater()
		}
		raised <- mark
		c.Write(requestOf(2, jute.OpGetData, &jute.PathWatchRequest{Path: "/t"}))
	}()
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if mark := <-raised; mark != paceLowWater {
		t.Errorf("low-water mark while the reader waited: %d, want %d", mark, paceLowWater)
	}
	if got, want := buf[:n], rawReply(2, jute.ErrOK, record(&jute.GetDataResponse{})); string(got) != string(want) {
		t.Errorf("read %x, want the getData reply %x", got, want)
	}
	if mark := lowWater(); mark != 1 {
		t.Errorf("low-water mark after the wait: %d, want 1", mark)
	}
}
