//go:build unix

package cmd

import "syscall"

// raiseFileLimit lifts the open-file limit to its hard maximum: every
// contender is a connection, and hundreds run at once.
func raiseFileLimit() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) // best effort: the sweep says so if connections fail
	}
}
