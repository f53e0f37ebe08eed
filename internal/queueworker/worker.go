// Package queueworker drains one queue of the store's general durable queue (core.Queue): it claims due
// items under a lease, hands each to a Handler with at most Concurrency in flight, and settles each by the
// handler's answer — done (removed), retried later with exponential backoff and jitter (or after the wait
// the other side asked for), or given up on and kept as failed. Events to subscribers use it, one Worker
// per subscriber; any other outbound work on the queue (notifications) can use it the same way.
//
// A Handler must finish within Timeout, which is kept shorter than the lease, so an item is never handled
// by two holders at once while its holder lives; a holder that dies leaves its items claimable again when
// their lease runs out (at least once, never lost). Order per item key is the queue's: an item is not
// claimable while an earlier one of its key is pending, so concurrency never reorders one key's items.
package queueworker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// Handler does the work of one item. A nil error settles it as done. An error is retried after a backoff
// (RetryAfter asks for a given wait, Permanent gives the item up at once, keeping it as failed); its text
// is kept on the item, so it must hold no secret.
type Handler func(ctx context.Context, it core.QueueItem) error

// Outcome is how an item was settled.
type Outcome string

// The outcomes an Observer sees.
const (
	Done     Outcome = "done"     // handled, removed from the queue
	Retried  Outcome = "retried"  // failed, due again later
	Failed   Outcome = "failed"   // given up on, kept as failed
	Released Outcome = "released" // given back untouched (shutdown)
	Lost     Outcome = "lost"     // could not be settled (lease lost or store error): due again when the lease runs out
)

// Observer learns of every settled item (metrics, status); err is the handler's error, nil when done.
type Observer interface {
	Settled(it core.QueueItem, outcome Outcome, err error, took time.Duration)
}

// Config is one worker's settings; zero values take the defaults noted.
type Config struct {
	Queue       string        // the queue drained (required)
	Holder      string        // lease holder id, unique per process and worker (required)
	Concurrency int           // items in flight at once (default 4)
	Lease       time.Duration // claim lease (default 60s); must exceed Timeout
	Timeout     time.Duration // bound on one Handler call (default Lease - 10s, at least Lease/2)
	Poll        time.Duration // how often an idle worker looks for due items (default 1s)
	// Delay is the wait before the next try after attempts failed tries; retryAfter > 0 is what the other
	// side asked for. Default core.RetryDelay (doubling from a few seconds, with jitter).
	Delay    func(attempts int, retryAfter time.Duration) time.Duration
	Observer Observer // optional
	Log      *logrus.Entry
}

// Worker drains one queue; make it with New, run it with Run.
type Worker struct {
	q    core.Queue
	h    Handler
	cfg  Config
	wake chan struct{}
}

// New checks cfg, fills its defaults and returns a worker for queue cfg.Queue of q.
func New(q core.Queue, h Handler, cfg Config) (*Worker, error) {
	if cfg.Queue == "" || cfg.Holder == "" || h == nil || q == nil {
		return nil, errors.New("queueworker: queue, holder, handler and store are required")
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 60 * time.Second
	}
	if cfg.Timeout <= 0 || cfg.Timeout >= cfg.Lease {
		cfg.Timeout = max(cfg.Lease-10*time.Second, cfg.Lease/2)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Delay == nil {
		cfg.Delay = func(n int, ra time.Duration) time.Duration { return core.RetryDelay(n, ra, nil) }
	}
	if cfg.Log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		cfg.Log = logrus.NewEntry(l)
	}
	return &Worker{q: q, h: h, cfg: cfg, wake: make(chan struct{}, 1)}, nil
}

// Wake makes an idle worker look for items now instead of at its next poll (after a write enqueued some).
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// settleTimeout bounds the store call that settles an item, also after Run's context ended.
const settleTimeout = 10 * time.Second

// While items are handled quickly, the worker keeps a reserve of claimed items beside its slots, up to
// reservePerSlot per slot, so one claim (one round trip and one commit) serves many items. An item that
// has waited in the reserve too long to be handled within its lease is given back instead, so a slowing
// handler never makes an item outlive its lease. A handler slower than fastHandler gets no reserve.
const (
	reservePerSlot = 8
	fastHandler    = 50 * time.Millisecond
)

// held is an item claimed at a time, waiting for a slot or being handled.
type held struct {
	it      core.QueueItem
	claimed time.Time
	took    time.Duration // the handler's time, once done
}

// maxFinish bounds how many done items one store write removes.
const maxFinish = 64

// Run claims and handles items until ctx ends, then waits for the items in flight: their handlers' context
// ends with ctx, and an item whose handler was cut short by that is given back untouched, as are the
// items of the reserve.
func (w *Worker) Run(ctx context.Context) {
	c := w.cfg.Concurrency
	capacity := c * (reservePerSlot + 1) // the most items ever in hand
	work := make(chan held, capacity)
	var inHand atomic.Int64  // claimed and not yet settled
	var meanRun atomic.Int64 // running mean of a handler's time, in ns
	// Until a handler has run, its speed is unknown: the worker claims for its slots alone, so that a
	// subscriber that does not answer never has a reserve claimed, leased, and given back item by item
	// when it has waited too long or the worker stops.
	meanRun.Store(int64(fastHandler))
	// A slot hands its item's store write to a settler and takes the next item: the write's round trip
	// and commit overlap the next delivery. A done item goes to the one finisher, which removes every done
	// item waiting for it in one write, so quick deliveries cost a commit per batch, not per item; the other
	// outcomes are written one by one, settling bounding those writes in flight.
	settling := make(chan struct{}, 2*c)
	finished := make(chan held, capacity)
	var wg, settlers sync.WaitGroup
	done := func() {
		inHand.Add(-1)
		w.Wake() // a slot is free, and the next item of its key may be claimable now
	}
	settlers.Go(func() { w.finisher(ctx, finished, done) })
	for range c {
		wg.Go(func() {
			for h := range work {
				if ctx.Err() != nil || time.Since(h.claimed)+w.cfg.Timeout > w.cfg.Lease {
					w.release(ctx, h.it) // shutting down, or too late to finish within the lease
					done()
					continue
				}
				took, cut, err := w.handle(ctx, h.it)
				old := meanRun.Load()
				meanRun.Store(old + (int64(took)-old)/8)
				if err == nil {
					h.took = took
					finished <- h
					continue
				}
				settling <- struct{}{}
				settlers.Go(func() {
					w.settle(ctx, h.it, err, cut, took)
					<-settling
					done()
				})
			}
		})
	}
	defer func() {
		close(work)
		wg.Wait()
		close(finished)
		settlers.Wait()
	}()
	for ctx.Err() == nil {
		limit := c
		if time.Duration(meanRun.Load()) < fastHandler {
			limit = capacity
		}
		n := limit - int(inHand.Load())
		got := 0
		if n > 0 {
			items, err := w.claim(ctx, n)
			if err != nil {
				w.cfg.Log.WithError(err).Warn("queue: claim failed")
			}
			now := time.Now()
			inHand.Add(int64(len(items)))
			for _, it := range items {
				work <- held{it: it, claimed: now}
			}
			got = len(items)
		}
		if got > 0 && got == n {
			continue // maybe more are due: claim again once a slot frees (the loop checks inHand)
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-time.After(w.cfg.Poll):
		}
	}
}

// finisher removes the done items sent on finished, all those waiting at once (up to maxFinish) in one
// store write, until finished is closed.
func (w *Worker) finisher(ctx context.Context, finished <-chan held, done func()) {
	batch := make([]held, 0, maxFinish)
	for h := range finished {
		batch = append(batch[:0], h)
	more:
		for len(batch) < maxFinish {
			select {
			case h, ok := <-finished:
				if !ok {
					break more
				}
				batch = append(batch, h)
			default:
				break more
			}
		}
		w.finish(ctx, batch)
		for range batch {
			done()
		}
	}
}

// finish removes done items from the store; one it no longer held (its lease ran out and it was claimed
// again) or could not remove is due again, as for settle.
func (w *Worker) finish(ctx context.Context, batch []held) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	items := make([]core.QueueItem, len(batch))
	for i, h := range batch {
		items[i] = h.it
	}
	removed, err := w.q.FinishItems(sctx, items, w.cfg.Holder)
	if err != nil {
		w.cfg.Log.WithError(err).WithField("queue", w.cfg.Queue).Warn("queue: could not settle done items; they are due again when their lease runs out")
	}
	for i, h := range batch {
		outcome := Done
		if err != nil || !removed[i] {
			outcome = Lost
			if err == nil {
				w.cfg.Log.WithFields(logrus.Fields{"queue": h.it.Queue, "item": h.it.ID}).Warn("queue: done item no longer held; it is due again")
			}
		}
		if w.cfg.Observer != nil {
			w.cfg.Observer.Settled(h.it, outcome, nil, h.took)
		}
	}
}

// release gives an item back untouched.
func (w *Worker) release(ctx context.Context, it core.QueueItem) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	err := w.q.ReleaseItem(sctx, it, w.cfg.Holder)
	outcome := Released
	if err != nil {
		outcome = Lost
	}
	if w.cfg.Observer != nil {
		w.cfg.Observer.Settled(it, outcome, nil, 0)
	}
}

// claim leases up to n items. A claim cut short by ctx could still commit in the database and leave items
// leased to nobody until their lease ran out, so the claim itself is not cancelled; items claimed after
// ctx ended are given back at once.
func (w *Worker) claim(ctx context.Context, n int) ([]core.QueueItem, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	items, err := w.q.ClaimItems(cctx, w.cfg.Queue, w.cfg.Holder, n, w.cfg.Lease)
	if ctx.Err() != nil {
		for _, it := range items {
			_ = w.q.ReleaseItem(cctx, it, w.cfg.Holder)
		}
		return nil, nil
	}
	return items, err
}

// handle runs the handler on it, bounded by the timeout; cut reports an error caused by shutdown.
func (w *Worker) handle(ctx context.Context, it core.QueueItem) (took time.Duration, cut bool, err error) {
	start := time.Now()
	hctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	err = w.call(hctx, it)
	cancel()
	return time.Since(start), err != nil && ctx.Err() != nil, err
}

// settle records the outcome of a failed handling of it in the store: given back (cut short by shutdown),
// retried later or kept as failed.
func (w *Worker) settle(ctx context.Context, it core.QueueItem, err error, cut bool, took time.Duration) {
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer scancel()
	log := w.cfg.Log.WithFields(logrus.Fields{"queue": it.Queue, "item": it.ID, "attempt": it.Attempts})
	var outcome Outcome
	var serr error
	switch {
	case cut:
		outcome, serr = Released, w.q.ReleaseItem(sctx, it, w.cfg.Holder)
	default:
		var failed bool
		failed, serr = w.q.RetryItem(sctx, it, w.cfg.Holder, truncate(err.Error()), w.delay(it, err))
		outcome = Retried
		if failed {
			outcome = Failed
			log.WithError(err).Warn("queue: item given up on and kept as failed")
		} else {
			log.WithError(err).Info("queue: item will be retried")
		}
	}
	if serr != nil {
		log.WithError(serr).Warn("queue: could not settle item; it is due again when its lease runs out")
		outcome = Lost
	}
	if w.cfg.Observer != nil {
		w.cfg.Observer.Settled(it, outcome, err, took)
	}
}

// call runs the handler, turning a panic into an error so one bad item cannot stop the worker.
func (w *Worker) call(ctx context.Context, it core.QueueItem) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	return w.h(ctx, it)
}

// delay is the wait before the item's next try; a permanent error waits past any give-up time.
func (w *Worker) delay(it core.QueueItem, err error) time.Duration {
	var p *permanentError
	if errors.As(err, &p) {
		return max(it.RetryFor, core.DefaultRetryFor) + time.Hour
	}
	var ra *retryAfterError
	after := time.Duration(0)
	if errors.As(err, &ra) {
		after = ra.after
	}
	return w.cfg.Delay(it.Attempts, after)
}

// maxErrorLen bounds the error text kept on an item.
const maxErrorLen = 500

func truncate(s string) string {
	if len(s) <= maxErrorLen {
		return s
	}
	return s[:maxErrorLen] + "…"
}
