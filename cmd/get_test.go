package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func create(t *testing.T, c *zk.Conn, path string, data []byte, flags int32, acl []zk.ACL) {
	t.Helper()
	if _, err := c.Create(path, data, flags, acl); err != nil {
		t.Fatalf("create %s: %v", path, err)
	}
}

func TestGet(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := zktest.Conn(t, connect)
		base := zktest.Path(t)
		open := zk.WorldACL(zk.PermAll)
		create(t, c, base, nil, 0, open)
		create(t, c, base+"/json", []byte(`{"b":[true,null],"a":1}`), 0, open)
		create(t, c, base+"/text", []byte("hello, world"), 0, open)
		create(t, c, base+"/bin", []byte{0x00, 0x01, 0xfe, 0xff, 'z', 0x1b}, 0, open)
		create(t, c, base+"/null", nil, 0, open)
		cases := []struct {
			name, path string
			args       []string
			out, note  string
		}{
			{"json", "/json", nil, "{\n  \"b\": [\n    true,\n    null\n  ],\n  \"a\": 1\n}\n", ""},
			{"text", "/text", nil, "hello, world\n", ""},
			{"binary", "/bin", nil, "00000000: 0001 feff 7a1b                           ....z.\n", ""},
			{"forced hex", "/text", []string{"--decode", "hex"}, "00000000: 6865 6c6c 6f2c 2077 6f72 6c64            hello, world\n", ""},
			{"decoder that does not fit", "/text", []string{"--decode", "int32"}, "00000000: 6865 6c6c 6f2c 2077 6f72 6c64            hello, world\n", "note: not an int32: 12 bytes, want exactly 4 (decoder hex)\n"},
			{"null", "/null", nil, "", "note: no data (null) (decoder null)\n"},
		}
		for _, tc := range cases {
			args := append([]string{"--server", connect, "get", base + tc.path}, tc.args...)
			out, errs, err := run(t, args...)
			if err != nil || out != tc.out || errs != tc.note {
				t.Errorf("%s: zkx get %s: err %v\nstdout %q\nwant   %q\nstderr %q, want %q", tc.name, tc.path, err, out, tc.out, errs, tc.note)
			}
		}

		out, _, err := run(t, "--server", connect, "get", "-o", "json", base+"/json")
		if err != nil {
			t.Fatal(err)
		}
		var got getJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if got.Path != base+"/json" || got.Decoder != "json" || !strings.Contains(got.Data, `"a": 1`) || got.Note != "" ||
			got.Stat.DataLength != 23 || got.Stat.Version != 0 || got.Stat.EphemeralOwner != "0x0" || !strings.HasPrefix(got.Stat.Czxid, "0x") {
			t.Errorf("get -o json: %+v", got)
		}
		if _, err := time.Parse(time.RFC3339, got.Stat.Ctime); err != nil {
			t.Errorf("ctime %q: %v", got.Stat.Ctime, err)
		}
		if strings.Contains(out, "AAE") || strings.Contains(out, `"raw"`) {
			t.Errorf("raw bytes in the JSON: %s", out)
		}
		out, _, err = run(t, "--server", connect, "get", "-o", "json", base+"/bin")
		if err != nil || !strings.Contains(out, `"decoder": "hex"`) || !strings.Contains(out, "0001 feff") {
			t.Errorf("get -o json of binary data: %v %s", err, out)
		}
	})
}

func TestStat(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := zktest.Conn(t, connect)
		base := zktest.Path(t)
		create(t, c, base, []byte("x"), 0, zk.WorldACL(zk.PermAll))
		create(t, c, base+"/eph", []byte("abc"), zk.FlagEphemeral, zk.WorldACL(zk.PermRead|zk.PermWrite))

		out, _, err := run(t, "--server", connect, "stat", base)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"cZxid", "ephemeralOwner  0x0 (not ephemeral", "numChildren     1", "world:anyone    cdrwa"} {
			if !strings.Contains(out, want) {
				t.Errorf("stat: no %q in\n%s", want, out)
			}
		}
		out, _, err = run(t, "--server", connect, "stat", "-o", "json", base+"/eph")
		if err != nil {
			t.Fatal(err)
		}
		var got statCommandJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		owner := fmt.Sprintf("0x%x", c.SessionID())
		if got.Path != base+"/eph" || got.EphemeralOwner != owner || got.DataLength != 3 || got.NumChildren != 0 ||
			len(got.ACL) != 1 || got.ACL[0] != (aclJSON{"world", "anyone", "rw"}) || got.ACLError != "" {
			t.Errorf("stat -o json: %+v (owner want %s)\n%s", got, owner, out)
		}
		for _, key := range []string{"czxid", "mzxid", "pzxid", "ctime", "mtime", "version", "cversion", "aversion", "ephemeral_owner", "data_length", "num_children", "acl"} {
			if !strings.Contains(out, `"`+key+`":`) {
				t.Errorf("stat -o json: no %q in %s", key, out)
			}
		}
	})
}

// TestGetStatNoAccess: on a node whose ACL grants this session nothing,
// get is an error naming the fix, stat still shows the stat.
func TestGetStatNoAccess(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := zktest.Conn(t, connect)
		base := zktest.Path(t)
		create(t, c, base, nil, 0, zk.WorldACL(zk.PermAll))
		secret := base + "/secret"
		create(t, c, secret, []byte("s3cr3t"), 0, zk.DigestACL(zk.PermAll, "alice", "pw"))

		_, _, err := run(t, "--server", connect, "get", secret)
		if err == nil || !strings.Contains(err.Error(), "get "+secret+": no access") || !strings.Contains(err.Error(), "--auth") {
			t.Errorf("get without credentials: %v", err)
		}
		out, _, err := run(t, "--server", connect, "--auth", "digest:alice:pw", "get", secret)
		if err != nil || out != "s3cr3t\n" {
			t.Errorf("get with credentials: %q %v", out, err)
		}
		out, _, err = run(t, "--server", connect, "stat", secret)
		if err != nil || !strings.Contains(out, "dataLength      6") || !strings.Contains(out, "acl             no access") {
			t.Errorf("stat without credentials: %v\n%s", err, out)
		}
		out, _, err = run(t, "--server", connect, "stat", "-o", "json", secret)
		var got statCommandJSON
		if err != nil || json.Unmarshal([]byte(out), &got) != nil || got.ACL != nil || !strings.Contains(got.ACLError, "no access") ||
			got.DataLength != 6 || !strings.Contains(out, `"acl": null`) {
			t.Errorf("stat -o json without credentials: %v\n%s", err, out)
		}
	})
}

// TestGetStatErrors: a missing node, named with the server (what is
// refused before any I/O, TestReadRefusals).
func TestGetStatErrors(t *testing.T) {
	t.Parallel()
	srv := zktest.Embedded(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"get", "/missing"}, "get /missing on " + srv + ": node does not exist"},
		{[]string{"stat", "/missing"}, "on " + srv + ": node does not exist"},
	}
	for _, c := range cases {
		_, _, err := run(t, append([]string{"--server", srv}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("zkx %v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}
