package hostile

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
)

// TestControlsFindsEverySequence: Controls finds each sequence, and
// nothing in what display.Line makes of it.
func TestControlsFindsEverySequence(t *testing.T) {
	for _, s := range Sequences {
		if len(Controls("a "+s.Text+" b", Allow{})) == 0 {
			t.Errorf("%s: nothing found in %q", s.Name, s.Text)
		}
		if f := Controls(display.Line(s.Text), Allow{}); len(f) > 0 {
			t.Errorf("%s: display.Line(%q) = %q still holds %v", s.Name, s.Text, display.Line(s.Text), f)
		}
	}
	if f := Controls("\x1b[1;38;2;1;2;3mstyled\x1b[m\n", Allow{SGR: true}); len(f) > 0 {
		t.Errorf("SGR sequences with sgr: %v", f)
	}
	if f := Controls("\x1b[1mstyled\x1b[m", Allow{}); len(f) != 2 {
		t.Errorf("SGR sequences without sgr: %v", f)
	}
}

// TestServe: the scene's hostile names list, its data reads back, and the
// four-letter words come back rewritten.
func TestServe(t *testing.T) {
	connect := Serve(t).Addr
	c, _, err := zk.Connect([]string{connect}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	names, _, err := c.Children(Listed)
	if err != nil || len(names) != len(Sequences)+1 {
		t.Fatalf("%s: %q, %v", Listed, names, err)
	}
	data, _, err := c.Get(Dir)
	if err != nil || string(data) != Text("text data") {
		t.Fatalf("%s: %q, %v", Dir, data, err)
	}
	conn, err := net.Dial("tcp", connect)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("srvr")); err != nil {
		t.Fatal(err)
	}
	answer, err := io.ReadAll(conn)
	if err != nil || !strings.Contains(string(answer), "Mode: "+Text("mode")) {
		t.Errorf("srvr: %q, %v", answer, err)
	}
}
