// Package live keeps recognised recipes current from the watched tree, for
// every viewer that shows them as they change: the explorer's recipe lists
// and recipe pages, and a headless exporter.
//
// A Model follows the directories of each recipe it holds (Recipe.Dirs)
// through a zkview.Tree, whose updates it is fed (TreeChanged, or Feed for
// a viewer that owns the Tree). When a directory's Pzxid moves (a child came
// or went) its recipes are recognised again, at most once per
// RecognizeEvery each, however many events come in between; the last
// change is always read. The servers' tables (clients, connections, who
// watches what, when each session was last heard from) have no watches:
// the Model asks them again at most once per TablesEvery while recipes
// change, a little after the change so that a new waiter's watch is there
// to see, and whenever its viewer asks (AskTables: a page on top every few
// seconds, an exporter on its own timer). A HoldClock in the recognition
// options learns when holders began to hold.
//
// Snapshot is the Model's state at one moment; Config.Notify says that it
// changed. The Model does no I/O on its caller's goroutine: recognitions
// and questions to the servers run through Config.Go, their timers through
// Config.After (tests make both synchronous).
package live
