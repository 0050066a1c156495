package curatoritems

import (
	"bytes"
	"strings"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, items := range [][][]byte{
		{},
		{[]byte("one")},
		{[]byte("text"), {}, []byte(`{"a":1}`), {0x00, 0x01, 0x02, 0xff}},
	} {
		data := Encode(items)
		if !IsComplete(data) {
			t.Fatalf("Encode(%q) = %x: not a complete item set", items, data)
		}
		got, err := Decode(data)
		if err != nil {
			t.Fatalf("Decode(Encode(%q)): %v", items, err)
		}
		if len(got) != len(items) {
			t.Fatalf("Decode(Encode(%q)) = %q", items, got)
		}
		for i := range items {
			if !bytes.Equal(got[i], items[i]) {
				t.Errorf("item %d: %q, want %q", i, got[i], items[i])
			}
		}
	}
}

// TestEncodeLayout pins the bytes of one item, as ItemSerializer.serialize
// writes them (the decoders' fixtures, written by Curator itself, pin the
// rest: zkview/decode's TestCuratorItemSetEncoding).
func TestEncodeLayout(t *testing.T) {
	t.Parallel()
	want := []byte{0x00, 0x01, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x02, 'h', 'i', 0x02}
	if got := Encode([][]byte{[]byte("hi")}); !bytes.Equal(got, want) {
		t.Errorf("Encode(hi) = %x, want %x", got, want)
	}
}

func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	one := Encode([][]byte{[]byte("hi")})
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short for the version"},
		{"other version", append([]byte{0, 1, 0, 2}, one[4:]...), "version 0x00010002"},
		{"no end", one[:len(one)-1], "no end marker"},
		{"bad opcode", append(append([]byte{}, one[:4]...), 0x07), "opcode 0x07 at offset 4"},
		{"length beyond data", one[:7], "no room for its length"},
		{"truncated item", one[:10], "length 2, 1 bytes left"},
		{"negative length", []byte{0, 1, 0, 1, 1, 0xff, 0xff, 0xff, 0xff, 2}, "length -1"},
	} {
		_, err := Decode(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Decode(%x) = %v, want an error with %q", tc.name, tc.data, err, tc.want)
		}
		if IsComplete(tc.data) {
			t.Errorf("%s: IsComplete(%x) = true", tc.name, tc.data)
		}
	}
}

func TestTrailingBytesIgnored(t *testing.T) {
	t.Parallel()
	data := append(Encode([][]byte{[]byte("a"), []byte("b")}), 'x', 'y', 'z')
	items, err := Decode(data)
	if err != nil || len(items) != 2 || string(items[1]) != "b" {
		t.Fatalf("Decode with trailing bytes = %q, %v", items, err)
	}
	n, trailing, err := Walk(data, nil)
	if n != 2 || trailing != 3 || err != nil {
		t.Errorf("Walk = %d items, %d trailing, %v; want 2, 3, nil", n, trailing, err)
	}
	if IsComplete(data) {
		t.Error("IsComplete with trailing bytes = true")
	}
}

func TestWalkStops(t *testing.T) {
	t.Parallel()
	data := Encode([][]byte{[]byte("a"), []byte("b"), []byte("c")})
	var seen []string
	n, _, err := Walk(data, func(i int, b []byte) bool {
		seen = append(seen, string(b))
		return i < 1
	})
	if err != nil || n != 3 || strings.Join(seen, ",") != "a,b" {
		t.Errorf("Walk stopping after the second item: n=%d seen=%q err=%v", n, seen, err)
	}
}
