package sasl

import (
	"errors"
	"strings"
	"testing"
)

// rfc2831 is the IMAP example of RFC 2831 §4: user chris, password secret.
var rfc2831 = struct {
	challenge, cnonce, digestURI, response, rspauth string
}{
	challenge: `realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",qop="auth",algorithm=md5-sess,charset=utf-8`,
	cnonce:    "OA6MHXh6VqTrRk",
	digestURI: "imap/elwood.innosoft.com",
	response:  "d388dad90d4bbd760a152321f2143af7",
	rspauth:   "ea40f60335c427b5527b84dbabcdfffd",
}

func fixedNonce(n string) func() (string, error) { return func() (string, error) { return n, nil } }

// TestDigestMD5RFCExample: the client's response and the rspauth it
// expects are the RFC's.
func TestDigestMD5RFCExample(t *testing.T) {
	t.Parallel()
	c := NewDigestMD5("chris", "secret", "imap", "elwood.innosoft.com")
	c.cnonce = fixedNonce(rfc2831.cnonce)
	first, more, err := c.Step(nil)
	if err != nil || !more || first == nil || len(first) != 0 {
		t.Fatalf("first step: %q more=%v err=%v (want an empty token)", first, more, err)
	}
	resp, more, err := c.Step([]byte(rfc2831.challenge))
	if err != nil || !more {
		t.Fatalf("response: more=%v err=%v", more, err)
	}
	ds, err := parseDirectives(string(resp))
	if err != nil {
		t.Fatalf("our own response does not parse: %v", err)
	}
	for name, want := range map[string]string{"username": "chris", "realm": "elwood.innosoft.com",
		"nonce": "OA6MG9tEQGm2hh", "nc": "00000001", "cnonce": rfc2831.cnonce, "digest-uri": rfc2831.digestURI,
		"response": rfc2831.response, "qop": "auth", "charset": "utf-8"} {
		if got, _ := lookup(ds, name); got != want {
			t.Errorf("%s = %q, want %q (response %s)", name, got, want, resp)
		}
	}
	if _, more, err := c.Step([]byte("rspauth=" + rfc2831.rspauth)); err != nil || more {
		t.Errorf("the RFC's rspauth refused: more=%v err=%v", more, err)
	}

	c = NewDigestMD5("chris", "secret", "imap", "elwood.innosoft.com")
	c.cnonce = fixedNonce(rfc2831.cnonce)
	c.Step(nil)
	c.Step([]byte(rfc2831.challenge))
	if _, _, err := c.Step([]byte("rspauth=00000000000000000000000000000000")); !errors.Is(err, ErrRefused) {
		t.Errorf("a wrong rspauth: %v, want ErrRefused", err)
	}
}

// TestDigestMD5ServerRFCExample: the server side checks the RFC's
// response and answers the RFC's rspauth.
func TestDigestMD5ServerRFCExample(t *testing.T) {
	t.Parallel()
	users := func(u string) (string, bool) { return map[string]string{"chris": "secret"}[u], u == "chris" }
	s := NewDigestMD5Server("imap", "elwood.innosoft.com", users)
	s.nonce = fixedNonce("OA6MG9tEQGm2hh")
	if _, done, err := s.Step([]byte{}); err != nil || done {
		t.Fatalf("challenge: done=%v err=%v", done, err)
	}
	resp := `charset=utf-8,username="chris",realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",nc=00000001,` +
		`cnonce="OA6MHXh6VqTrRk",digest-uri="imap/elwood.innosoft.com",response=d388dad90d4bbd760a152321f2143af7,qop=auth`
	answer, done, err := s.Step([]byte(resp))
	if err != nil || !done || string(answer) != "rspauth="+rfc2831.rspauth {
		t.Fatalf("answer %q done=%v err=%v", answer, done, err)
	}
	if s.AuthorizationID() != "chris" {
		t.Errorf("authorized %q", s.AuthorizationID())
	}
}

// TestDigestMD5RoundTrip: our client and server agree, with ZooKeeper's
// fixed names; a wrong password, an unknown user and a different
// digest-uri are refused; an authzid does not change who is authorized.
func TestDigestMD5RoundTrip(t *testing.T) {
	t.Parallel()
	users := func(u string) (string, bool) {
		p, ok := map[string]string{"bob": "s3cret", "zoë": "pässwörd€"}[u]
		return p, ok
	}
	run := func(c *DigestMD5) (string, error) {
		s := NewDigestMD5Server(ZooKeeperDigestService, ZooKeeperDigestHost, users)
		tok, more, err := c.Step(nil)
		for more && err == nil {
			var answer []byte
			if answer, _, err = s.Step(tok); err != nil {
				return "", err
			}
			tok, more, err = c.Step(answer)
		}
		return s.AuthorizationID(), err
	}
	for _, tc := range []struct {
		name, user, password, host, authz string
		want                              string
		wantErr                           string
	}{
		{name: "ok", user: "bob", password: "s3cret", want: "bob"},
		{name: "non-latin password", user: "zoë", password: "pässwörd€", want: "zoë"},
		{name: "authzid ignored", user: "bob", password: "s3cret", authz: "super", want: "bob"},
		{name: "wrong password", user: "bob", password: "nope", wantErr: "wrong user name or password"},
		{name: "unknown user", user: "eve", password: "s3cret", wantErr: "wrong user name or password"},
		{name: "other digest-uri", user: "bob", password: "s3cret", host: "elsewhere", wantErr: "digest-uri"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := ZooKeeperDigestHost
			if tc.host != "" {
				host = tc.host
			}
			c := NewDigestMD5(tc.user, tc.password, ZooKeeperDigestService, host)
			c.authzID = tc.authz
			got, err := run(c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), tc.password) {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("authorized %q err %v, want %q", got, err, tc.want)
			}
		})
	}
}

// TestDigestMD5BadChallenges: what is not a usable challenge is an
// error, never a panic.
func TestDigestMD5BadChallenges(t *testing.T) {
	t.Parallel()
	for _, ch := range []string{"", `nonce="x"`, `realm="r",algorithm=md5-sess`, `nonce="x",algorithm=md5-sess,qop="auth-conf"`,
		`nonce="unterminated,algorithm=md5-sess`, `=x`, `nonce "x"`} {
		c := NewDigestMD5("u", "p", "zookeeper", "zk-sasl-md5")
		c.Step(nil)
		if _, more, err := c.Step([]byte(ch)); err == nil || more {
			t.Errorf("challenge %q accepted", ch)
		}
	}
}

func TestParseDirectives(t *testing.T) {
	t.Parallel()
	ds, err := parseDirectives(` realm="a\"b" , ,nonce=xyz,qop="auth,auth-int" `)
	if err != nil {
		t.Fatal(err)
	}
	want := []directive{{"realm", `a"b`}, {"nonce", "xyz"}, {"qop", "auth,auth-int"}}
	if len(ds) != len(want) {
		t.Fatalf("%q", ds)
	}
	for i := range want {
		if ds[i] != want[i] {
			t.Errorf("%d: %q, want %q", i, ds[i], want[i])
		}
	}
}
