// Package theme holds the explorer's styles: a palette for dark and light
// terminals and a plain one for NO_COLOR and the tests' goldens.
package theme
