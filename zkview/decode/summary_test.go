package decode

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSummary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		data []byte
		max  int
		want string
	}{
		{"nil", nil, 20, ""},
		{"empty", []byte{}, 20, ""},
		{"ip", []byte("10.0.0.5"), 20, "10.0.0.5"},
		{"newlines escaped", []byte("a\nb\tc\r\n"), 20, `a\nb\tc\r\n`},
		{"non-printing escaped", []byte("x\u200by\u202e"), 40, `x\u200by\u202e`},
		{"control is binary", []byte("x\x1b[31my"), 40, "<7 bytes binary>"},
		{"binary clipped", []byte("x\x1b[31my"), 4, "<7 …"},
		{"clipped", []byte("abcdefghij"), 5, "abcd…"},
		{"clipped runes", []byte("日本語のテキスト"), 4, "日本語…"},
		{"exact fit", []byte("abcde"), 5, "abcde"},
		{"default width", bytes.Repeat([]byte("x"), 100), 0, strings.Repeat("x", 79) + "…"},
		{"json compacted", []byte("{\n  \"a\": 1,\n  \"b\": [1, 2]\n}\n"), 40, `{"a":1,"b":[1,2]}`},
		{"broken json as text", []byte("{\n\"a\""), 40, `{\n"a"`},
		{"int32", []byte{0, 0, 0, 42}, 20, "42"},
		{"int64", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 20, "-2"},
		{"binary", []byte{0, 1, 2, 3, 4}, 20, "<5 bytes binary>"},
		{"invalid utf8 binary", []byte("ab\xffcd"), 20, "<5 bytes binary>"},
		{"gzip", gzipBytes(t, []byte("{ \"zipped\": true }")), 40, `gzip: {"zipped":true}`},
		{"corrupt gzip", []byte{0x1f, 0x8b, 0x08, 0, 0}, 40, "<5 bytes binary>"},
		{"queue of one", curatorItems([]byte("order-1")), 40, "order-1"},
		{"queue of three", curatorItems([]byte("a"), nil, []byte{0, 0, 0, 7}), 40, `[3 items] a | "" | 7`},
		{"queue of none", curatorItems(), 40, "[0 items]"},
		{"queue clipped", curatorItems(bytes.Repeat([]byte("y"), 50), []byte("z")), 20, "[2 items] yyyyyyyyy…"},
		{"1 MiB text", bytes.Repeat([]byte("ab"), 1<<19), 6, "ababa…"},
		{"1 MiB binary", make([]byte, 1<<20), 30, "<1048576 bytes binary>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Summary(c.data, c.max)
			if got != c.want {
				t.Errorf("Summary = %q, want %q", got, c.want)
			}
			width := c.max
			if width < 1 {
				width = summaryDefaultWidth
			}
			if n := utf8.RuneCountInString(got); n > width {
				t.Errorf("%d runes, more than %d", n, width)
			}
			checkShowable(t, "Summary", got, false)
		})
	}
}

func TestSummaryFixtures(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"curator-queue-one.bin":         "order-1001",
		"curator-queue-multi.bin":       `[5 items] hello, queue | {"order":42,"lines":["a","b"]} | "" | gzip: {"compressed":true} | <9 bytes binary>`,
		"shared-count-42.bin":           "42",
		"shared-count-neg7.bin":         "-7",
		"atomic-long-1234567890123.bin": "1234567890123",
		"atomic-long-neg1.bin":          "-1",
		"gzip-in-gzip.gz":               `gzip: gzip: {"depth":2}`,
		"text-crlf.txt":                 `line one\r\nline two\r\nlone\rcarriage\r\n`,
	}
	for file, want := range cases {
		if got := Summary(readDecodeFixture(t, file), 200); got != want {
			t.Errorf("Summary(%s) = %q, want %q", file, got, want)
		}
	}
}
