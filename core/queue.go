package core

import (
	"context"
	"math/rand/v2"
	"time"
)

// QueueItem is one piece of outbound work in the store's general durable queue. The kind of work is data
// (Kind, and Queue naming its consumer), so that events to subscribers and, later, insight jobs and
// inbound webhook deliveries can share one table and one claim instead of a copy per kind.
//
// Items of one Queue with the same non-empty Key are handed out in the order they were enqueued: an item is
// not claimable while an earlier item of its queue and key is still queued or running. An item given up
// (JobFailed) no longer holds back later ones, so one broken event cannot stall a record for good.
type QueueItem struct {
	ID         ID     // the work's own id (an event id): shared by the items of one event to several consumers
	Queue      string // the consumer, e.g. "events:<subscriber name>"; (Queue, ID) is unique
	Kind       string // what the work is, e.g. "event"
	Workspace  ID
	Key        string // ordering key ("" for none), e.g. a record id
	Body       []byte
	State      string // JobQueued, JobRunning or JobFailed
	Attempts   int
	LastError  string
	RetryFor   time.Duration // how long after enqueueing (or a manual retry) failed attempts are retried
	RunAt      time.Time     // not before
	LeaseUntil time.Time     // while running
	LeasedBy   string
	GiveUpAt   time.Time // a retry due after this keeps the item as failed instead
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// DefaultRetryFor is how long failed attempts are retried when an item does not say.
const DefaultRetryFor = 24 * time.Hour

// Queue is the store's general durable queue. Times (due, lease, give-up) are the store's own clock, so
// that replicas whose clocks differ still agree.
//
// EnqueueItems stores items as queued and due at once, in one transaction; an item whose (Queue, ID) is
// already stored is left as it is. An item's CreatedAt, when set, is kept as the time its work arose (a
// delivery's receipt); otherwise it is the store's now. ClaimItems leases up to n claimable items of queue to worker, in enqueue
// order: queued ones that are due and running ones whose lease ran out, skipping any with an earlier pending
// item of the same key; each claim counts as an attempt, and concurrent claims never hand one item to two
// holders. FinishItem removes an item, RetryItem records an attempt's error and makes it due again after
// delay, or keeps it as failed when that falls after its give-up time (failed reports which), and
// ReleaseItem gives it back untouched; each only while worker holds it (ErrConflict otherwise).
// FinishItems removes, in one write, those of items that worker still holds and reports which it removed
// (done[i] for items[i]), so that a worker settles many quick deliveries with one commit.
// FailedItems lists failed items of kind, most recently failed first, of ws or of all when ws is "".
// RetryFailedItems requeues failed items of kind, due at once with a fresh give-up time: those with id, or
// all when id is "" (of ws, or of all when ws is ""), and returns how many. QueueStats counts one queue's
// items. PendingQueues lists, sorted, the queues that hold queued or running items of kind, of ws or of all when
// ws is "" (so a consumer that is no longer configured, and what it still holds, can be reported).
type Queue interface {
	EnqueueItems(ctx context.Context, items []QueueItem) error
	ClaimItems(ctx context.Context, queue, worker string, n int, lease time.Duration) ([]QueueItem, error)
	FinishItem(ctx context.Context, it QueueItem, worker string) error
	FinishItems(ctx context.Context, items []QueueItem, worker string) (done []bool, err error)
	RetryItem(ctx context.Context, it QueueItem, worker, msg string, delay time.Duration) (failed bool, err error)
	ReleaseItem(ctx context.Context, it QueueItem, worker string) error
	FailedItems(ctx context.Context, kind string, ws ID) ([]QueueItem, error)
	RetryFailedItems(ctx context.Context, kind string, ws ID, id ID) (int, error)
	QueueStats(ctx context.Context, queue string) (QueueStats, error)
	PendingQueues(ctx context.Context, kind string, ws ID) ([]string, error)
	QueueHolding
}

// QueueHolding is what a pool of workers that shares one queue between workspaces needs beside Queue
// (the insight pool, the webhook workers).
//
// ClaimFair leases up to n claimable items of queue to worker as ClaimItems does, but running items whose
// lease ran out come first, then due queued items are dealt in turn from each workspace that has some
// (round robin, oldest first within a workspace; each store keeps its place in the rotation), so that one
// workspace's backlog never holds up another's work. FailItem records an attempt's error and makes the
// item due again at runAt, or keeps it as failed at once when final (the consumer counts its own
// attempts), only while worker holds it (ErrConflict otherwise). ExtendHeld renews the lease of every item
// of queue that worker holds (its heartbeat) and returns how many; ReleaseHeld gives back, as ReleaseItem
// does, every item of queue worker holds except those in keep, and returns how many. KeptItems lists the
// items of queue kept for ws (queued, running or failed), oldest first.
type QueueHolding interface {
	ClaimFair(ctx context.Context, queue, worker string, n int, lease time.Duration) ([]QueueItem, error)
	FailItem(ctx context.Context, it QueueItem, worker, msg string, runAt time.Time, final bool) error
	ExtendHeld(ctx context.Context, queue, worker string, lease time.Duration) (int, error)
	ReleaseHeld(ctx context.Context, queue, worker string, keep []ID) (int, error)
	KeptItems(ctx context.Context, queue string, ws ID) ([]QueueItem, error)
}

// The queue's users other than events: insight jobs (one queue, ordered per record) and inbound
// deliveries (one queue per connector entry).
const (
	InsightQueue = "insights" // the queue of insight jobs; Key is the record id
	KindInsight  = "insight"
	KindDelivery = "delivery"
)

// DeliveryQueue is the queue of the deliveries of a connector entry ("<kind>:<name>").
func DeliveryQueue(entry string) string { return "delivery:" + entry }

// QueueStats counts one queue's items by state.
type QueueStats struct {
	Pending int // queued or running
	Failed  int
}

// CheckQueueItem refuses an item the queue cannot keep.
func CheckQueueItem(it QueueItem) error {
	switch {
	case it.ID == "":
		return invalid("id", "id is required", "A queue item needs an id.")
	case it.Queue == "":
		return invalid("queue", "queue is required", "A queue item needs the queue of its consumer.")
	case it.Kind == "":
		return invalid("kind", "kind is required", "A queue item needs the kind of its work.")
	case it.Workspace == "":
		return invalid("workspace", "workspace is required", "A queue item needs a workspace.")
	case it.RetryFor < 0:
		return invalid("retry_for", "retry_for must not be negative", "retry_for must not be negative, got %s.", it.RetryFor)
	}
	return nil
}

// Backoff bounds: the first retry comes within a few seconds, and no wait grows beyond an hour, so a
// subscriber that comes back is served again soon enough.
const (
	backoffBase = 2 * time.Second
	backoffMax  = time.Hour
)

// RetryDelay is the wait before the next try after attempts failed tries: a Retry-After the other side gave
// (retryAfter > 0) is honoured as it is; otherwise the wait doubles with each attempt up to an hour, and
// jitter takes it anywhere between half and all of that, so that many items failing together do not all
// come back at the same instant. rnd returns a number in [0, 1); nil uses math/rand.
func RetryDelay(attempts int, retryAfter time.Duration, rnd func() float64) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	if rnd == nil {
		rnd = rand.Float64
	}
	d := backoffBase
	for i := 1; i < attempts && d < backoffMax; i++ {
		d *= 2
	}
	d = min(d, backoffMax)
	return d/2 + time.Duration(rnd()*float64(d/2))
}
