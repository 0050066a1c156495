// Package hostile is the test kit of text that a terminal would act on:
// escape sequences (hidden text, a cleared screen, a hyperlink, a
// clipboard write, a window title), C0 and C1 controls, bidi overrides
// and isolates, zero-width runes, bytes that are not UTF-8. It serves a
// ZooKeeper tree full of it, with the servers' answers rewritten to carry
// it too (Serve), and finds it in what a front end wrote (Controls): the
// explorer's and the commands' tests feed every page and command the
// scene and scan what comes out.
package hostile
