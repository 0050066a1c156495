package zkview

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/zkwire"
)

// ServerIdentity is one identity the server holds for a session: its
// scheme (ip, digest, sasl, x509, super) and user, as whoAmI names them.
type ServerIdentity struct {
	Scheme string `json:"scheme"`
	User   string `json:"user"`
}

// WhoAmI is the server's answer to whoAmI (ZooKeeper 3.7+): the
// identities of a session opened as the client's was (same TLS, SASL and
// credentials), so the ones the client's own session has. Known is false
// when the server is older and does not answer it.
type WhoAmI struct {
	Known      bool
	Server     string
	Identities []ServerIdentity
}

// WhoAmI asks the server who it takes the client to be. go-zookeeper
// cannot send whoAmI (opcode 107); a session of zkx's own wire client
// asks, with the client's credentials, and is closed again.
func (c *Client) WhoAmI(ctx context.Context) (WhoAmI, error) {
	server := c.conn.Server()
	if server == "" {
		return WhoAmI{}, fmt.Errorf("whoami: not connected")
	}
	out := WhoAmI{Server: server}
	wc, err := c.dialWireConn(ctx, server, nil)
	if err != nil {
		return out, fmt.Errorf("whoami on %s: %w", server, err)
	}
	defer wc.Close()
	var resp jute.WhoAmIResponse
	err = wc.Call(ctx, jute.OpWhoAmI, nil, &resp)
	var se *zkwire.ServerError
	switch {
	case errors.As(err, &se) && se.Code == jute.ErrUnimplemented:
		return out, nil // before 3.7: the server does not say
	case err != nil:
		return out, fmt.Errorf("whoami on %s: %w", server, err)
	}
	out.Known = true
	for _, ci := range resp.ClientInfo {
		out.Identities = append(out.Identities, ServerIdentity{Scheme: ci.AuthScheme, User: ci.User})
	}
	return out, nil
}
