package recognize

import "time"

// Queue health: how long items wait, and items in flight whose consumer
// is gone.
//
// An item waits from its node's creation, or, in a delay queue, from its
// due time (before that it is not due: nobody should take it). An item in
// flight is being processed: its consumer owns an ephemeral node for it
// (Curator's lockPath/<item>, Kazoo's taken/<item>) and the item stays in
// the queue until the consumer deletes it. If the consumer is gone (no
// server lists a connection of its session) or frozen (silent), the item
// is stuck until the session expires; then the ephemeral node goes and the
// item is offered again.

// The alarms of a queue.
const (
	// AlarmQueueStale: an item has waited longer than Options.QueueStale.
	AlarmQueueStale = "queue-stale"
	// AlarmItemStuck: an item is in flight with a consumer gone or silent.
	AlarmItemStuck = "item-stuck"
)

// defaultQueueStale is Options.QueueStale's default.
const defaultQueueStale = 10 * time.Minute

// judgeQueue counts a queue's due and in-flight items, measures how long
// each item has waited, and raises queue-stale and item-stuck.
func (b *recipeBuilder) judgeQueue(q *Queue) {
	now, limit := b.rc.opts.Now, b.rc.opts.QueueStale
	q.Due, q.InFlight, q.Stale, q.LongestWaitMs = 0, 0, false, nil
	var longest *QueueItem
	for i := range q.Items {
		it := &q.Items[i]
		it.WaitingMs = nil
		if !it.Due.IsZero() && !it.Due.After(now) {
			q.Due++
		}
		if it.InFlight {
			q.InFlight++
			b.judgeInFlight(*it)
			continue
		}
		var since time.Time
		switch {
		case !it.Due.IsZero():
			if it.Due.After(now) {
				continue // not due yet
			}
			since = it.Due
		case !it.Created.IsZero():
			since = it.Created
		default:
			continue
		}
		ms := max(now.Sub(since).Milliseconds(), 0)
		it.WaitingMs = &ms
		if longest == nil || ms > *longest.WaitingMs {
			longest = it
		}
	}
	if longest == nil {
		return
	}
	wait := *longest.WaitingMs
	q.LongestWaitMs = &wait
	if time.Duration(wait)*time.Millisecond <= limit {
		return
	}
	q.Stale = true
	how := "has waited"
	if !longest.Due.IsZero() {
		how = "has been due for"
	}
	b.alarm(AlarmQueueStale, longest.Node, "queue stale: item %s %s %v, longer than %v: nobody consumes the queue, or not fast enough",
		longest.Node, how, roundDuration(wait), limit)
}

// judgeInFlight raises item-stuck for an item whose consumer is gone or
// silent.
func (b *recipeBuilder) judgeInFlight(it QueueItem) {
	c := it.Consumer
	if c == nil {
		return
	}
	switch {
	case c.Connected != nil && !*c.Connected:
		b.alarm(AlarmItemStuck, it.Node, "item %s is stuck in flight: its consumer's session %s has no live connection (the consumer is gone), and the item stays unprocessed until the session expires, when the consumer's node for it goes and the item is offered again",
			it.Node, c.Session)
	case c.Silent:
		quiet := roundDuration(*c.LastHeardMs)
		b.alarm(AlarmItemStuck, it.Node, "item %s is stuck in flight: its consumer's session %s has not been heard from for %v, more than a third of its %v session timeout (frozen or cut off), and holds it until it wakes or its session expires",
			it.Node, c.Session, quiet, c.Liveness.Timeout.Round(time.Millisecond))
	}
}

// rejudge judges a queue again after its items changed (items in flight
// found later): the alarms judgeQueue raised before are taken out of its
// warnings first.
func (rc *recognizer) rejudge(q *Queue) {
	raised := map[string]bool{}
	for _, a := range q.Alarms {
		raised[a.Text] = true
	}
	b := rc.build(q.Path)
	for _, w := range q.Warnings {
		if !raised[w] {
			b.warn = append(b.warn, w)
		}
	}
	b.judgeQueue(q)
	q.Warnings, q.Alarms = b.warn, b.alarms
}
