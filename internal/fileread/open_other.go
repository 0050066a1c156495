//go:build !unix

package fileread

// openNoWait is nothing where there are no named pipes to wait on.
const openNoWait = 0
