package introspect

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestResolveAdminStandaloneTLS: a standalone 3.8 server's configuration
// names its plain client port and says nothing of its TLS one. A member
// dialled on its TLS port is then matched by host, but only when zkx
// speaks TLS; an ensemble member's configuration names both ports, and
// a port named neither is refused.
func TestResolveAdminStandaloneTLS(t *testing.T) {
	t.Parallel()
	standalone := `{"client_port":2181,"server_id":0,"command":"configuration","error":null}`
	ensemble := `{"client_port":2181,"secure_client_port":2281,"server_id":1,"command":"configuration","error":null}`
	serve := func(body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/commands"
	}
	tlsOn := &tls.Config{MinVersion: tls.VersionTLS12}
	for _, tc := range []struct {
		name, conf, member string
		tls                *tls.Config
		match              bool
	}{
		{"standalone, plain port", standalone, "127.0.0.1:2181", nil, true},
		{"standalone, TLS port over TLS", standalone, "127.0.0.1:2281", tlsOn, true},
		{"standalone, other port without TLS", standalone, "127.0.0.1:2281", nil, false},
		{"standalone, TLS port on another host", standalone, "10.0.0.9:2281", tlsOn, false},
		{"ensemble, its TLS port", ensemble, "127.0.0.1:2281", tlsOn, true},
		{"ensemble, a port it does not name", ensemble, "127.0.0.1:2999", tlsOn, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Timeout: DefaultTimeout, HTTPClient: http.DefaultClient, TLS: tc.tls}
			a := resolveAdmin(context.Background(), []string{tc.member}, serve(tc.conf), opts)
			if matched := a.err == nil && a.target != nil && a.target.member == tc.member; matched != tc.match {
				t.Errorf("matched = %v (err %v), want %v", matched, a.err, tc.match)
			}
		})
	}
}
