package auditlog

import (
	"bytes"
	"strconv"
	"time"
)

// loggerName is in every line a layout with the logger's name (%c, %C)
// writes: a line that names it and does not parse is a broken event.
var loggerName = []byte("Slf4jAuditLogger")

// The fields of an event, in the order AuditEvent writes them
// (ZKAuditProvider.createLogEvent), result last.
const (
	fieldSession = iota
	fieldUser
	fieldIP
	fieldOperation
	fieldZnode
	fieldZnodeType
	fieldACL
	fieldResult
	fieldCount
)

var fieldKeys = [fieldCount]string{"session", "user", "ip", "operation", "znode", "znode_type", "acl", "result"}

// fieldOf returns the field a key names, -1 for none.
func fieldOf(key []byte) int {
	for i, k := range fieldKeys {
		if string(key) == k {
			return i
		}
	}
	return -1
}

// lineKind is what a line turned out to be.
type lineKind uint8

const (
	kindOther  lineKind = iota // another logger's line, or text that is no event
	kindEvent                  // an audit event
	kindBroken                 // an audit line that does not parse
)

// parser reads lines into events. It keeps the time of the last minute it
// read (a log holds thousands of lines a minute) and one copy of each
// user and address.
type parser struct {
	loc *time.Location

	minute     [16]byte // "2006-01-02 15:04" of the cached minute
	minuteZone string   // its zone as written, "" for loc
	minuteMs   int64
	hasMinute  bool

	interned map[string]string
	// last is the last value of each field interned: a log's lines repeat
	// their neighbours' users, addresses and operations.
	last [fieldCount]string
	skip func(session int64, znode []byte) bool // Options.Skip
}

func newParser(loc *time.Location) *parser {
	if loc == nil {
		loc = time.Local
	}
	return &parser{loc: loc, interned: map[string]string{}}
}

// intern returns b as a string, one copy per distinct value.
func (p *parser) intern(b []byte) string {
	if s, ok := p.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.interned) < 1<<16 {
		p.interned[s] = s
	}
	return s
}

// internField interns a field's value, the field's last value at once.
func (p *parser) internField(f int, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if string(b) == p.last[f] {
		return p.last[f]
	}
	p.last[f] = p.intern(b)
	return p.last[f]
}

// parse reads one line (without its end of line) into e; for a broken
// line, why says what is wrong.
func (p *parser) parse(line []byte, e *Event) (kind lineKind, why string) {
	op := bytes.Index(line, []byte("operation="))
	if op < 0 {
		if bytes.Contains(line, loggerName) {
			return kindBroken, "no operation field"
		}
		return kindOther, ""
	}
	start := op
	if s := bytes.Index(line[:op], []byte("session=")); s >= 0 && fieldStart(line, s) {
		start = s
	} else if u := bytes.Index(line[:op], []byte("user=")); u >= 0 && fieldStart(line, u) {
		start = u
	} else if !fieldStart(line, op) {
		return kindOther, ""
	}
	audit := bytes.Contains(line[:start], loggerName) || bytes.HasPrefix(line[start:], []byte("session=0x"))
	broken := func(w string) (lineKind, string) {
		if audit {
			return kindBroken, w
		}
		return kindOther, ""
	}

	// Each field's value as [from, to) in line; a tab not followed by a
	// field's key is part of the value before it.
	var from, to [fieldCount]int
	var seen [fieldCount]bool
	last := -1
	for i := start; i <= len(line); {
		end := bytes.IndexByte(line[i:], '\t')
		if end < 0 {
			end = len(line)
		} else {
			end += i
		}
		tok := line[i:end]
		f := -1
		if eq := bytes.IndexByte(tok, '='); eq > 0 {
			if f = fieldOf(tok[:eq]); f >= 0 && f > last {
				from[f], to[f], seen[f], last = i+eq+1, end, true, f
			} else {
				f = -1
			}
		}
		if f < 0 {
			if last < 0 || last == fieldResult {
				return broken("text after the result")
			}
			to[last] = end
		}
		i = end + 1
	}
	if !seen[fieldOperation] || from[fieldOperation] == to[fieldOperation] {
		return broken("no operation field")
	}
	if !seen[fieldResult] {
		return broken("no result field (the line is cut short?)")
	}
	result := bytes.TrimRight(line[from[fieldResult]:to[fieldResult]], " \r")
	switch string(result) {
	case ResultSuccess:
		e.Result = ResultSuccess
	case ResultFailure:
		e.Result = ResultFailure
	case ResultInvoked:
		e.Result = ResultInvoked
	default:
		return broken("result " + quoteStart(result) + " is not success, failure or invoked")
	}
	e.Session, e.HasSession = 0, false
	if seen[fieldSession] {
		v := line[from[fieldSession]:to[fieldSession]]
		hex, ok := bytes.CutPrefix(v, []byte("0x"))
		id, err := strconv.ParseUint(string(hex), 16, 64)
		if !ok || err != nil {
			return broken("session " + quoteStart(v) + " is not 0x…")
		}
		e.Session, e.HasSession = int64(id), true
	}
	value := func(f int) []byte {
		if !seen[f] {
			return nil
		}
		return line[from[f]:to[f]]
	}
	e.User = p.internField(fieldUser, value(fieldUser))
	e.IP = p.internField(fieldIP, value(fieldIP))
	e.Operation = p.internField(fieldOperation, value(fieldOperation))
	e.Znode = string(value(fieldZnode))
	e.ZnodeType = p.internField(fieldZnodeType, value(fieldZnodeType))
	e.ACL = string(value(fieldACL))
	e.Time, _ = p.parseTime(line[:start])
	return kindEvent, ""
}

// quickFields finds a client event's session and node without reading
// the line whole: ok when it holds "session=0x…" before "operation=" and
// ends with a result, as an event does (znode is nil when it names none).
func quickFields(line []byte) (session int64, znode []byte, ok bool) {
	op := bytes.Index(line, []byte("operation="))
	if op < 0 {
		return 0, nil, false
	}
	end := bytes.TrimRight(line, " ")
	if !bytes.HasSuffix(end, []byte("\tresult=success")) && !bytes.HasSuffix(end, []byte("\tresult=failure")) && !bytes.HasSuffix(end, []byte("\tresult=invoked")) {
		return 0, nil, false
	}
	s := bytes.Index(line[:op], []byte("session=0x"))
	if s < 0 || !fieldStart(line, s) {
		return 0, nil, false
	}
	hex := line[s+len("session=0x") : op]
	if tab := bytes.IndexByte(hex, '\t'); tab >= 0 {
		hex = hex[:tab]
	}
	if len(hex) == 0 || len(hex) > 16 {
		return 0, nil, false
	}
	var id uint64
	for _, c := range hex {
		switch {
		case c >= '0' && c <= '9':
			id = id<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			id = id<<4 | uint64(c-'a'+10)
		default:
			return 0, nil, false
		}
	}
	if z := bytes.Index(line[op:], []byte("\tznode=")); z >= 0 {
		znode = line[op+z+len("\tznode="):]
		if tab := bytes.IndexByte(znode, '\t'); tab >= 0 {
			znode = znode[:tab]
		}
	}
	return int64(id), znode, true
}

// quoteStart quotes the start of a value for a message.
func quoteStart(v []byte) string {
	if len(v) > 40 {
		return strconv.Quote(string(v[:40])) + "…"
	}
	return strconv.Quote(string(v))
}

// fieldStart reports whether a field's key at i starts a field: at the
// start of the line or after a blank or a layout's separator.
func fieldStart(line []byte, i int) bool {
	if i == 0 {
		return true
	}
	switch line[i-1] {
	case ' ', '\t', ':', '-', ']', '|', '>':
		return true
	}
	return false
}

// parseTime reads the time a line's prefix starts with (after an optional
// "["): "2006-01-02 15:04:05" or with a "T", then a fraction after ",",
// "." or ":" (%d{ISO8601}, slf4j-simple's dateTimeFormat), then an
// optional zone ("Z", "+01:00", "+0100", after a blank or not); without
// one, the time is in the parser's location.
func (p *parser) parseTime(b []byte) (time.Time, bool) {
	if len(b) > 0 && b[0] == '[' {
		b = b[1:]
	}
	if len(b) < 19 || b[16] != ':' {
		return time.Time{}, false
	}
	sec, ok := digits(b[17:19])
	if !ok || sec > 60 {
		return time.Time{}, false
	}
	i := 19
	ms := 0
	if i+1 < len(b) && (b[i] == ',' || b[i] == '.' || b[i] == ':') && isDigit(b[i+1]) {
		i++
		n := 0
		for ; i < len(b) && isDigit(b[i]); i, n = i+1, n+1 {
			if n < 3 {
				ms = ms*10 + int(b[i]-'0')
			}
		}
		for ; n < 3; n++ {
			ms *= 10
		}
	}
	zone, offset, hasZone := zoneAt(b[i:])
	// The minute is read once for all its lines.
	if !p.hasMinute || string(p.minute[:]) != string(b[:16]) || p.minuteZone != string(zone) {
		if b[4] != '-' || b[7] != '-' || (b[10] != ' ' && b[10] != 'T') || b[13] != ':' {
			return time.Time{}, false
		}
		year, ok1 := digits(b[0:4])
		month, ok2 := digits(b[5:7])
		day, ok3 := digits(b[8:10])
		hour, ok4 := digits(b[11:13])
		minute, ok5 := digits(b[14:16])
		if !(ok1 && ok2 && ok3 && ok4 && ok5) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 {
			return time.Time{}, false
		}
		loc := p.loc
		if hasZone {
			loc = time.FixedZone("", offset)
		}
		p.minuteMs = time.Date(year, time.Month(month), day, hour, minute, 0, 0, loc).UnixMilli()
		copy(p.minute[:], b[:16])
		p.minuteZone, p.hasMinute = string(zone), true
	}
	return time.UnixMilli(p.minuteMs + int64(sec)*1000 + int64(ms)), true
}

// zoneAt reads a zone at the start of b, after an optional blank: "Z",
// "+01:00" or "+0100"; zone is its text, "" when there is none.
func zoneAt(b []byte) (zone []byte, offset int, ok bool) {
	s := b
	if len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	if len(s) > 0 && s[0] == 'Z' {
		return s[:1], 0, true
	}
	if len(s) < 5 || (s[0] != '+' && s[0] != '-') {
		return nil, 0, false
	}
	hh, ok1 := digits(s[1:3])
	rest := s[3:]
	if rest[0] == ':' {
		rest = rest[1:]
	}
	if len(rest) < 2 {
		return nil, 0, false
	}
	mm, ok2 := digits(rest[:2])
	if !ok1 || !ok2 || hh > 23 || mm > 59 {
		return nil, 0, false
	}
	offset = (hh*60 + mm) * 60
	if s[0] == '-' {
		offset = -offset
	}
	n := len(s) - len(rest) + 2
	return s[:n], offset, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digits reads a number of ASCII digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(b) > 0
}
