package metrics

import (
	"time"

	"github.com/zkx-dev/zkx/zkview/recognize"
)

// State is what the exporter knows at the end of a refresh: the recipes
// as the live model holds them and what the members answered. A scrape
// reads the series computed from the last State published, never the
// tree.
type State struct {
	// At is when the refresh finished.
	At time.Time
	// Up is set when the refresh reached the ensemble and the model is
	// current (a session, the recipes read on it).
	Up bool
	// Members are the members as the servers' tables were last read,
	// in the connect string's order; none when they were not read.
	Members []Member
	// Refresh is how long the refresh took.
	Refresh time.Duration
	// Recipes are every recipe followed (of every class).
	Recipes []recognize.Recipe
}

// Member is one member of the ensemble as it last answered.
type Member struct {
	// Addr is its client address as the connect string names it.
	Addr string
	// Up: it answered within its deadline and serves clients.
	Up bool
}

// The reasons of zkx_refresh_errors_total (docs/metrics.md).
const (
	ReasonConnect        = "connect"
	ReasonSessionExpired = "session-expired"
	ReasonTimeout        = "timeout"
	ReasonNoAuth         = "no-auth"
	ReasonTables         = "tables"
	ReasonBadAnswer      = "bad-answer"
	ReasonOther          = "other"
)

// Reasons are the values of zkx_refresh_errors_total's reason label, each
// served from the start (at 0) so that rate() sees the first error.
var Reasons = []string{ReasonConnect, ReasonSessionExpired, ReasonTimeout, ReasonNoAuth, ReasonTables, ReasonBadAnswer, ReasonOther}
