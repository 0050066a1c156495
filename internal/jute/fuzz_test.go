package jute

import (
	"bytes"
	"testing"
)

// recordKinds builds one empty record of each kind the server decodes.
var recordKinds = []func() Record{
	func() Record { return &ConnectRequest{} },
	func() Record { return &RequestHeader{} },
	func() Record { return &AuthPacket{} },
	func() Record { return &SetWatches{} },
	func() Record { return &SetWatches{HasPersistent: true} },
	func() Record { return &PathRequest{} },
	func() Record { return &PathWatchRequest{} },
	func() Record { return &PathIntRequest{} },
	func() Record { return &CreateRequest{} },
	func() Record { return &CreateRequest{HasTTL: true} },
	func() Record { return &SetDataRequest{} },
	func() Record { return &SetACLRequest{} },
	func() Record { return &MultiRequest{} },
	func() Record { return &MultiResponse{} },
	func() Record { return &GetACLResponse{} },
	func() Record { return &WhoAmIResponse{} },
}

// FuzzDecode feeds arbitrary bytes to every record decoder: none may panic
// or allocate beyond its input, and whatever decodes cleanly must survive an
// encode/decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	for _, seed := range [][]byte{
		nil,
		{0, 0, 0, 0},
		{0xff, 0xff, 0xff, 0xff},
		{0x7f, 0xff, 0xff, 0xff, 0, 0},
		encode(&CreateRequest{Path: "/a", Data: []byte("x"), ACL: []ACL{{Perms: PermAll, ID: Id{"world", "anyone"}}}, Flags: ModeEphemeralSequential}),
		encode(&MultiRequest{Ops: []MultiOp{{Type: OpDelete, Rec: &PathIntRequest{Path: "/a", Value: -1}}}}),
		encode(&SetWatches{RelativeZxid: 5, DataWatches: []string{"/a"}}),
	} {
		for kind := range recordKinds {
			f.Add(uint8(kind), seed)
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		newRec := recordKinds[int(kind)%len(recordKinds)]
		r := newRec()
		d := NewDecoder(data)
		r.Decode(d)
		if d.Err() != nil {
			return
		}
		again := encode(r)
		r2 := newRec()
		d2 := NewDecoder(again)
		r2.Decode(d2)
		if d2.Err() != nil {
			t.Fatalf("re-encoded %T does not decode: %v", r, d2.Err())
		}
		if third := encode(r2); !bytes.Equal(again, third) {
			t.Fatalf("%T round trip differs:\n%x\n%x", r, again, third)
		}
	})
}

func encode(r Record) []byte {
	e := NewEncoder(nil)
	r.Encode(e)
	return e.Bytes()
}

func TestDecoderRejectsHostileLengths(t *testing.T) {
	t.Parallel()
	cases := map[string][]byte{
		"buffer longer than input": {0, 0, 0, 10, 1, 2},
		"negative buffer length":   {0xff, 0xff, 0xff, 0xfe},
		"huge vector":              {0x7f, 0xff, 0xff, 0xff},
		"truncated int":            {0, 0},
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			d := NewDecoder(data)
			if name == "huge vector" {
				d.Strings()
			} else {
				d.Buffer()
			}
			if d.Err() == nil {
				t.Fatalf("decoded %x without error", data)
			}
			if d.Int() != 0 || d.Buffer() != nil {
				t.Fatal("reads after an error must return zero values")
			}
		})
	}
}

func TestNullStringsAndBuffers(t *testing.T) {
	t.Parallel()
	d := NewDecoder([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	if s := d.String(); s != "" || d.Err() != nil {
		t.Fatalf("null string: %q %v", s, d.Err())
	}
	if b := d.Buffer(); b != nil || d.Err() != nil {
		t.Fatalf("null buffer: %v %v", b, d.Err())
	}
}

func TestInvalidUTF8BecomesReplacement(t *testing.T) {
	t.Parallel()
	d := NewDecoder([]byte{0, 0, 0, 3, 'a', 0xff, 'b'})
	if s := d.String(); s != "a\uFFFDb" {
		t.Fatalf("got %q", s)
	}
}
