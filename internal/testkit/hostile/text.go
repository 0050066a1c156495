package hostile

import "strings"

// Sequence is one kind of text a terminal would act on, named for
// failure reports.
type Sequence struct{ Name, Text string }

// Sequences are every kind Text carries.
var Sequences = []Sequence{
	{"hidden text (SGR 8)", "\x1b[8mhidden\x1b[0m"},
	{"clear screen", "\x1b[2J"},
	{"OSC 8 hyperlink", "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"},
	{"OSC 52 clipboard write", "\x1b]52;c;cm0gLXJmIH4=\x07"},
	{"OSC 0 title", "\x1b]0;pwned\x1b\\"},
	{"C1 CSI", "\u009b31m"},
	{"bidi override", "\u202eevil"},
	{"bidi isolates", "\u2066iso\u2069\u2067\u2068"},
	{"zero width", "zero\u200bwidth"},
	{"NUL", "nul\x00"},
	{"BEL", "bel\x07"},
	{"backspace", "bs\x08"},
	{"carriage return", "cr\rover"},
	{"invalid UTF-8", "bad\xff\xfe"},
}

// Text is label followed by every sequence.
func Text(label string) string {
	var b strings.Builder
	b.WriteString(label)
	for _, s := range Sequences {
		b.WriteString(s.Text)
	}
	return b.String()
}

// UTF8 is Text without the bytes that are not UTF-8.
func UTF8(label string) string { return strings.ToValidUTF8(Text(label), "") }

// Name is label followed by what ZooKeeper lets into a node's name and
// go-zookeeper into a request's path: the runes that reorder or hide
// text. (A name with any other control character can be listed, not
// read: the scene has those too, under Listed.)
func Name(label string) string {
	return label + "\u202eevil\u2066iso\u2069zero\u200bwidth"
}

// User is Text without colons, for a digest user name.
func User(label string) string { return strings.ReplaceAll(Text(label), ":", "") }

// Field is UTF8 without tabs and line breaks, for a field of a
// tab-separated log line.
func Field(label string) string {
	return strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(UTF8(label))
}
