// Package cmd holds zkx's cobra commands and the plumbing they share: the
// global options (connect string, auth, timeouts), output formats and exit
// statuses. The explorer and the demo are started from here; what they show
// comes from zkview, tui and demo.
package cmd
