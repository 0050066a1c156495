package zkview

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var updateDecodeGolden = flag.Bool("update-decode", false, "rewrite testdata/decode/*.golden from Decode's output")

const decodeFixtures = "testdata/decode"

func readDecodeFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(decodeFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// formatDecoded is the golden form of a Decoded.
func formatDecoded(d Decoded) string {
	return "decoder: " + string(d.Decoder) + "\nnote: " + d.Note + "\n----\n" + d.Text + "\n"
}

// checkShowable fails when text holds what a terminal must not be sent:
// invalid UTF-8, or control and non-printing characters other than newline
// and (when tabs) tab.
func checkShowable(t testing.TB, what, text string, tabs bool) {
	t.Helper()
	if !utf8.ValidString(text) {
		t.Fatalf("%s: invalid UTF-8 in %q", what, text)
	}
	for i, r := range text {
		if r == '\n' || (tabs && r == '\t') {
			continue
		}
		if !unicode.IsGraphic(r) {
			t.Fatalf("%s: non-printing rune %U at byte %d of %q", what, r, i, text)
		}
	}
}

// TestDecodeFixtures decodes every fixture with the decoders that matter for
// it and compares with the goldens (go test -run DecodeFixtures -update-decode
// rewrites them).
func TestDecodeFixtures(t *testing.T) {
	cases := []struct {
		file string
		with Decoder
		want Decoder
	}{
		{"text-hello.txt", DecodeAuto, DecodeText},
		{"text-ip.txt", DecodeAuto, DecodeText},
		{"text-crlf.txt", DecodeAuto, DecodeText},
		{"text-controls.bin", DecodeAuto, DecodeHex},
		{"text-controls.bin", DecodeText, DecodeText},
		{"text-invalid-utf8.bin", DecodeAuto, DecodeHex},
		{"text-invalid-utf8.bin", DecodeText, DecodeText},
		{"text-abcd.txt", DecodeAuto, DecodeText},
		{"text-abcd.txt", DecodeInt32, DecodeInt32},
		{"json-object.json", DecodeAuto, DecodeJSON},
		{"json-object.json", DecodeText, DecodeText},
		{"json-array.json", DecodeAuto, DecodeJSON},
		{"json-scalar.txt", DecodeAuto, DecodeText},
		{"json-scalar.txt", DecodeJSON, DecodeJSON},
		{"json-broken.json", DecodeAuto, DecodeText},
		{"json-broken.json", DecodeJSON, DecodeHex},
		{"gzip-json.gz", DecodeAuto, DecodeGzip},
		{"gzip-json.gz", DecodeHex, DecodeHex},
		{"gzip-text.gz", DecodeAuto, DecodeGzip},
		{"gzip-binary.gz", DecodeAuto, DecodeGzip},
		{"gzip-in-gzip.gz", DecodeAuto, DecodeGzip},
		{"gzip-truncated.gz", DecodeAuto, DecodeHex},
		{"gzip-badcrc.gz", DecodeAuto, DecodeHex},
		{"gzip-garbage.gz", DecodeGzip, DecodeHex},
		{"text-hello.txt", DecodeGzip, DecodeHex},
		{"binary-junk.bin", DecodeAuto, DecodeHex},
		{"binary-junk.bin", DecodeText, DecodeText},
		{"binary-junk.bin", DecodeJSON, DecodeHex},
		{"binary-junk.bin", DecodeCuratorQueue, DecodeHex},
		{"shared-count-42.bin", DecodeAuto, DecodeInt32},
		{"shared-count-neg7.bin", DecodeAuto, DecodeInt32},
		{"shared-count-42.bin", DecodeInt64, DecodeHex},
		{"atomic-long-1234567890123.bin", DecodeAuto, DecodeInt64},
		{"atomic-long-neg1.bin", DecodeAuto, DecodeInt64},
		{"atomic-long-neg1.bin", DecodeInt32, DecodeHex},
		{"curator-queue-one.bin", DecodeAuto, DecodeCuratorQueue},
		{"curator-queue-multi.bin", DecodeAuto, DecodeCuratorQueue},
		{"curator-queue-empty.bin", DecodeAuto, DecodeCuratorQueue},
		{"curator-queue-trailing.bin", DecodeAuto, DecodeHex},
		{"curator-queue-trailing.bin", DecodeCuratorQueue, DecodeCuratorQueue},
		{"curator-queue-truncated.bin", DecodeAuto, DecodeHex},
		{"curator-queue-truncated.bin", DecodeCuratorQueue, DecodeHex},
		{"curator-queue-badversion.bin", DecodeCuratorQueue, DecodeHex},
		{"empty.bin", DecodeAuto, DecodeEmpty},
		{"empty.bin", DecodeInt64, DecodeEmpty},
	}
	for _, c := range cases {
		name := strings.TrimSuffix(c.file, filepath.Ext(c.file)) + "." + string(c.with)
		t.Run(name, func(t *testing.T) {
			got := Decode(readDecodeFixture(t, c.file), c.with)
			if got.Decoder != c.want {
				t.Errorf("decoder %q, want %q (note %q)", got.Decoder, c.want, got.Note)
			}
			checkShowable(t, "Text", got.Text, true)
			checkShowable(t, "Note", got.Note, false)
			golden := filepath.Join(decodeFixtures, name+".golden")
			if *updateDecodeGolden {
				if err := os.WriteFile(golden, []byte(formatDecoded(got)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-decode to create it)", err)
			}
			if g := formatDecoded(got); g != string(want) {
				t.Errorf("Decode(%s, %s) differs from %s:\n%s\nwant:\n%s", c.file, c.with, golden, g, want)
			}
		})
	}
}

func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// curatorItems builds an item set as Curator's ItemSerializer writes it.
func curatorItems(items ...[]byte) []byte {
	b := []byte{0, 1, 0, 1}
	for _, it := range items {
		b = append(b, 1)
		b = binary.BigEndian.AppendUint32(b, uint32(len(it)))
		b = append(b, it...)
	}
	return append(b, 2)
}

// TestDecodeAuto pins DecodeAuto's choices, and what Decode does with each
// decoder asked for explicitly.
func TestDecodeAuto(t *testing.T) {
	be32 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	be64 := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	cases := []struct {
		name     string
		data     []byte
		with     Decoder
		want     Decoder
		text     string
		noteHas  string
		textHas  string
		noteNone bool
	}{
		{name: "nil", data: nil, with: DecodeAuto, want: DecodeNull, text: "", noteHas: "null"},
		{name: "empty", data: []byte{}, with: DecodeAuto, want: DecodeEmpty, text: "", noteHas: "0 bytes"},
		{name: "nil as json", data: nil, with: DecodeJSON, want: DecodeNull},
		{name: "empty as int64", data: []byte{}, with: DecodeInt64, want: DecodeEmpty, noteHas: "reads no data as 0"},
		{name: "ascii", data: []byte("10.0.0.5"), with: DecodeAuto, want: DecodeText, text: "10.0.0.5", noteNone: true},
		{name: "multi-line", data: []byte("a=1\n\tb=2\n"), with: DecodeAuto, want: DecodeText, text: "a=1\n\tb=2\n"},
		{name: "crlf", data: []byte("a\r\nb"), with: DecodeAuto, want: DecodeText, text: "a\nb", noteHas: "CRLF"},
		{name: "lone cr", data: []byte("a\rb"), with: DecodeText, want: DecodeText, text: `a\rb`},
		{name: "utf8", data: []byte("zürich 日本"), with: DecodeAuto, want: DecodeText, text: "zürich 日本"},
		{name: "bidi override escaped", data: []byte("a\u202eb"), with: DecodeAuto, want: DecodeText, text: `a\u202eb`, noteHas: "1 control"},
		{name: "nul is not text", data: []byte("abc\x00"), with: DecodeAuto, want: DecodeInt32},
		{name: "nul as text", data: []byte("abc\x00def"), with: DecodeText, want: DecodeText, text: `abc\x00def`},
		{name: "escape sequence", data: []byte("\x1b[2J"), with: DecodeText, want: DecodeText, text: `\x1b[2J`},
		{name: "c1 control is not text", data: []byte("ab\u0085cd"), with: DecodeAuto, want: DecodeHex},
		{name: "invalid utf8", data: []byte("a\xffb"), with: DecodeText, want: DecodeText, text: `a\xffb`, noteHas: "invalid UTF-8"},
		{name: "json object", data: []byte(`{"b":1,"a":2}`), with: DecodeAuto, want: DecodeJSON, text: "{\n  \"b\": 1,\n  \"a\": 2\n}"},
		{name: "json array", data: []byte(" [1,2] "), with: DecodeAuto, want: DecodeJSON, text: "[\n  1,\n  2\n]"},
		{name: "json number is text", data: []byte("42"), with: DecodeAuto, want: DecodeText, text: "42"},
		{name: "json string is text", data: []byte(`"x"`), with: DecodeAuto, want: DecodeText},
		{name: "explicit json scalar", data: []byte(`42`), with: DecodeJSON, want: DecodeJSON, text: "42"},
		{name: "brace but not json", data: []byte("{not json}"), with: DecodeAuto, want: DecodeText},
		{name: "explicit json invalid", data: []byte("{not json}"), with: DecodeJSON, want: DecodeHex, noteHas: "not JSON"},
		{name: "json with invalid utf8", data: []byte("{\"a\":\"\xff\"}"), with: DecodeAuto, want: DecodeHex},
		{name: "explicit json with invalid utf8", data: []byte("{\"a\":\"\xff\"}"), with: DecodeJSON, want: DecodeJSON, textHas: `\xff`, noteHas: "invalid UTF-8"},
		{name: "json with bidi", data: []byte("[\"\u202e\"]"), with: DecodeAuto, want: DecodeJSON, textHas: `\u202e`},
		{name: "int32", data: be32(42), with: DecodeAuto, want: DecodeInt32, text: "42", noteHas: "0x0000002a"},
		{name: "int32 negative", data: be32(-2147483648), with: DecodeAuto, want: DecodeInt32, text: "-2147483648"},
		{name: "int32 that is text", data: []byte("ABCD"), with: DecodeAuto, want: DecodeText, text: "ABCD"},
		{name: "explicit int32 of text", data: []byte("ABCD"), with: DecodeInt32, want: DecodeInt32, text: "1094861636"},
		{name: "explicit int32 wrong size", data: []byte{0, 0, 1}, with: DecodeInt32, want: DecodeHex, noteHas: "want exactly 4"},
		{name: "int64", data: be64(1 << 40), with: DecodeAuto, want: DecodeInt64, text: "1099511627776"},
		{name: "int64 min", data: be64(-1 << 63), with: DecodeAuto, want: DecodeInt64, text: "-9223372036854775808"},
		{name: "explicit int64 wrong size", data: be32(1), with: DecodeInt64, want: DecodeHex, noteHas: "want exactly 8"},
		{name: "5 binary bytes", data: []byte{0, 0, 0, 0, 1}, with: DecodeAuto, want: DecodeHex},
		{name: "explicit hex of text", data: []byte("hi"), with: DecodeHex, want: DecodeHex, text: "00000000: 6869                                     hi"},
		{name: "gzip json", data: gzipBytes(t, []byte(`{"a":1}`)), with: DecodeAuto, want: DecodeGzip, text: "{\n  \"a\": 1\n}", noteHas: "json"},
		{name: "gzip empty", data: gzipBytes(t, nil), with: DecodeAuto, want: DecodeGzip, text: "", noteHas: "empty"},
		{name: "gzip magic only", data: []byte{0x1f, 0x8b, 0x08}, with: DecodeAuto, want: DecodeHex, noteHas: "corrupt gzip"},
		{name: "explicit gzip not gzip", data: []byte("plain"), with: DecodeGzip, want: DecodeHex, noteHas: "not gzip"},
		{name: "curator queue", data: curatorItems([]byte("a"), []byte(`{"x":1}`)), with: DecodeAuto, want: DecodeCuratorQueue, noteHas: "2 items",
			text: "item 1: text, 1 bytes\n  a\nitem 2: json, 7 bytes\n  {\n    \"x\": 1\n  }"},
		{name: "curator queue of gzip", data: curatorItems(gzipBytes(t, []byte("zipped"))), with: DecodeAuto, want: DecodeCuratorQueue, textHas: "\n  zipped"},
		{name: "curator queue bad opcode", data: []byte{0, 1, 0, 1, 3}, with: DecodeCuratorQueue, want: DecodeHex, noteHas: "opcode 0x03"},
		{name: "curator queue negative size", data: []byte{0, 1, 0, 1, 1, 0xff, 0xff, 0xff, 0xff, 2}, with: DecodeCuratorQueue, want: DecodeHex, noteHas: "length -1"},
		{name: "curator queue no end", data: []byte{0, 1, 0, 1}, with: DecodeCuratorQueue, want: DecodeHex, noteHas: "no end marker"},
		{name: "unknown decoder", data: []byte("x"), with: Decoder("yaml"), want: DecodeText, noteHas: `unknown decoder "yaml"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Decode(c.data, c.with)
			if got.Decoder != c.want {
				t.Fatalf("decoder %q, want %q (text %q, note %q)", got.Decoder, c.want, got.Text, got.Note)
			}
			if c.text != "" && got.Text != c.text {
				t.Errorf("text %q, want %q", got.Text, c.text)
			}
			if c.textHas != "" && !strings.Contains(got.Text, c.textHas) {
				t.Errorf("text %q, want it to hold %q", got.Text, c.textHas)
			}
			if c.noteHas != "" && !strings.Contains(got.Note, c.noteHas) {
				t.Errorf("note %q, want it to hold %q", got.Note, c.noteHas)
			}
			if c.noteNone && got.Note != "" {
				t.Errorf("note %q, want none", got.Note)
			}
			checkShowable(t, "Text", got.Text, true)
			checkShowable(t, "Note", got.Note, false)
		})
	}
}

// TestDecodeNesting: a gzip inside a gzip inside… stops being inflated at
// the depth limit; a Curator item set nested in its own items stops too.
func TestDecodeNesting(t *testing.T) {
	data := []byte("core")
	for range decodeMaxDepth + 2 {
		data = gzipBytes(t, data)
	}
	got := Decode(data, DecodeAuto)
	if got.Decoder != DecodeGzip || !strings.Contains(got.Text, "00000000: 1f8b") || !strings.Contains(got.Note, "hex") {
		t.Errorf("deep gzip: %s", formatDecoded(got))
	}

	q := []byte("core")
	for range 1000 {
		q = curatorItems(q)
	}
	got = Decode(q, DecodeAuto)
	if got.Decoder != DecodeCuratorQueue || strings.Count(got.Text, "item 1:") != decodeMaxDepth {
		t.Errorf("deep queue: %d item headers, want %d", strings.Count(got.Text, "item 1:"), decodeMaxDepth)
	}
	if s := Summary(q, 40); s == "" {
		t.Error("deep queue: empty summary")
	}
}

// TestDecodeLarge: 1 MiB values decode to bounded text that says what it
// left out.
func TestDecodeLarge(t *testing.T) {
	const mib = 1 << 20
	rnd := rand.New(rand.NewSource(1))
	junk := make([]byte, mib)
	rnd.Read(junk)
	text := bytes.Repeat([]byte("0123456789abcdef\n"), mib/17+1)[:mib]
	var js bytes.Buffer
	js.WriteString(`{"items":[`)
	for i := 0; js.Len() < mib; i++ {
		if i > 0 {
			js.WriteByte(',')
		}
		js.WriteString(`{"id":12345,"name":"item"}`)
	}
	js.WriteString(`]}`)
	manyItems := make([][]byte, 200000)
	for i := range manyItems {
		manyItems[i] = []byte{}
	}
	bomb := gzipBytes(t, make([]byte, decodeMaxGunzip+mib)) // 17 MiB of zeros, ~17 KiB zipped

	cases := []struct {
		name    string
		data    []byte
		with    Decoder
		want    Decoder
		textHas string
		noteHas string
	}{
		{"junk auto", junk, DecodeAuto, DecodeHex, "… 983040 more bytes", "first 65536 of 1048576"},
		{"junk as text", junk, DecodeText, DecodeText, "more bytes", "invalid UTF-8"},
		{"junk as json", junk, DecodeJSON, DecodeHex, "… 983040 more bytes", "not JSON"},
		{"text", text, DecodeAuto, DecodeText, "more bytes", "cut at 256 KiB"},
		{"json", js.Bytes(), DecodeAuto, DecodeJSON, "more bytes", "pretty-printed JSON cut"},
		{"queue of 200000 items", curatorItems(manyItems...), DecodeAuto, DecodeCuratorQueue, "more items", "200000 items"},
		{"gzip bomb", bomb, DecodeAuto, DecodeGzip, "more bytes", "more than 16 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Decode(c.data, c.with)
			if got.Decoder != c.want {
				t.Fatalf("decoder %q, want %q (note %q)", got.Decoder, c.want, got.Note)
			}
			if len(got.Text) > decodeMaxText+decodeMaxText/2 {
				t.Errorf("text is %d bytes, want it bounded near %d", len(got.Text), decodeMaxText)
			}
			if !strings.Contains(got.Text[max(0, len(got.Text)-64):], c.textHas) {
				t.Errorf("text ends %q, want %q", got.Text[max(0, len(got.Text)-64):], c.textHas)
			}
			if !strings.Contains(got.Note, c.noteHas) {
				t.Errorf("note %q, want it to hold %q", got.Note, c.noteHas)
			}
			checkShowable(t, "Text", got.Text, true)
			if s := Summary(c.data, 60); utf8.RuneCountInString(s) > 60 || strings.Contains(s, "\n") {
				t.Errorf("summary %q: longer than 60 runes or several lines", s)
			}
		})
	}
}

// TestHexDumpMatchesXxd compares the hex dump with xxd's, when xxd is here.
func TestHexDumpMatchesXxd(t *testing.T) {
	xxd, err := exec.LookPath("xxd")
	if err != nil {
		t.Skip("xxd not installed; the goldens pin the format")
	}
	for _, name := range []string{"binary-junk.bin", "curator-queue-multi.bin", "text-controls.bin", "shared-count-42.bin"} {
		data := readDecodeFixture(t, name)
		out, err := exec.Command(xxd, filepath.Join(decodeFixtures, name)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := xxdDump(data, 0), strings.TrimSuffix(string(out), "\n"); got != want {
			t.Errorf("%s:\n%s\nxxd:\n%s", name, got, want)
		}
	}
}

func TestDecoders(t *testing.T) {
	ds := Decoders()
	if ds[0] != DecodeAuto || len(ds) != 8 {
		t.Fatalf("Decoders() = %v", ds)
	}
	ds[0] = "mutated"
	if Decoders()[0] != DecodeAuto {
		t.Error("Decoders returns a shared slice")
	}
	for _, d := range Decoders() {
		got, err := ParseDecoder(" " + strings.ToUpper(string(d)) + " ")
		if err != nil || got != d {
			t.Errorf("ParseDecoder(%q) = %q, %v", d, got, err)
		}
		// Every decoder copes with every kind of data.
		for _, data := range [][]byte{nil, {}, []byte("x"), {0xff}, []byte("{}"), make([]byte, 4), make([]byte, 8)} {
			checkShowable(t, string(d), Decode(data, d).Text, true)
		}
	}
	if got, err := ParseDecoder(""); err != nil || got != DecodeAuto {
		t.Errorf(`ParseDecoder("") = %q, %v`, got, err)
	}
	if _, err := ParseDecoder("yaml"); err == nil || !strings.Contains(err.Error(), "curator-queue") {
		t.Errorf(`ParseDecoder("yaml") error %v, want one listing the decoders`, err)
	}
}

// BenchmarkDecode1MiB measures Decode and Summary on 1 MiB values:
//
//	go test ./zkview -run '^$' -bench Decode1MiB
func BenchmarkDecode1MiB(b *testing.B) {
	const mib = 1 << 20
	junk := make([]byte, mib)
	rand.New(rand.NewSource(1)).Read(junk)
	var js bytes.Buffer
	js.WriteString(`[`)
	for js.Len() < mib {
		js.WriteString(`{"id":12345,"name":"item"},`)
	}
	js.WriteString(`{}]`)
	values := []struct {
		name string
		data []byte
	}{
		{"binary", junk},
		{"text", bytes.Repeat([]byte("0123456789abcdef\n"), mib/17)},
		{"json", js.Bytes()},
		{"gzip", gzipBytes(b, js.Bytes())},
	}
	for _, v := range values {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(v.data)))
			for b.Loop() {
				Decode(v.data, DecodeAuto)
				Summary(v.data, 80)
			}
		})
	}
}
