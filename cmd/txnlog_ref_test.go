package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/txnlog"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// txnJSON is one line of zkx txnlog -o json (JSON Lines), and one
// operation of a multi's "ops", as encoding/json writes it: the
// reference the hand-written lines (txnlog_json.go) are checked against.
type txnJSON struct {
	Zxid    string `json:"zxid,omitempty"`
	Time    string `json:"time,omitempty"`
	Session string `json:"session,omitempty"`
	Cxid    *int32 `json:"cxid,omitempty"`
	Type    string `json:"type"`
	Path    string `json:"path,omitempty"`
	// NodeKind is a create's: persistent, ephemeral, container, ttl.
	NodeKind string `json:"node_kind,omitempty"`
	TTLMs    int64  `json:"ttl_ms,omitempty"`
	// Data is a create's or setData's data decoded as zkx get shows it,
	// Decoder the decoder that did it (null or empty for no data).
	Data           *string  `json:"data,omitempty"`
	Decoder        string   `json:"decoder,omitempty"`
	ACL            []string `json:"acl,omitempty"`
	Version        *int32   `json:"version,omitempty"`
	ParentCVersion *int32   `json:"parent_cversion,omitempty"`
	TimeoutMs      int32    `json:"timeout_ms,omitempty"`
	// Removed are the ephemerals a closeSession deleted (absent when the
	// log does not say, [] for none: a pointer, which omitempty keeps
	// when it points at an empty slice); ClosedBy is "server" (expired)
	// or "client".
	Removed   *[]string `json:"removed,omitempty"`
	ClosedBy  string    `json:"closed_by,omitempty"`
	Error     string    `json:"error,omitempty"`
	ErrorCode *int32    `json:"error_code,omitempty"`
	Ops       []txnJSON `json:"ops,omitempty"`
	Failed    bool      `json:"failed,omitempty"`
	Digest    string    `json:"digest,omitempty"`
	File      string    `json:"file,omitempty"`
	Offset    *int64    `json:"offset,omitempty"`
}

func transactionJSON(t *forensics.Transaction, file string) txnJSON {
	j := opJSON(t)
	cxid := t.Cxid
	j.Zxid, j.Time, j.Session, j.Cxid = display.Hex(t.Zxid), t.Time.UTC().Format(statMillisFormat), display.Hex(t.Session), &cxid
	if file != "" {
		off := t.Offset
		j.File, j.Offset = file, &off
	}
	if t.Digest != nil {
		j.Digest = display.Hex(t.Digest.TreeDigest)
	}
	return j
}

// opJSON is a transaction's own fields, as a multi's operation has them.
func opJSON(t *forensics.Transaction) txnJSON {
	j := txnJSON{Type: t.Type, Path: t.Path, TTLMs: t.TTLMs, TimeoutMs: t.TimeoutMs}
	switch t.Type {
	case "create", "create2", "createTtl", "createContainer":
		j.NodeKind = t.NodeKind
		pcv := t.ParentCVersion
		j.ParentCVersion = &pcv
		j.ACL = strings.Split(juteACLText(t.ACL), ",")
		j.Data, j.Decoder = dataJSON(t)
	case "setData", "reconfig":
		v := t.Version
		j.Version = &v
		j.Data, j.Decoder = dataJSON(t)
	case "setACL":
		v := t.Version
		j.Version = &v
		j.ACL = strings.Split(juteACLText(t.ACL), ",")
	case "check":
		v := t.Version
		j.Version = &v
	case "closeSession":
		if t.RemovedKnown {
			removed := append([]string{}, t.Removed...)
			j.Removed = &removed
		}
		j.ClosedBy = "client"
		if t.ByServer {
			j.ClosedBy = "server"
		}
	case "error":
		code := int32(t.Err)
		j.Error, j.ErrorCode = t.Err.String(), &code
	case "multi":
		j.Ops = make([]txnJSON, len(t.Ops))
		for i := range t.Ops {
			j.Ops[i] = opJSON(&t.Ops[i])
		}
		if t.Failed {
			code := int32(t.FailedErr)
			j.Failed, j.Error, j.ErrorCode = true, t.FailedErr.String(), &code
		}
	}
	return j
}

// TestTxnlogJSONLinesAreEncodingJSON writes every transaction of the
// fixtures (and strings of every kind) by hand and through encoding/json:
// the same bytes.
func TestTxnlogJSONLinesAreEncodingJSON(t *testing.T) {
	t.Parallel()
	paths, err := logFiles(pmFixtures, func(err error) { t.Error(err) })
	if err != nil {
		t.Fatal(err)
	}
	logs := txnlog.OpenFiles(paths)
	defer logs.Close()
	var jw jsonWriter
	n := 0
	for {
		e, err := logs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		tx := forensics.Describe(e)
		got := string(jw.appendTxn(nil, &tx, logs.File()))
		if want := encodeJSON(t, transactionJSON(&tx, logs.File())); got != want {
			t.Errorf("zxid 0x%x:\n got %s\nwant %s", e.Header.Zxid, got, want)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("%d transactions", n)
	}
	for _, s := range []string{"", "plain", "quote\" back\\slash", "\x00\x01\x1f\t\n\r", "<&>", "é ü 日本", "\u2028\u2029", "bad \xff\xfe utf8", "\x7f"} {
		got := string(appendJSONString(nil, s))
		if want := strings.TrimSuffix(encodeJSON(t, s), "\n"); got != want {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

func encodeJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
