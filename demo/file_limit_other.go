//go:build !unix

package demo

// RaiseFileLimit does nothing where there is no RLIMIT_NOFILE to raise.
func RaiseFileLimit() {}
