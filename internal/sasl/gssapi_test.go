package sasl

import (
	"bytes"
	"errors"
	"testing"

	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/types"
)

func testKey(kind int32, size int) types.EncryptionKey {
	k := types.EncryptionKey{KeyType: kind, KeyValue: make([]byte, size)}
	for i := range k.KeyValue {
		k.KeyValue[i] = byte(i * 7)
	}
	return k
}

// TestWrapAgreesWithGokrb5: our initiator wrap token is, byte for byte,
// what gokrb5's own RFC 4121 code makes, and gokrb5 verifies it; for
// both AES enctypes Java and MIT use.
func TestWrapAgreesWithGokrb5(t *testing.T) {
	t.Parallel()
	for _, key := range []types.EncryptionKey{testKey(etypeID.AES128_CTS_HMAC_SHA1_96, 16), testKey(etypeID.AES256_CTS_HMAC_SHA1_96, 32)} {
		payload := []byte{1, 0, 0, 0}
		ours, err := wrap(key, false, 0, payload)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := gssapi.NewInitiatorWrapToken(payload, key)
		if err != nil {
			t.Fatal(err)
		}
		want, err := theirs.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, want) {
			t.Errorf("enctype %d: ours\n%x\ngokrb5's\n%x", key.KeyType, ours, want)
		}
		var parsed gssapi.WrapToken
		if err := parsed.Unmarshal(ours, false); err != nil {
			t.Fatal(err)
		}
		if ok, err := parsed.Verify(key, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
			t.Errorf("gokrb5 does not verify ours: %v", err)
		}
	}
}

// TestUnwrap: an acceptor's token (made by gokrb5, as the server's would
// be) unwraps; rotated too; a flipped bit, the wrong key and a token from
// our own side are refused.
func TestUnwrap(t *testing.T) {
	t.Parallel()
	key := testKey(etypeID.AES256_CTS_HMAC_SHA1_96, 32)
	payload := []byte{7, 0, 0x10, 0}
	acceptor := &gssapi.WrapToken{Flags: wrapFlagSentByAcceptor | wrapFlagAcceptorSubkey, EC: 12, RRC: 0, SndSeqNum: 42, Payload: payload}
	if err := acceptor.SetCheckSum(key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		t.Fatal(err)
	}
	tok, err := acceptor.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := unwrap(key, tok, true)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("unwrap: %x %v", got, err)
	}
	// The same token rotated right by 4 (RRC), as a sender may send it.
	body := tok[16:]
	rotated := append(append([]byte{}, tok[:16]...), append(append([]byte{}, body[len(body)-4:]...), body[:len(body)-4]...)...)
	rotated[7] = 4
	if got, err := unwrap(key, rotated, true); err != nil || !bytes.Equal(got, payload) {
		t.Errorf("rotated: %x %v", got, err)
	}
	flipped := append([]byte{}, tok...)
	flipped[17] ^= 1
	if _, err := unwrap(key, flipped, true); !errors.Is(err, ErrRefused) {
		t.Errorf("a flipped payload bit: %v", err)
	}
	other := testKey(etypeID.AES256_CTS_HMAC_SHA1_96, 32)
	other.KeyValue[0] ^= 1
	if _, err := unwrap(other, tok, true); !errors.Is(err, ErrRefused) {
		t.Errorf("the wrong key: %v", err)
	}
	ours, _ := wrap(key, false, 1, payload)
	if _, err := unwrap(key, ours, true); err == nil {
		t.Error("a token from the initiator accepted as the acceptor's")
	}
	for _, bad := range [][]byte{nil, {0x05, 0x04}, append([]byte{0x04, 0x04}, tok[2:]...), tok[:20]} {
		if _, err := unwrap(key, bad, true); err == nil {
			t.Errorf("%x accepted", bad)
		}
	}
}

// TestGSSFraming: the initial token's framing (RFC 2743 §3.1) with the
// raw OID, short and long lengths, and its reading back.
func TestGSSFraming(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 100, 200, 70000} {
		inner := bytes.Repeat([]byte{0xab}, n)
		tok := frameGSS(tokAPReq, inner)
		if tok[0] != 0x60 || !bytes.Contains(tok[:min(20, len(tok))], krb5OID) {
			t.Fatalf("%d: %x", n, tok[:min(20, len(tok))])
		}
		id, got, err := unframeGSS(tok)
		if err != nil || !bytes.Equal(id, tokAPReq) || !bytes.Equal(got, inner) {
			t.Errorf("%d bytes: id %x err %v", n, id, err)
		}
	}
	if got := frameGSS(tokAPRep, []byte{1, 2}); !bytes.Equal(got, []byte{0x60, 0x0f, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x02, 0x00, 1, 2}) {
		t.Errorf("a short token: %x", got)
	}
	for _, bad := range [][]byte{nil, {0x60}, {0x61, 0}, {0x60, 0x85, 1, 2, 3, 4, 5}, {0x60, 0x03, 0x06, 0x01, 0x00}} {
		if _, _, err := unframeGSS(bad); err == nil {
			t.Errorf("%x accepted", bad)
		}
	}
}

// TestGSSChecksum: RFC 4121 §4.1.1's 24 bytes, little-endian.
func TestGSSChecksum(t *testing.T) {
	t.Parallel()
	got := gssChecksum(gssMutual | gssInteg)
	want := []byte{16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 34, 0, 0, 0}
	if !bytes.Equal(got, want) {
		t.Errorf("%x, want %x", got, want)
	}
}
