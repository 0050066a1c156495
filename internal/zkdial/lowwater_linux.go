//go:build linux

package zkdial

import "syscall"

// setLowWater sets the socket's receive low-water mark (SO_RCVLOWAT):
// while fewer bytes wait in its buffer, the kernel wakes no one for them,
// Go's netpoller included.
func setLowWater(socket syscall.RawConn, bytes int) error {
	var setErr error
	if err := socket.Control(func(fd uintptr) {
		setErr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, bytes)
	}); err != nil {
		return err
	}
	return setErr
}
