package auditlog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzReader feeds arbitrary bytes to the reader as one file: it must
// never panic and must end, every problem must be a *LineError inside
// the input (or the gzip stream's error), and every event must carry a
// result ZooKeeper writes and an operation.
func FuzzReader(f *testing.F) {
	zoned, err := os.ReadFile(zonedFile)
	if err != nil {
		f.Fatal(err)
	}
	gz, err := os.ReadFile(serverLog)
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfter(string(zoned), "\n")
	f.Add(zoned)
	f.Add([]byte(strings.Join(lines[:5], "")))
	f.Add([]byte(lines[3][:len(lines[3])/2]))
	f.Add([]byte(strings.ReplaceAll(lines[4], "\t", " ")))
	f.Add([]byte(strings.Replace(lines[6], "T", " ", 1)))
	f.Add(gz[:len(gz)/3])
	f.Add([]byte("operation=\tresult=success\n"))
	f.Add([]byte("[2026-02-30T25:61:61,1234567890+99:99] session=0x\tuser=\toperation=x\tresult=invoked"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := newFileReader(bytes.NewReader(b), "fuzz", newParser(time.UTC))
		if err != nil {
			return // a gzip header that is not one
		}
		lines := bytes.Count(b, []byte("\n")) + 1
		for i := 0; ; i++ {
			if i > len(b)+2 {
				t.Fatalf("no end after %d calls on %d bytes", i, len(b))
			}
			var e Event
			err := r.next(&e)
			if errors.Is(err, io.EOF) {
				return
			}
			var le *LineError
			switch {
			case errors.As(err, &le):
				if le.Line < 1 || (!r.stats.Gzip && le.Line > lines) {
					t.Fatalf("%v: line %d of %d", err, le.Line, lines)
				}
			case err != nil:
				if !r.stats.Gzip {
					t.Fatalf("error %v reading plain bytes", err)
				}
			default:
				if e.Operation == "" || (e.Result != ResultSuccess && e.Result != ResultFailure && e.Result != ResultInvoked) {
					t.Fatalf("event %+v", e)
				}
				if strings.ContainsAny(e.Znode+e.User+e.IP, "\n") {
					t.Fatalf("a field with a line end: %+v", e)
				}
			}
		}
	})
}
