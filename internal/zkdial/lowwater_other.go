//go:build !linux

package zkdial

import (
	"errors"
	"syscall"
)

// setLowWater is Linux's only (lowwater_linux.go): elsewhere the reader
// paces its reads without it, woken by each packet as before.
func setLowWater(syscall.RawConn, int) error {
	return errors.ErrUnsupported
}
