package netfail

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDescribeRealFailures: the errors a request to a member really
// returns, from a silent port, a closed one, a connection the server
// closes, read in plain words with the cause kept.
func TestDescribeRealFailures(t *testing.T) {
	t.Parallel()
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts (the kernel does), never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := gone.Addr().String()
	gone.Close()
	hangup, err := net.Listen("tcp", "127.0.0.1:0") // accepts, then closes at once
	if err != nil {
		t.Fatal(err)
	}
	defer hangup.Close()
	go func() {
		for {
			c, err := hangup.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	// readAll asks addr as a four-letter word is asked: the connection
	// closed when ctx ends.
	readAll := func(ctx context.Context, addr string) error {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		defer conn.Close()
		stop := context.AfterFunc(ctx, func() { conn.Close() })
		defer stop()
		if _, err := io.WriteString(conn, "srvr"); err != nil {
			return err
		}
		_, err = io.ReadAll(conn)
		return err
	}
	httpGet := func(ctx context.Context, addr string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/commands/configuration", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, tc := range []struct {
		name     string
		addr     string
		ask      func(context.Context, string) error
		want     string
		noAnswer bool
	}{
		{"silent port, four-letter word", silent.Addr().String(), readAll, "no answer within 200ms", true},
		{"silent port, HTTP", silent.Addr().String(), httpGet, "no answer within 200ms", true},
		{"closed port", closed, readAll, "connection refused", false},
		{"closed port, HTTP", closed, httpGet, "connection refused", false},
		// Closed before the request was read: an end of stream, or a
		// reset, or net/http's "server closed idle connection" (closed
		// before the transport had the request under way), as the race
		// falls.
		{"hung up, HTTP", hangup.Addr().String(), httpGet, "it closed the connection without answering|the connection was reset", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := Within(context.Background(), 200*time.Millisecond)
			defer cancel()
			raw := tc.ask(ctx, tc.addr)
			if raw == nil {
				t.Fatal("no error")
			}
			err := Describe(ctx, raw, 200*time.Millisecond)
			if !slices.Contains(strings.Split(tc.want, "|"), err.Error()) || NoAnswer(err) != tc.noAnswer || errors.Unwrap(err) != raw {
				t.Errorf("Describe(%v) = %q (no answer %v), want %q (%v)", raw, err, NoAnswer(err), tc.want, tc.noAnswer)
			}
			for _, bad := range []string{"tcp", "closed network connection", "deadline exceeded", "Get \""} {
				if strings.Contains(err.Error(), bad) {
					t.Errorf("%q says %q", err, bad)
				}
			}
		})
	}
}

// TestDescribeCallersDeadline: when the caller's own time ran out first,
// the server is not said to be silent for the request's whole deadline.
func TestDescribeCallersDeadline(t *testing.T) {
	t.Parallel()
	parent, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-parent.Done()
	ctx, cancel2 := Within(parent, time.Hour)
	defer cancel2()
	err := Describe(ctx, errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: use of closed network connection"), time.Hour)
	if err.Error() != "no answer before the deadline" {
		t.Errorf("got %q", err)
	}
	if err := Describe(context.Background(), context.DeadlineExceeded, 0); err.Error() != "no answer before the deadline" || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a context's end, alone: %q", err)
	}
	if Describe(context.Background(), nil, time.Second) != nil {
		t.Error("nil is not an error")
	}
	// The third way a hang-up is seen (TestDescribeRealFailures meets it
	// only when the race falls that way).
	closedIdle := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/commands", Err: errors.New(httpClosedIdle)}
	if err := Describe(context.Background(), closedIdle, time.Second); err.Error() != "it closed the connection without answering" || errors.Unwrap(err) != closedIdle {
		t.Errorf("net/http's closed idle connection: %q", err)
	}
	other := errors.New("something else")
	if Describe(context.Background(), other, time.Second) != other {
		t.Error("an error it does not know is returned as it is")
	}
}

// endingCtx is a ctx Within made, already over, that says it still runs the
// first time its Err is asked: what Describe sees when the connection's
// deadline (ctx's) wakes it a moment before ctx's own timer ends ctx.
type endingCtx struct {
	context.Context
	asked bool
}

func (c *endingCtx) Err() error {
	if !c.asked {
		c.asked = true
		return nil
	}
	return c.Context.Err()
}

// TestDescribeDeadlineRace: a request's silence past its own deadline is
// said as that, however the look at ctx falls against ctx's timer.
func TestDescribeDeadlineRace(t *testing.T) {
	t.Parallel()
	ctx, cancel := Within(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	ending := &endingCtx{Context: ctx}
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	if err := Describe(ending, timeout, time.Nanosecond); err.Error() != "no answer within 1ns" {
		t.Errorf("got %q, want the request's own deadline", err)
	}
}
