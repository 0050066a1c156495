// Package fileread opens the files zkx reads by name — data directories'
// logs and snapshots, export files, the contexts file, TLS and SASL files
// — only when they are regular files. A named pipe would block the reader
// until something writes to it (forever, for a pipe planted in a data
// directory), and a device such as /dev/zero would never end; either is
// refused with an error that says what the file is.
package fileread
