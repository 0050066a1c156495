// Package decode turns a znode's bytes into something a person can read:
// text, JSON, gzip, hex dumps, integers and Curator's queue items, chosen
// automatically (Auto) or by name. It never fails and never panics: data a
// decoder does not fit falls back to a hex dump with a note saying why. It
// imports nothing of zkx but internal/display and internal/curatoritems (the
// item sets' one reading), so anything may use it.
package decode
