package sasl

import (
	"bytes"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// GSSAPI (RFC 4752) over the Kerberos V5 GSS mechanism (RFC 4121), as
// Java's GssKrb5Client speaks it to ZooKeeper: the client sends an
// AP-REQ asking for mutual authentication; the server answers an AP-REP,
// the client an empty token; the server sends, wrapped, the security
// layers it offers; the client chooses none, wrapped; the server's last
// answer is empty.

// krb5OID is the Kerberos V5 mechanism, 1.2.840.113554.1.2.2, as the
// DER bytes of an OBJECT IDENTIFIER (tag, length, value): RFC 2743's
// token framing wants exactly these, not a marshalled sequence.
var krb5OID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

// GSS token ids (RFC 4121 §4.1).
var (
	tokAPReq  = []byte{0x01, 0x00}
	tokAPRep  = []byte{0x02, 0x00}
	tokKRBErr = []byte{0x03, 0x00}
)

// GSS context flags of the authenticator checksum (RFC 4121 §4.1.1.1).
const (
	gssMutual = 2
	gssConf   = 16
	gssInteg  = 32
)

// ticket is a service ticket and its session key.
type ticket struct {
	tkt messages.Ticket
	key types.EncryptionKey
}

// GSSAPIClient is the client side of one GSSAPI exchange.
type GSSAPIClient struct {
	login *Kerberos
	spn   string
	step  int

	ctime   time.Time
	cusec   int
	session types.EncryptionKey // the ticket's
	subkey  types.EncryptionKey // ours
	key     types.EncryptionKey // the context's: the acceptor's subkey when it sent one
	accKey  bool                // key is the acceptor's subkey
	seq     uint64
}

// NewGSSAPI starts an exchange with service/host (ZooKeeper: zookeeper
// and the member as the connect string writes it).
func (k *Kerberos) NewGSSAPI(service, host string) (Client, error) {
	return &GSSAPIClient{login: k, spn: service + "/" + host}, nil
}

// Mechanism implements Client.
func (*GSSAPIClient) Mechanism() string { return "GSSAPI" }

// Step implements Client.
func (g *GSSAPIClient) Step(challenge []byte) ([]byte, bool, error) {
	g.step++
	switch g.step {
	case 1:
		tok, err := g.apReq()
		return tok, err == nil, err
	case 2:
		if err := g.apRep(challenge); err != nil {
			return nil, false, err
		}
		return []byte{}, true, nil
	case 3:
		tok, err := g.securityLayer(challenge)
		return tok, err == nil, err
	case 4:
		if len(challenge) != 0 {
			return nil, false, errors.New("GSSAPI: the server's last answer is not empty")
		}
		return nil, false, nil
	default:
		return nil, false, errors.New("GSSAPI: the server went on after the exchange was over")
	}
}

// apReq is the initial context token: the OID framing around an AP-REQ
// whose authenticator carries the GSS checksum and our subkey.
func (g *GSSAPIClient) apReq() ([]byte, error) {
	cl, t, err := g.login.serviceTicket(g.spn)
	if err != nil {
		return nil, err
	}
	auth, err := newAuthenticator(cl)
	if err != nil {
		return nil, err
	}
	if err := auth.GenerateSeqNumberAndSubKey(t.key.KeyType, len(t.key.KeyValue)); err != nil {
		return nil, fmt.Errorf("GSSAPI: subkey: %w", err)
	}
	auth.Cksum = types.Checksum{CksumType: chksumtype.GSSAPI, Checksum: gssChecksum(gssMutual | gssConf | gssInteg)}
	req, err := messages.NewAPReq(t.tkt, t.key, auth)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: AP-REQ: %w", err)
	}
	types.SetFlag(&req.APOptions, flags.APOptionMutualRequired)
	der, err := req.Marshal()
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: AP-REQ: %w", err)
	}
	g.ctime, g.cusec, g.session, g.subkey = auth.CTime, auth.Cusec, t.key, auth.SubKey
	g.key, g.seq = auth.SubKey, uint64(auth.SeqNumber)
	return frameGSS(tokAPReq, der), nil
}

func newAuthenticator(cl *client.Client) (types.Authenticator, error) {
	a, err := types.NewAuthenticator(cl.Credentials.Domain(), cl.Credentials.CName())
	if err != nil {
		return a, fmt.Errorf("GSSAPI: authenticator: %w", err)
	}
	return a, nil
}

// gssChecksum is RFC 4121 §4.1.1's authenticator checksum: no channel
// bindings, the context flags asked for.
func gssChecksum(contextFlags uint32) []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint32(b[0:], 16) // length of the (zero) channel-binding hash
	binary.LittleEndian.PutUint32(b[20:], contextFlags)
	return b
}

// frameGSS wraps an inner token in RFC 2743 §3.1's framing:
// [APPLICATION 0] { OID, token id, inner token }.
func frameGSS(tokID, inner []byte) []byte {
	body := append(append(append([]byte{}, krb5OID...), tokID...), inner...)
	return append(append([]byte{0x60}, derLength(len(body))...), body...)
}

func derLength(n int) []byte {
	if n < 0x80 {
		return []byte{byte(n)}
	}
	var b []byte
	for ; n > 0; n >>= 8 {
		b = append([]byte{byte(n)}, b...)
	}
	return append([]byte{0x80 | byte(len(b))}, b...)
}

// unframeGSS returns the token id and inner token of a framed token.
func unframeGSS(tok []byte) (tokID, inner []byte, err error) {
	if len(tok) < 2 || tok[0] != 0x60 {
		return nil, nil, errors.New("not a GSS-API token")
	}
	n, rest := int(tok[1]), tok[2:]
	if n >= 0x80 {
		k := n & 0x7f
		if k == 0 || k > 4 || len(rest) < k {
			return nil, nil, errors.New("GSS-API token: bad length")
		}
		n = 0
		for _, b := range rest[:k] {
			n = n<<8 | int(b)
		}
		rest = rest[k:]
	}
	if n != len(rest) || !bytes.HasPrefix(rest, krb5OID) || len(rest) < len(krb5OID)+2 {
		return nil, nil, errors.New("GSS-API token: not Kerberos V5, or cut short")
	}
	rest = rest[len(krb5OID):]
	return rest[:2], rest[2:], nil
}

// apRep checks the server's AP-REP: it proves the server holds the
// service key (our ctime comes back), and may carry its subkey.
func (g *GSSAPIClient) apRep(tok []byte) error {
	id, inner, err := unframeGSS(tok)
	if err != nil {
		return fmt.Errorf("GSSAPI: the server's answer: %w", err)
	}
	switch {
	case bytes.Equal(id, tokKRBErr):
		var kerr messages.KRBError
		if err := kerr.Unmarshal(inner); err == nil {
			return fmt.Errorf("GSSAPI: %w: %s", ErrRefused, kerr.Error())
		}
		return fmt.Errorf("GSSAPI: %w (a Kerberos error)", ErrRefused)
	case !bytes.Equal(id, tokAPRep):
		return fmt.Errorf("GSSAPI: the server's answer is token %x, not an AP-REP", id)
	}
	var rep messages.APRep
	if err := rep.Unmarshal(inner); err != nil {
		return fmt.Errorf("GSSAPI: AP-REP: %w", err)
	}
	plain, err := crypto.DecryptEncPart(rep.EncPart, g.session, keyusage.AP_REP_ENCPART)
	if err != nil {
		return fmt.Errorf("GSSAPI: %w: its AP-REP does not decrypt with our session key", ErrRefused)
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(plain); err != nil {
		return fmt.Errorf("GSSAPI: AP-REP: %w", err)
	}
	if !part.CTime.Equal(g.ctime.Truncate(time.Second)) || part.Cusec != g.cusec {
		return fmt.Errorf("GSSAPI: %w: its AP-REP is not the answer to our authenticator", ErrRefused)
	}
	if part.Subkey.KeyType != 0 && len(part.Subkey.KeyValue) > 0 {
		g.key, g.accKey = part.Subkey, true
	}
	return nil
}

// securityLayer reads the server's offer (RFC 4752 §3.1: a bit mask of
// layers and a maximum message size, wrapped) and answers "no layer":
// ZooKeeper's traffic is not wrapped.
func (g *GSSAPIClient) securityLayer(tok []byte) ([]byte, error) {
	offer, err := unwrap(g.key, tok, true)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: the server's security-layer offer: %w", err)
	}
	if len(offer) != 4 {
		return nil, fmt.Errorf("GSSAPI: a security-layer offer of %d bytes, not 4", len(offer))
	}
	const noLayer = 1
	if offer[0]&noLayer == 0 {
		return nil, fmt.Errorf("GSSAPI: the server insists on a security layer (offer %#x); zkx speaks none", offer[0])
	}
	tok, err = wrap(g.key, g.accKey, g.seq, []byte{noLayer, 0, 0, 0})
	g.seq++
	return tok, err
}

// RFC 4121 §4.2.6.2 wrap tokens, integrity only (no confidentiality: the
// SASL layer negotiation needs none, and Java's server sends none).
const (
	wrapFlagSentByAcceptor = 0x01
	wrapFlagSealed         = 0x02
	wrapFlagAcceptorSubkey = 0x04
)

// wrap makes the initiator's wrap token of payload.
func wrap(key types.EncryptionKey, acceptorSubkey bool, seq uint64, payload []byte) ([]byte, error) {
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("wrap: %w", err)
	}
	header := make([]byte, 16)
	header[0], header[1], header[3] = 0x05, 0x04, 0xff
	if acceptorSubkey {
		header[2] |= wrapFlagAcceptorSubkey
	}
	binary.BigEndian.PutUint64(header[8:], seq)
	// The checksum covers the payload and the header with EC and RRC 0.
	sum, err := et.GetChecksumHash(key.KeyValue, append(append([]byte{}, payload...), header...), keyusage.GSSAPI_INITIATOR_SEAL)
	if err != nil {
		return nil, fmt.Errorf("wrap: %w", err)
	}
	binary.BigEndian.PutUint16(header[4:], uint16(len(sum))) // EC
	return append(append(header, payload...), sum...), nil
}

// unwrap checks a wrap token from the acceptor (or, fromAcceptor false,
// the initiator) and returns its payload.
func unwrap(key types.EncryptionKey, tok []byte, fromAcceptor bool) ([]byte, error) {
	if len(tok) < 16 || tok[0] != 0x05 || tok[1] != 0x04 || tok[3] != 0xff {
		return nil, errors.New("not an RFC 4121 wrap token (an old DES or RC4 key? zkx speaks AES)")
	}
	flagsByte := tok[2]
	if (flagsByte&wrapFlagSentByAcceptor != 0) != fromAcceptor {
		return nil, errors.New("a wrap token from the wrong side")
	}
	if flagsByte&wrapFlagSealed != 0 {
		return nil, errors.New("a sealed (encrypted) wrap token: zkx negotiates integrity only")
	}
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, err
	}
	ec := int(binary.BigEndian.Uint16(tok[4:]))
	rrc := int(binary.BigEndian.Uint16(tok[6:]))
	body := append([]byte{}, tok[16:]...)
	if len(body) > 0 && rrc%len(body) != 0 { // undo the right rotation
		r := rrc % len(body)
		body = append(body[r:], body[:r]...)
	}
	if ec != et.GetHMACBitLength()/8 || len(body) < ec {
		return nil, fmt.Errorf("a wrap token whose checksum is %d bytes (want %d)", ec, et.GetHMACBitLength()/8)
	}
	payload, sum := body[:len(body)-ec], body[len(body)-ec:]
	header := append([]byte{}, tok[:16]...)
	header[4], header[5], header[6], header[7] = 0, 0, 0, 0
	usage := uint32(keyusage.GSSAPI_INITIATOR_SEAL)
	if fromAcceptor {
		usage = keyusage.GSSAPI_ACCEPTOR_SEAL
	}
	want, err := et.GetChecksumHash(key.KeyValue, append(append([]byte{}, payload...), header...), usage)
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(want, sum) != 1 {
		return nil, fmt.Errorf("%w: a wrap token whose checksum does not match the context key", ErrRefused)
	}
	return payload, nil
}
