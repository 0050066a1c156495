package decode

import (
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/syslayout"
)

// The messages are built as protobuf-java writes them (syslayout.PB), with
// the field numbers of each system's .proto.

func TestProtobufWithoutSchema(t *testing.T) {
	t.Parallel()
	msg := syslayout.PB{}.String(1, "ns1").Message(2, syslayout.PB{}.String(1, "inner").Varint(2, 7)).
		Varint(3, 150).Int(4, -2).Bytes(5, []byte{0x00, 0xff})
	d := Data(msg, Auto)
	if d.Decoder != Protobuf {
		t.Fatalf("auto chose %s for a protocol buffer: %s", d.Decoder, d.Text)
	}
	want := `1: "ns1"
2 {
  1: "inner"
  2: 7
}
3: 150
4: 18446744073709551614 (as int64: -2)
5: 0x00ff`
	if d.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", d.Text, want)
	}
	if !strings.Contains(d.Note, "no schema") {
		t.Errorf("note %q", d.Note)
	}
}

func TestProtobufNamedByPath(t *testing.T) {
	t.Parallel()
	nn := syslayout.PB{}.String(1, "ns1").String(2, "nn1").String(3, "namenode-1").Int(4, 8020).Int(5, 8019)
	d := DataAt("/hadoop-ha/ns1/ActiveStandbyElectorLock", nn, Auto)
	if d.Decoder != Protobuf || !strings.Contains(d.Note, "hadoop.hdfs.ActiveNodeInfo") ||
		!strings.Contains(d.Text, `hostname: "namenode-1"`) || !strings.Contains(d.Text, "zkfcPort: 8019") {
		t.Errorf("ActiveNodeInfo: %s\n%s\n%s", d.Decoder, d.Note, d.Text)
	}
	rm := syslayout.PB{}.String(1, "yarn-cluster").String(2, "rm1")
	if d := DataAt("/yarn-leader-election/c/ActiveBreadCrumb", rm, Auto); !strings.Contains(d.Note, "ActiveRMInfoProto") || !strings.Contains(d.Text, `rmId: "rm1"`) {
		t.Errorf("ActiveRMInfoProto: %s\n%s", d.Note, d.Text)
	}
}

func TestHBaseFrame(t *testing.T) {
	t.Parallel()
	master := syslayout.PB{}.Message(1, syslayout.PB{}.String(1, "hmaster-1").Varint(2, 16000).Varint(3, 1700000000000)).
		Varint(2, 0).Varint(3, 16010)
	data := syslayout.HBaseValue("4242@hmaster-1", master)
	f, ok := ParseHBaseFrame(data)
	if !ok || f.ID != "4242@hmaster-1" {
		t.Fatalf("frame %+v %v", f, ok)
	}
	d := DataAt("/hbase/master", data, Auto)
	want := `master {
  host_name: "hmaster-1"
  port: 16000
  start_code: 1700000000000
}
rpc_version: 0
info_port: 16010`
	if d.Decoder != HBasePBUF || d.Text != want || !strings.Contains(d.Note, "4242@hmaster-1") || !strings.Contains(d.Note, "hbase.pb.Master") {
		t.Errorf("%s\n%s\n%s", d.Decoder, d.Note, d.Text)
	}
	// Without a path: the framing, and field numbers.
	if d := Data(data, Auto); d.Decoder != HBasePBUF || !strings.Contains(d.Text, `1: "hmaster-1"`) {
		t.Errorf("no path: %s\n%s", d.Decoder, d.Text)
	}
	// PBUF without the metadata is HBase's too.
	if d := Data(append([]byte("PBUF"), master...), Auto); d.Decoder != HBasePBUF {
		t.Errorf("bare PBUF: %s", d.Decoder)
	}
	if s := Summary(data, 80); !strings.HasPrefix(s, `PBUF 1{1:"hmaster-1" 2:16000`) {
		t.Errorf("summary %q", s)
	}
}

func TestProtobufBadBytes(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{
		{0x0a, 0x05, 'a'},               // length past the end
		{0x0b},                          // a group
		{0x00, 0x01},                    // field 0
		{0x08, 0xff, 0xff, 0xff},        // truncated varint
		{0xff, 0x00, 0x00, 0x00, 0x09},  // HBase metadata longer than the value
		append([]byte("PBUF"), 0x0a, 9), // a message cut short
	} {
		if _, err := ParseProtobuf(data); err == nil && data[0] != 0xff && data[0] != 'P' {
			t.Errorf("%x parsed", data)
		}
		for _, with := range []Decoder{Auto, Protobuf, HBasePBUF} {
			d := DataAt("/hbase/master", data, with)
			if with != Auto && d.Decoder != Hex {
				t.Errorf("%x as %s: %s, want the hex fallback", data, with, d.Decoder)
			}
		}
	}
}
