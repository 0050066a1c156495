//go:build unix

package fileread

import "syscall"

// openNoWait keeps an open of a named pipe from waiting for its writer.
const openNoWait = syscall.O_NONBLOCK
