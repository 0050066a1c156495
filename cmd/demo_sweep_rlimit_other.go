//go:build !unix

package cmd

// raiseFileLimit does nothing where there is no RLIMIT_NOFILE to raise
// (Windows counts sockets against no per-process soft limit).
func raiseFileLimit() {}
