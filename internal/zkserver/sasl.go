package zkserver

import (
	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/sasl"
)

// saslStep answers one SASL packet (opcode 102) as ZooKeeperServer's
// processSasl does: DIGEST-MD5 against Config.SASLUsers; once the client
// proved its password the connection gains sasl:USER. A failure is
// answered -124 when SASL is required, else -115, and the connection
// closes.
func (c *conn) saslStep(hdr jute.RequestHeader, d *jute.Decoder) bool {
	s := c.server
	var req jute.SASLToken
	req.Decode(d)
	if d.Err() != nil {
		s.cfg.Logger.Warn("closing connection: malformed SASL packet", "remote", c.remote)
		return false
	}
	if len(s.cfg.SASLUsers) == 0 {
		// A ZooKeeper without a JAAS Server section answers every SASL
		// packet with no token at all.
		c.push(replyFrame(hdr.Xid, 0, jute.ErrOK, &jute.SASLToken{}))
		return true
	}
	if c.sasl == nil {
		c.sasl = sasl.NewDigestMD5Server(sasl.ZooKeeperDigestService, sasl.ZooKeeperDigestHost, func(user string) (string, bool) {
			p, ok := s.cfg.SASLUsers[user]
			return p, ok
		})
	}
	answer, done, err := c.sasl.Step(req.Token)
	if err != nil {
		code := jute.ErrAuthFailed
		if s.cfg.SASLRequired {
			code = jute.ErrSessionClosedRequireSASL
		}
		s.cfg.Logger.Warn("SASL authentication failed", "session", hexID(c.sess.id), "remote", c.remote, "err", err)
		c.push(replyFrame(hdr.Xid, 0, code, &jute.SASLToken{}))
		c.closeAfterFlush()
		return false
	}
	if done {
		id := c.sasl.AuthorizationID()
		s.mu.Lock()
		c.addIDLocked(jute.Id{Scheme: "sasl", ID: id})
		s.mu.Unlock()
		s.cfg.Logger.Info("SASL authenticated", "session", hexID(c.sess.id), "remote", c.remote, "id", id)
		c.sasl = nil
	}
	c.push(replyFrame(hdr.Xid, 0, jute.ErrOK, &jute.SASLToken{Token: answer}))
	return true
}

// hasSASL reports whether the connection authenticated with SASL.
func (c *conn) hasSASL() bool {
	c.server.mu.Lock()
	defer c.server.mu.Unlock()
	for _, id := range c.auth {
		if id.Scheme == "sasl" {
			return true
		}
	}
	return false
}
