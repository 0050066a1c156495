package fileread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is a file that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s)", e.Path, Kind(e.Mode))
}

// Kind names the type of file a mode says: "a named pipe", "a device"…
func Kind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeIrregular != 0:
		return "a file of an unknown kind"
	}
	return "a regular file"
}

// IsNotRegular reports whether err refuses a file that is not regular.
func IsNotRegular(err error) bool {
	var nr *NotRegularError
	return errors.As(err, &nr)
}

// Check returns a *NotRegularError when mode is not a regular file's, for
// a caller that already has the file's mode (a directory listing).
func Check(path string, mode fs.FileMode) error {
	if mode.IsRegular() {
		return nil
	}
	return &NotRegularError{Path: path, Mode: mode}
}

// Open opens path for reading when it is a regular file (a symbolic link
// to one is). The open itself cannot block: it does not wait for a named
// pipe's writer (O_NONBLOCK, where there are named pipes), and the file
// is checked once open, so it cannot be swapped for another in between.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := Check(path, st.Mode()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile is os.ReadFile for a regular file only.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
