package zkview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/decode"
)

// detailDial connects a client for the NodeDetail tests.
func detailDial(t *testing.T, connect string, opts ...Option) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, connect, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func fieldValue(fields []Field, name string) string {
	for _, f := range fields {
		if f.Name == name {
			return f.Value
		}
	}
	return "<no field " + name + ">"
}

// TestNodeDetail reads nodes of every kind, including ones the session may
// not read, against the embedded server and real ZooKeeper.
func TestNodeDetail(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := detailDial(t, connect)
		base := zktest.Path(t)
		ctx := context.Background()
		create := func(path string, data []byte, flags int32, acl []zk.ACL) {
			t.Helper()
			if _, err := c.Conn().Create(c.Abs(base+path), data, flags, acl); err != nil {
				t.Fatalf("create %s: %v", path, err)
			}
		}
		open := zk.WorldACL(zk.PermAll)
		create("", nil, 0, open)
		create("/json", []byte(`{"holder":"10.0.0.5","since":1714560000}`), 0, open)
		create("/null", nil, 0, open)
		create("/empty", []byte{}, 0, open)
		create("/count", []byte{0, 0, 0, 42}, 0, open)
		create("/eph", []byte("10.0.0.5"), zk.FlagEphemeral, open)
		secret := []byte("password=hunter2")
		create("/secret", secret, 0, zk.DigestACL(zk.PermAll, "alice", "secret"))
		create("/adminonly", []byte("x"), 0, zk.WorldACL(zk.PermAdmin))

		t.Run("json", func(t *testing.T) {
			d, err := NodeDetail(ctx, c, base+"/json", decode.Auto)
			if err != nil {
				t.Fatal(err)
			}
			if d.NoDataAccess || d.NoACLAccess || d.Decoded.Decoder != decode.JSON || !strings.Contains(d.Decoded.Text, "\n  \"holder\": \"10.0.0.5\",") {
				t.Fatalf("detail: %+v", d)
			}
			if got := fieldValue(d.StatFields, "dataLength"); got != "40" {
				t.Errorf("dataLength %q", got)
			}
			if got := fieldValue(d.StatFields, "ephemeralOwner"); !strings.HasPrefix(got, "0x0 ") {
				t.Errorf("ephemeralOwner %q", got)
			}
			if !strings.HasSuffix(fieldValue(d.StatFields, "ctime"), " ago)") && !strings.HasSuffix(fieldValue(d.StatFields, "ctime"), "(just now)") {
				t.Errorf("ctime %q", fieldValue(d.StatFields, "ctime"))
			}
			if len(d.ACLFields) != 1 || d.ACLFields[0] != (Field{"world:anyone", "cdrwa"}) {
				t.Errorf("ACL %v", d.ACLFields)
			}
			if got := d.Redecode(decode.Hex); got.Decoder != decode.Hex || !strings.HasPrefix(got.Text, "00000000: 7b22") {
				t.Errorf("Redecode(hex): %+v", got)
			}
			if got := d.Redecode(decode.Int32); got.Decoder != decode.Hex || !strings.Contains(got.Note, "not an int32") {
				t.Errorf("Redecode(int32): %+v", got)
			}
		})

		t.Run("null and empty", func(t *testing.T) {
			for path, want := range map[string]decode.Decoder{"/null": decode.Null, "/empty": decode.Empty} {
				d, err := NodeDetail(ctx, c, base+path, decode.Auto)
				if err != nil {
					t.Fatal(err)
				}
				if d.Decoded.Decoder != want || d.Decoded.Text != "" {
					t.Errorf("%s: decoded %+v, want %s", path, d.Decoded, want)
				}
			}
		})

		t.Run("int32 and override", func(t *testing.T) {
			d, err := NodeDetail(ctx, c, base+"/count", decode.Auto)
			if err != nil {
				t.Fatal(err)
			}
			if d.Decoded.Decoder != decode.Int32 || d.Decoded.Text != "42" {
				t.Errorf("decoded %+v", d.Decoded)
			}
			d, err = NodeDetail(ctx, c, base+"/count", decode.Hex)
			if err != nil {
				t.Fatal(err)
			}
			if d.Decoded.Decoder != decode.Hex || !strings.HasPrefix(d.Decoded.Text, "00000000: 0000 002a") {
				t.Errorf("decoded %+v", d.Decoded)
			}
		})

		t.Run("ephemeral", func(t *testing.T) {
			d, err := NodeDetail(ctx, c, base+"/eph", decode.Auto)
			if err != nil {
				t.Fatal(err)
			}
			sid := fmt.Sprintf("0x%x", c.SessionID())
			if got := fieldValue(d.StatFields, "ephemeralOwner"); got != sid+" (ephemeral)" {
				t.Errorf("ephemeralOwner %q, want session %s", got, sid)
			}
		})

		t.Run("no access", func(t *testing.T) {
			d, err := NodeDetail(ctx, c, base+"/secret", decode.Auto)
			if err != nil {
				t.Fatalf("an unreadable node must not be an error: %v", err)
			}
			if !d.NoDataAccess || d.Data != nil || d.Decoded.Text != NoAccessText || d.Decoded.Decoder != "" {
				t.Errorf("data: NoDataAccess %v, data %q, decoded %+v", d.NoDataAccess, d.Data, d.Decoded)
			}
			if !d.NoACLAccess || d.ACL != nil || len(d.ACLFields) != 1 || d.ACLFields[0].Value != NoAccessText {
				t.Errorf("ACL: NoACLAccess %v, %v", d.NoACLAccess, d.ACLFields)
			}
			if d.Stat == nil || d.Stat.DataLength != int32(len(secret)) || fieldValue(d.StatFields, "dataLength") != "16" {
				t.Errorf("stat of an unreadable node: %+v", d.Stat)
			}
			if got := d.Redecode(decode.Hex); got.Text != NoAccessText {
				t.Errorf("Redecode of unreadable data: %+v", got)
			}
		})

		t.Run("with credentials", func(t *testing.T) {
			alice := detailDial(t, connect, WithAuth("digest", []byte("alice:secret")))
			d, err := NodeDetail(ctx, alice, base+"/secret", decode.Auto)
			if err != nil {
				t.Fatal(err)
			}
			if d.NoDataAccess || d.NoACLAccess || d.Decoded.Text != string(secret) {
				t.Errorf("detail with credentials: %+v", d)
			}
			if len(d.ACLFields) != 1 || !strings.HasPrefix(d.ACLFields[0].Name, "digest:alice:") || d.ACLFields[0].Value != "cdrwa" {
				t.Errorf("ACL %v", d.ACLFields)
			}
		})

		t.Run("admin only", func(t *testing.T) {
			// getACL needs READ or ADMIN: the ACL shows, the data does not.
			d, err := NodeDetail(ctx, c, base+"/adminonly", decode.Auto)
			if err != nil {
				t.Fatal(err)
			}
			if !d.NoDataAccess || d.NoACLAccess || len(d.ACLFields) != 1 || d.ACLFields[0] != (Field{"world:anyone", "a"}) {
				t.Errorf("detail: NoDataAccess %v NoACLAccess %v ACL %v", d.NoDataAccess, d.NoACLAccess, d.ACLFields)
			}
			if d.Stat == nil || d.Stat.DataLength != 1 {
				t.Errorf("stat %+v", d.Stat)
			}
		})

		t.Run("missing", func(t *testing.T) {
			_, err := NodeDetail(ctx, c, base+"/missing", decode.Auto)
			if !IsNoNode(err) || !strings.Contains(err.Error(), base+"/missing") {
				t.Errorf("missing node: %v", err)
			}
		})
	})
}

// fakeDetailReader answers NodeDetail's reads from fields.
type fakeDetailReader struct {
	data          []byte
	getErr        error
	acl           []zk.ACL
	aclErr        error
	exists        *zk.Stat
	existsErr     error
	existsQueried bool
}

func (f *fakeDetailReader) Get(context.Context, string) ([]byte, *zk.Stat, error) {
	if f.getErr != nil {
		return nil, nil, f.getErr
	}
	return f.data, &zk.Stat{DataLength: int32(len(f.data))}, nil
}

func (f *fakeDetailReader) ACL(context.Context, string) ([]zk.ACL, *zk.Stat, error) {
	if f.aclErr != nil {
		return nil, nil, f.aclErr
	}
	return f.acl, &zk.Stat{Aversion: 7}, nil
}

func (f *fakeDetailReader) Exists(context.Context, string) (*zk.Stat, error) {
	f.existsQueried = true
	return f.exists, f.existsErr
}

func TestNodeDetailErrors(t *testing.T) {
	t.Parallel()
	noAuth := &PathError{Op: "get", Path: "/p", Err: zk.ErrNoAuth}
	lost := &PathError{Op: "get", Path: "/p", Err: zk.ErrConnectionClosed}
	cases := []struct {
		name    string
		r       *fakeDetailReader
		wantErr error
		check   func(t *testing.T, d *Detail, r *fakeDetailReader)
	}{
		{name: "connection lost on get", r: &fakeDetailReader{getErr: lost}, wantErr: zk.ErrConnectionClosed},
		{name: "connection lost on acl", r: &fakeDetailReader{aclErr: lost}, wantErr: zk.ErrConnectionClosed},
		{name: "gone before exists", r: &fakeDetailReader{getErr: noAuth, aclErr: noAuth}, wantErr: zk.ErrNoNode},
		{name: "exists fails", r: &fakeDetailReader{getErr: noAuth, aclErr: noAuth, existsErr: lost}, wantErr: zk.ErrConnectionClosed},
		{name: "stat from get, not exists", r: &fakeDetailReader{data: []byte("abc")}, check: func(t *testing.T, d *Detail, r *fakeDetailReader) {
			if r.existsQueried || d.Stat.DataLength != 3 {
				t.Errorf("stat %+v, exists queried %v", d.Stat, r.existsQueried)
			}
		}},
		{name: "stat from acl when data unreadable", r: &fakeDetailReader{getErr: noAuth}, check: func(t *testing.T, d *Detail, r *fakeDetailReader) {
			if r.existsQueried || d.Stat.Aversion != 7 || !d.NoDataAccess {
				t.Errorf("stat %+v, exists queried %v", d.Stat, r.existsQueried)
			}
		}},
		{name: "stat from exists", r: &fakeDetailReader{getErr: noAuth, aclErr: noAuth, exists: &zk.Stat{NumChildren: 9}}, check: func(t *testing.T, d *Detail, r *fakeDetailReader) {
			if d.Stat.NumChildren != 9 || fieldValue(d.StatFields, "numChildren") != "9" {
				t.Errorf("stat %+v", d.Stat)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := NodeDetail(context.Background(), c.r, "/p", decode.Auto)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) || d != nil {
					t.Fatalf("NodeDetail = %v, %v; want error %v", d, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, d, c.r)
		})
	}
}
