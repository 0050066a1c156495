package zktest

import (
	"fmt"
	"io"
	"net"
	"time"
)

// FourLetter sends the four-letter word cmd (ruok, srvr, mntr, ...) to the
// server at addr and returns everything it answers, read until EOF. The
// whole exchange, connect included, must finish within timeout.
func FourLetter(addr, cmd string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", fmt.Errorf("zktest: %s to %s: %w", cmd, addr, err)
	}
	defer c.Close()
	if err := c.SetDeadline(deadline); err != nil {
		return "", fmt.Errorf("zktest: %s to %s: %w", cmd, addr, err)
	}
	if _, err := io.WriteString(c, cmd); err != nil {
		return "", fmt.Errorf("zktest: %s to %s: %w", cmd, addr, err)
	}
	out, err := io.ReadAll(c)
	if err != nil {
		return string(out), fmt.Errorf("zktest: %s to %s: %w", cmd, addr, err)
	}
	return string(out), nil
}
