package decode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecode: no input makes Data or Summary panic, hang or show raw
// bytes, whatever the decoder.
//
//	go test ./zkview/decode -run '^$' -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	entries, err := os.ReadDir(decodeFixtures)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".golden") || strings.HasSuffix(e.Name(), ".java") || strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(decodeFixtures, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0), 40)
	}
	f.Add(curatorItems(curatorItems([]byte("x")), []byte{0x1f, 0x8b, 0x08}), uint8(5), 3)
	f.Add([]byte("a\u202e\r\n\x00"), uint8(1), 1)
	decoders := Choices()
	f.Fuzz(func(t *testing.T, data []byte, pick uint8, width int) {
		with := decoders[int(pick)%len(decoders)]
		d := Data(data, with)
		switch {
		case d.Decoder == "" || d.Decoder == Auto:
			t.Fatalf("Data(%q, %s) reports decoder %q", data, with, d.Decoder)
		case len(data) == 0 && d.Decoder != Null && d.Decoder != Empty:
			t.Fatalf("no data decoded as %s", d.Decoder)
		case with != Auto && d.Decoder != with && d.Decoder != Hex && len(data) > 0:
			t.Fatalf("asked for %s, got %s", with, d.Decoder)
		case len(d.Text) > 4*maxText:
			t.Fatalf("text of %d bytes", len(d.Text))
		}
		checkShowable(t, "Text", d.Text, true)
		checkShowable(t, "Note", d.Note, false)
		if with == Auto {
			if again := Data(data, d.Decoder); again.Text != d.Text {
				t.Fatalf("auto chose %s but decoding with it shows something else:\n%q\n%q", d.Decoder, d.Text, again.Text)
			}
		}
		width = int(uint(width)%200) + 1
		s := Summary(data, width)
		if utf8.RuneCountInString(s) > width {
			t.Fatalf("Summary(%q, %d) = %q: too long", data, width, s)
		}
		checkShowable(t, "Summary", s, false)
	})
}

// FuzzProtobuf: no input makes the protocol buffer and HBase decoders
// panic or show raw bytes, with or without a schema.
//
//	go test ./zkview/decode -run '^$' -fuzz FuzzProtobuf -fuzztime 60s
func FuzzProtobuf(f *testing.F) {
	f.Add([]byte{0x0a, 0x03, 'a', 'b', 'c', 0x10, 0x96, 0x01}, "/hbase/master")
	f.Add(append([]byte{0xff, 0, 0, 0, 2, 'i', 'd', 'P', 'B', 'U', 'F'}, 0x0a, 0x02, 0x0a, 0x00), "/hbase/rs/a,1,2")
	f.Add([]byte{0x32, 0x04, 0x0a, 0x02, 'i', 'd'}, "/ledgers/available/b:3181")
	f.Fuzz(func(t *testing.T, data []byte, p string) {
		for _, with := range []Decoder{Auto, Protobuf, HBasePBUF} {
			d := DataAt(p, data, with)
			if with != Auto && len(data) > 0 && d.Decoder != with && d.Decoder != Hex {
				t.Fatalf("asked for %s, got %s", with, d.Decoder)
			}
			checkShowable(t, "Text", d.Text, true)
			checkShowable(t, "Note", d.Note, false)
		}
		if msg, err := ParseProtobuf(data); err == nil {
			checkShowable(t, "compact", pbCompact(msg, 0), false)
		}
	})
}
