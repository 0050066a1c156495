//go:build pprof

package cmd

// A binary built with -tags pprof serves Go's profiles (net/http/pprof) on
// the address in ZKX_PPROF, e.g.
//
//	go build -tags pprof -o /tmp/zkx-prof . && ZKX_PPROF=127.0.0.1:6060 /tmp/zkx-prof --path /storm
//	go tool pprof -top 'http://127.0.0.1:6060/debug/pprof/profile?seconds=20'
//
// so that the explorer can be profiled as it runs (under churn, with the
// screen drawn). Release and ordinary builds have none of it.

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // its handlers, on http.DefaultServeMux
	"os"
)

func init() {
	addr := os.Getenv("ZKX_PPROF")
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "zkx: ZKX_PPROF=%s: %v\n", addr, err)
		os.Exit(2)
	}
	go http.Serve(ln, nil) // #nosec: a profiling build, on the address asked for
}
