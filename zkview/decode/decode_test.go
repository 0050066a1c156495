package decode

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

	"github.com/zkx-dev/zkx/internal/curatoritems"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from Data's output")

const decodeFixtures = "testdata"

func readDecodeFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(decodeFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// formatDecoded is the golden form of a Result.
func formatDecoded(d Result) string {
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
// it and compares with the goldens (go test -run DecodeFixtures -update
// rewrites them).
func TestDecodeFixtures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file string
		with Decoder
		want Decoder
	}{
		{"text-hello.txt", Auto, Text},
		{"text-ip.txt", Auto, Text},
		{"text-crlf.txt", Auto, Text},
		{"text-controls.bin", Auto, Hex},
		{"text-controls.bin", Text, Text},
		{"text-invalid-utf8.bin", Auto, Hex},
		{"text-invalid-utf8.bin", Text, Text},
		{"text-abcd.txt", Auto, Text},
		{"text-abcd.txt", Int32, Int32},
		{"json-object.json", Auto, JSON},
		{"json-object.json", Text, Text},
		{"json-array.json", Auto, JSON},
		{"json-scalar.txt", Auto, Text},
		{"json-scalar.txt", JSON, JSON},
		{"json-broken.json", Auto, Text},
		{"json-broken.json", JSON, Hex},
		{"gzip-json.gz", Auto, Gzip},
		{"gzip-json.gz", Hex, Hex},
		{"gzip-text.gz", Auto, Gzip},
		{"gzip-binary.gz", Auto, Gzip},
		{"gzip-in-gzip.gz", Auto, Gzip},
		{"gzip-truncated.gz", Auto, Hex},
		{"gzip-badcrc.gz", Auto, Hex},
		{"gzip-garbage.gz", Gzip, Hex},
		{"text-hello.txt", Gzip, Hex},
		{"binary-junk.bin", Auto, Hex},
		{"binary-junk.bin", Text, Text},
		{"binary-junk.bin", JSON, Hex},
		{"binary-junk.bin", CuratorQueue, Hex},
		{"shared-count-42.bin", Auto, Int32},
		{"shared-count-neg7.bin", Auto, Int32},
		{"shared-count-42.bin", Int64, Hex},
		{"atomic-long-1234567890123.bin", Auto, Int64},
		{"atomic-long-neg1.bin", Auto, Int64},
		{"atomic-long-neg1.bin", Int32, Hex},
		{"curator-queue-one.bin", Auto, CuratorQueue},
		{"curator-queue-multi.bin", Auto, CuratorQueue},
		{"curator-queue-empty.bin", Auto, CuratorQueue},
		{"curator-queue-trailing.bin", Auto, Hex},
		{"curator-queue-trailing.bin", CuratorQueue, CuratorQueue},
		{"curator-queue-truncated.bin", Auto, Hex},
		{"curator-queue-truncated.bin", CuratorQueue, Hex},
		{"curator-queue-badversion.bin", CuratorQueue, Hex},
		{"empty.bin", Auto, Empty},
		{"empty.bin", Int64, Empty},
	}
	for _, c := range cases {
		name := strings.TrimSuffix(c.file, filepath.Ext(c.file)) + "." + string(c.with)
		t.Run(name, func(t *testing.T) {
			got := Data(readDecodeFixture(t, c.file), c.with)
			if got.Decoder != c.want {
				t.Errorf("decoder %q, want %q (note %q)", got.Decoder, c.want, got.Note)
			}
			checkShowable(t, "Text", got.Text, true)
			checkShowable(t, "Note", got.Note, false)
			golden := filepath.Join(decodeFixtures, name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(formatDecoded(got)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if g := formatDecoded(got); g != string(want) {
				t.Errorf("Data(%s, %s) differs from %s:\n%s\nwant:\n%s", c.file, c.with, golden, g, want)
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
func curatorItems(items ...[]byte) []byte { return curatoritems.Encode(items) }

// TestDecodeAuto pins Auto's choices, and what Data does with each
// decoder asked for explicitly.
func TestDecodeAuto(t *testing.T) {
	t.Parallel()
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
		{name: "nil", data: nil, with: Auto, want: Null, text: "", noteHas: "null"},
		{name: "empty", data: []byte{}, with: Auto, want: Empty, text: "", noteHas: "0 bytes"},
		{name: "nil as json", data: nil, with: JSON, want: Null},
		{name: "empty as int64", data: []byte{}, with: Int64, want: Empty, noteHas: "reads no data as 0"},
		{name: "ascii", data: []byte("10.0.0.5"), with: Auto, want: Text, text: "10.0.0.5", noteNone: true},
		{name: "multi-line", data: []byte("a=1\n\tb=2\n"), with: Auto, want: Text, text: "a=1\n\tb=2\n"},
		{name: "crlf", data: []byte("a\r\nb"), with: Auto, want: Text, text: "a\nb", noteHas: "CRLF"},
		{name: "lone cr", data: []byte("a\rb"), with: Text, want: Text, text: `a\rb`},
		{name: "utf8", data: []byte("zürich 日本"), with: Auto, want: Text, text: "zürich 日本"},
		{name: "bidi override escaped", data: []byte("a\u202eb"), with: Auto, want: Text, text: `a\u202eb`, noteHas: "1 control"},
		{name: "nul is not text", data: []byte("abc\x00"), with: Auto, want: Int32},
		{name: "nul as text", data: []byte("abc\x00def"), with: Text, want: Text, text: `abc\x00def`},
		{name: "escape sequence", data: []byte("\x1b[2J"), with: Text, want: Text, text: `\x1b[2J`},
		{name: "c1 control is not text", data: []byte("ab\u0085cd"), with: Auto, want: Hex},
		{name: "invalid utf8", data: []byte("a\xffb"), with: Text, want: Text, text: `a\xffb`, noteHas: "invalid UTF-8"},
		{name: "json object", data: []byte(`{"b":1,"a":2}`), with: Auto, want: JSON, text: "{\n  \"b\": 1,\n  \"a\": 2\n}"},
		{name: "json array", data: []byte(" [1,2] "), with: Auto, want: JSON, text: "[\n  1,\n  2\n]"},
		{name: "json number is text", data: []byte("42"), with: Auto, want: Text, text: "42"},
		{name: "json string is text", data: []byte(`"x"`), with: Auto, want: Text},
		{name: "explicit json scalar", data: []byte(`42`), with: JSON, want: JSON, text: "42"},
		{name: "brace but not json", data: []byte("{not json}"), with: Auto, want: Text},
		{name: "explicit json invalid", data: []byte("{not json}"), with: JSON, want: Hex, noteHas: "not JSON"},
		{name: "json with invalid utf8", data: []byte("{\"a\":\"\xff\"}"), with: Auto, want: Hex},
		{name: "explicit json with invalid utf8", data: []byte("{\"a\":\"\xff\"}"), with: JSON, want: JSON, textHas: `\xff`, noteHas: "invalid UTF-8"},
		{name: "json with bidi", data: []byte("[\"\u202e\"]"), with: Auto, want: JSON, textHas: `\u202e`},
		{name: "int32", data: be32(42), with: Auto, want: Int32, text: "42", noteHas: "0x0000002a"},
		{name: "int32 negative", data: be32(-2147483648), with: Auto, want: Int32, text: "-2147483648"},
		{name: "int32 that is text", data: []byte("ABCD"), with: Auto, want: Text, text: "ABCD"},
		{name: "explicit int32 of text", data: []byte("ABCD"), with: Int32, want: Int32, text: "1094861636"},
		{name: "explicit int32 wrong size", data: []byte{0, 0, 1}, with: Int32, want: Hex, noteHas: "want exactly 4"},
		{name: "int64", data: be64(1 << 40), with: Auto, want: Int64, text: "1099511627776"},
		{name: "int64 min", data: be64(-1 << 63), with: Auto, want: Int64, text: "-9223372036854775808"},
		{name: "explicit int64 wrong size", data: be32(1), with: Int64, want: Hex, noteHas: "want exactly 8"},
		{name: "5 binary bytes", data: []byte{0, 0, 0, 0, 1}, with: Auto, want: Hex},
		{name: "explicit hex of text", data: []byte("hi"), with: Hex, want: Hex, text: "00000000: 6869                                     hi"},
		{name: "gzip json", data: gzipBytes(t, []byte(`{"a":1}`)), with: Auto, want: Gzip, text: "{\n  \"a\": 1\n}", noteHas: "json"},
		{name: "gzip empty", data: gzipBytes(t, nil), with: Auto, want: Gzip, text: "", noteHas: "empty"},
		{name: "gzip magic only", data: []byte{0x1f, 0x8b, 0x08}, with: Auto, want: Hex, noteHas: "corrupt gzip"},
		{name: "explicit gzip not gzip", data: []byte("plain"), with: Gzip, want: Hex, noteHas: "not gzip"},
		{name: "curator queue", data: curatorItems([]byte("a"), []byte(`{"x":1}`)), with: Auto, want: CuratorQueue, noteHas: "2 items",
			text: "item 1: text, 1 bytes\n  a\nitem 2: json, 7 bytes\n  {\n    \"x\": 1\n  }"},
		{name: "curator queue of gzip", data: curatorItems(gzipBytes(t, []byte("zipped"))), with: Auto, want: CuratorQueue, textHas: "\n  zipped"},
		{name: "curator queue bad opcode", data: []byte{0, 1, 0, 1, 3}, with: CuratorQueue, want: Hex, noteHas: "opcode 0x03"},
		{name: "curator queue negative size", data: []byte{0, 1, 0, 1, 1, 0xff, 0xff, 0xff, 0xff, 2}, with: CuratorQueue, want: Hex, noteHas: "length -1"},
		{name: "curator queue no end", data: []byte{0, 1, 0, 1}, with: CuratorQueue, want: Hex, noteHas: "no end marker"},
		{name: "unknown decoder", data: []byte("x"), with: Decoder("yaml"), want: Text, noteHas: `unknown decoder "yaml"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Data(c.data, c.with)
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
	t.Parallel()
	data := []byte("core")
	for range maxDepth + 2 {
		data = gzipBytes(t, data)
	}
	got := Data(data, Auto)
	if got.Decoder != Gzip || !strings.Contains(got.Text, "00000000: 1f8b") || !strings.Contains(got.Note, "hex") {
		t.Errorf("deep gzip: %s", formatDecoded(got))
	}

	q := []byte("core")
	for range 1000 {
		q = curatorItems(q)
	}
	got = Data(q, Auto)
	if got.Decoder != CuratorQueue || strings.Count(got.Text, "item 1:") != maxDepth {
		t.Errorf("deep queue: %d item headers, want %d", strings.Count(got.Text, "item 1:"), maxDepth)
	}
	if s := Summary(q, 40); s == "" {
		t.Error("deep queue: empty summary")
	}
}

// TestDecodeLarge: 1 MiB values decode to bounded text that says what it
// left out.
func TestDecodeLarge(t *testing.T) {
	t.Parallel()
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
	bomb := gzipBytes(t, make([]byte, maxGunzip+mib)) // 17 MiB of zeros, ~17 KiB zipped

	cases := []struct {
		name    string
		data    []byte
		with    Decoder
		want    Decoder
		textHas string
		noteHas string
	}{
		{"junk auto", junk, Auto, Hex, "… 983040 more bytes", "first 65536 of 1048576"},
		{"junk as text", junk, Text, Text, "more bytes", "invalid UTF-8"},
		{"junk as json", junk, JSON, Hex, "… 983040 more bytes", "not JSON"},
		{"text", text, Auto, Text, "more bytes", "cut at 256 KiB"},
		{"json", js.Bytes(), Auto, JSON, "more bytes", "pretty-printed JSON cut"},
		{"queue of 200000 items", curatorItems(manyItems...), Auto, CuratorQueue, "more items", "200000 items"},
		{"gzip bomb", bomb, Auto, Gzip, "more bytes", "more than 16 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Data(c.data, c.with)
			if got.Decoder != c.want {
				t.Fatalf("decoder %q, want %q (note %q)", got.Decoder, c.want, got.Note)
			}
			if len(got.Text) > maxText+maxText/2 {
				t.Errorf("text is %d bytes, want it bounded near %d", len(got.Text), maxText)
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
	t.Parallel()
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
	t.Parallel()
	ds := Choices()
	if ds[0] != Auto || len(ds) != 10 {
		t.Fatalf("Choices() = %v", ds)
	}
	ds[0] = "mutated"
	if Choices()[0] != Auto {
		t.Error("Decoders returns a shared slice")
	}
	for _, d := range Choices() {
		got, err := Parse(" " + strings.ToUpper(string(d)) + " ")
		if err != nil || got != d {
			t.Errorf("Parse(%q) = %q, %v", d, got, err)
		}
		// Every decoder copes with every kind of data.
		for _, data := range [][]byte{nil, {}, []byte("x"), {0xff}, []byte("{}"), make([]byte, 4), make([]byte, 8)} {
			checkShowable(t, string(d), Data(data, d).Text, true)
		}
	}
	if got, err := Parse(""); err != nil || got != Auto {
		t.Errorf(`Parse("") = %q, %v`, got, err)
	}
	if _, err := Parse("yaml"); err == nil || !strings.Contains(err.Error(), "curator-queue") {
		t.Errorf(`Parse("yaml") error %v, want one listing the decoders`, err)
	}
}

// BenchmarkDecode1MiB measures Data and Summary on 1 MiB values:
//
//	go test ./zkview/decode -run '^$' -bench Decode1MiB
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
				Data(v.data, Auto)
				Summary(v.data, 80)
			}
		})
	}
}
