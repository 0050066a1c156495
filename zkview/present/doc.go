// Package present puts what the model knows of a recipe and its
// contenders into words, once, for both front ends: a contender's role,
// whether its server hears from it (heard, silent, no connection — one
// order of precedence), how long it has held, who takes over when it goes,
// the head line of a recipe, the names of alarms, and what a force-release
// left behind. The words are plain text, escaped for a terminal; the
// explorer and the command line only style and align them.
package present
