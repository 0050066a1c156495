// Package introspect asks the servers of an ensemble what only they know:
// each member's mode and load (srvr, mntr, conf), its connections (cons),
// its watches (wchc, wchp), the ephemerals and expiring sessions (dump),
// through the four-letter words or the AdminServer. Ask reads every member
// at once and merges the answers into a Snapshot: members, sessions with
// their client addresses, ephemerals and watches, and what was refused or
// failed, member by member. Tables answers the recognisers' questions from
// a Snapshot. It knows nothing of the live tree or of recipes.
package introspect
