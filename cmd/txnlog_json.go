package cmd

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// txnlog -o json writes its lines by hand rather than through
// encoding/json: a log holds millions of transactions, and reflection
// per field was most of the time. The fields and their order are those
// of txnJSON in txnlog_ref_test.go, encoding/json's rendering, which the
// tests compare every line with.

// jsonWriter appends transactions as JSON objects.
type jsonWriter struct {
	// sec and secText cache the time's text to the second.
	sec     int64
	secText []byte
}

// appendTxn appends one transaction's line, newline included.
func (jw *jsonWriter) appendTxn(b []byte, t *forensics.Transaction, file string) []byte {
	b = append(b, `{"zxid":"0x`...)
	b = strconv.AppendUint(b, uint64(t.Zxid), 16)
	b = append(b, `","time":"`...)
	b = jw.appendTime(b, t.Time)
	b = append(b, `","session":"0x`...)
	b = strconv.AppendUint(b, uint64(t.Session), 16)
	b = append(b, `","cxid":`...)
	b = strconv.AppendInt(b, int64(t.Cxid), 10)
	b = jw.appendOp(append(b, ','), t)
	if t.Digest != nil {
		b = append(b, `,"digest":"0x`...)
		b = strconv.AppendUint(b, uint64(t.Digest.TreeDigest), 16)
		b = append(b, '"')
	}
	if file != "" {
		b = appendJSONString(append(b, `,"file":`...), file)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, t.Offset, 10)
	}
	return append(b, "}\n"...)
}

// appendOp appends a transaction's own fields (a multi's operation has
// only these), without braces, starting with "type".
func (jw *jsonWriter) appendOp(b []byte, t *forensics.Transaction) []byte {
	b = appendJSONString(append(b, `"type":`...), t.Type)
	if t.Path != "" {
		b = appendJSONString(append(b, `,"path":`...), t.Path)
	}
	switch t.Type {
	case "create", "create2", "createTtl", "createContainer":
		b = appendJSONString(append(b, `,"node_kind":`...), t.NodeKind)
		if t.TTLMs != 0 {
			b = strconv.AppendInt(append(b, `,"ttl_ms":`...), t.TTLMs, 10)
		}
		b = appendDataJSON(b, t)
		b = appendACLJSON(b, t.ACL)
		b = strconv.AppendInt(append(b, `,"parent_cversion":`...), int64(t.ParentCVersion), 10)
	case "setData", "reconfig":
		b = appendDataJSON(b, t)
		b = strconv.AppendInt(append(b, `,"version":`...), int64(t.Version), 10)
	case "setACL":
		b = appendACLJSON(b, t.ACL)
		b = strconv.AppendInt(append(b, `,"version":`...), int64(t.Version), 10)
	case "check":
		b = strconv.AppendInt(append(b, `,"version":`...), int64(t.Version), 10)
	case "createSession":
		if t.TimeoutMs != 0 {
			b = strconv.AppendInt(append(b, `,"timeout_ms":`...), int64(t.TimeoutMs), 10)
		}
	case "closeSession":
		if t.RemovedKnown {
			b = append(b, `,"removed":[`...)
			for i, p := range t.Removed {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, p)
			}
			b = append(b, ']')
		}
		by := "client"
		if t.ByServer {
			by = "server"
		}
		b = appendJSONString(append(b, `,"closed_by":`...), by)
	case "error":
		b = appendErrJSON(b, t.Err)
	case "multi":
		if t.Failed {
			b = appendErrJSON(b, t.FailedErr)
		}
		b = append(b, `,"ops":[`...)
		for i := range t.Ops {
			if i > 0 {
				b = append(b, ',')
			}
			b = jw.appendOp(append(b, '{'), &t.Ops[i])
			b = append(b, '}')
		}
		b = append(b, ']')
		if t.Failed {
			b = append(b, `,"failed":true`...)
		}
	}
	return b
}

func appendErrJSON(b []byte, code jute.Code) []byte {
	b = appendJSONString(append(b, `,"error":`...), code.String())
	return strconv.AppendInt(append(b, `,"error_code":`...), int64(code), 10)
}

func appendACLJSON(b []byte, acl []jute.ACL) []byte {
	if openACL(acl) {
		return append(b, `,"acl":["world:anyone:cdrwa"]`...)
	}
	b = append(b, `,"acl":[`...)
	for i, a := range acl {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, juteACLText([]jute.ACL{a}))
	}
	return append(b, ']')
}

// appendDataJSON appends data and decoder as zkx get shows them.
func appendDataJSON(b []byte, t *forensics.Transaction) []byte {
	text, decoder := dataText(t)
	b = appendJSONString(append(b, `,"data":`...), text)
	return appendJSONString(append(b, `,"decoder":`...), decoder)
}

// dataText is dataJSON without the pointer: the text and the decoder,
// the short printable ASCII most data is taken as text at once (what
// decode.DataAt makes of it).
func dataText(t *forensics.Transaction) (string, string) {
	if t.HasData && len(t.Data) > 0 && len(t.Data) <= 4096 && plainText(t.Data) {
		return string(t.Data), "text"
	}
	text, decoder := dataJSON(t)
	return *text, decoder
}

// plainText reports whether data is printable ASCII that does not start
// like JSON (which decode's Auto would parse).
func plainText(data []byte) bool {
	first := true
	for _, c := range data {
		if c < 0x20 || c > 0x7e {
			return false
		}
		if first && c != ' ' {
			if c == '{' || c == '[' {
				return false
			}
			first = false
		}
	}
	return true
}

// appendTime appends RFC 3339 in UTC with milliseconds.
func (jw *jsonWriter) appendTime(b []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	if ms < 0 {
		return t.UTC().AppendFormat(b, statMillisFormat)
	}
	if sec := ms / 1000; sec != jw.sec || jw.secText == nil {
		jw.sec, jw.secText = sec, time.Unix(sec, 0).UTC().AppendFormat(jw.secText[:0], "2006-01-02T15:04:05.")
	}
	b = append(b, jw.secText...)
	frac := ms % 1000
	return append(b, byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10), 'Z')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, as encoding/json writes it
// without HTML escaping: control characters, quotes and backslashes
// escaped, U+2028 and U+2029 too, invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
