package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// Queued deliveries. A delivery of more than queue_over items, or one whose records are not written within
// queue_after, is stored as received in one write and answered 202; the entry's worker then turns it into
// records. Its items carry the same dedup keys as when written at once (the external id, or the element's
// content), so a delivery written twice (a worker that died between writing the records and removing the
// delivery, or a write that went on after its budget ran out) still gives each record once. A delivery
// that cannot be written is retried with a growing wait; one refused for good (workspace suspended, idea
// limit, a mapping that no longer reads it) or failing queueAttempts times is kept as failed with its error.
const (
	queueLease    = time.Minute      // a worker that dies holding a delivery gives it up after this
	queuePoll     = 5 * time.Second  // how often a worker looks for deliveries another replica or an earlier run left
	queueAttempts = 5                // attempts before a delivery that keeps failing is kept as failed
	queueRetry    = 5 * time.Second  // wait after the first failed attempt, doubled after each
	queueGrace    = 10 * time.Second // a delivery being written when the connector stops may finish within this
)

// queue is the workers' shared state: the worker name that holds claims. Each entry has a wake-up of its
// own (entry.wake) so a delivery queued by this process is written at once rather than at the next poll.
type queue struct {
	worker   string
	outcomes *prometheus.CounterVec
}

func newQueue(outcomes *prometheus.CounterVec) *queue {
	return &queue{worker: "webhook-" + string(core.NewID()), outcomes: outcomes}
}

// metrics are the kind's series, registered once per registry (connectors.Metrics).
type metrics struct {
	requests *prometheus.CounterVec // by entry and outcome
	queued   *prometheus.CounterVec // deliveries answered 202, by entry and what the worker did
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_webhook_requests_total",
			Help: "Inbound webhook deliveries by entry and outcome.",
		}, []string{"connector", "outcome"}),
		queued: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_webhook_queued_total",
			Help: "Webhook deliveries answered 202, by entry and what the worker did: written, retry, or failed (kept with its error).",
		}, []string{"connector", "outcome"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.queued} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// nudge wakes the entry's worker; a wake-up already pending covers this one.
func (en *entry) nudge() {
	select {
	case en.wake <- struct{}{}:
	default:
	}
}

// startWorker runs the entry's queue worker until Run's context ends or Update stops it. Called with
// s.mu held, while Run runs.
func (s *Set) startWorker(en *entry) {
	if s.runCtx == nil {
		return
	}
	en.log.Info("webhook: listening on /hooks/" + en.Name)
	if s.svc == nil {
		return
	}
	ctx, cancel := context.WithCancel(s.runCtx)
	w := &worker{cancel: cancel, done: make(chan struct{})}
	s.workers[en.Name] = w
	s.wg.Go(func() {
		defer close(w.done)
		s.work(ctx, en)
	})
}

// work writes the entry's due deliveries, then waits for a nudge or the next poll.
func (s *Set) work(ctx context.Context, en *entry) {
	poll := time.NewTicker(queuePoll)
	defer poll.Stop()
	for {
		for s.writeNext(ctx, en) {
		}
		select {
		case <-ctx.Done():
			return
		case <-en.wake:
		case <-poll.C:
		}
	}
}

// writeNext claims one due delivery and writes it; false when none is due, the store cannot be read or
// the connector stops.
func (s *Set) writeNext(ctx context.Context, en *entry) bool {
	if ctx.Err() != nil {
		return false
	}
	ds, err := s.svc.ClaimDeliveries(ctx, en.queueKey(), s.queue.worker, 1, queueLease)
	if err != nil || len(ds) == 0 {
		if err != nil && ctx.Err() == nil {
			en.log.WithError(err).Warn("webhook: claim queued deliveries")
		}
		return false
	}
	// A stop does not interrupt a delivery being written: that would cost it an attempt for nothing.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queueGrace)
	defer cancel()
	s.settle(wctx, en, ds[0])
	return true
}

// settle writes a claimed delivery's records and removes it, or records why it failed.
func (s *Set) settle(ctx context.Context, en *entry, d core.Delivery) {
	log := en.log.WithFields(logrus.Fields{"delivery": d.ID, "attempt": d.Attempts})
	var err error
	if d.Attempts > queueAttempts {
		// Every earlier attempt ended without a word (the worker died): stop before it takes the process again.
		err = fmt.Errorf("gave up: %d attempts did not finish", d.Attempts-1)
	} else if err = s.writeQueued(ctx, en, d); err == nil {
		if err := s.svc.FinishDelivery(ctx, d, s.queue.worker); err != nil {
			// The records are there; taken again after its lease, the delivery finds them and creates nothing.
			log.WithError(err).Warn("webhook: remove a written delivery")
		}
		s.queue.outcomes.WithLabelValues(en.Name, "written").Inc()
		s.board.Succeeded(en.Name)
		return
	}
	final := refusedForGood(err) || d.Attempts >= queueAttempts
	if final {
		s.svc.CountConnector(d.Workspace, en.Name, 0, 1)
	}
	if ferr := s.svc.FailDelivery(ctx, d, s.queue.worker, err.Error(), s.now().Add(retryWait(d.Attempts)), final); ferr != nil {
		log.WithError(ferr).Warn("webhook: record a failed delivery") // taken again after its lease
	}
	if !final {
		s.queue.outcomes.WithLabelValues(en.Name, "retry").Inc()
		log.WithError(err).Warn("webhook: queued delivery not written; it will be retried")
		return
	}
	s.queue.outcomes.WithLabelValues(en.Name, "failed").Inc()
	log.WithError(err).Error("webhook: queued delivery not written; kept as failed")
	s.board.Fail(en.Name, connectors.Fault(fmt.Sprintf("queued delivery %s kept as failed: %s", d.ID, publicReason(err)), err))
}

// writeQueued turns a stored delivery into records in the workspace it was received for. An item without
// a mapped creation time is dated when the delivery arrived, not when it was written.
func (s *Set) writeQueued(ctx context.Context, en *entry, d core.Delivery) error {
	recs, err := en.extract(d.Body)
	if err != nil {
		return err
	}
	for i := range recs {
		if recs[i].sub.CreatedAt.IsZero() {
			recs[i].sub.CreatedAt = d.CreatedAt
		}
	}
	res, err := s.submit(core.WithActor(ctx, core.Actor{Kind: core.ActorConnector, Name: en.Name}), d.Workspace, recs)
	if err == nil {
		logUnknownTags(en, res)
		s.svc.CountConnector(d.Workspace, en.Name, res.fresh(), 0)
	}
	return err
}

// refusedForGood reports an error no retry will change.
func refusedForGood(err error) bool {
	var (
		ve *core.ValidationError
		ie *inputError
	)
	return errors.As(err, &ve) || errors.As(err, &ie) ||
		errors.Is(err, core.ErrWorkspaceNotFound) || errors.Is(err, core.ErrIdeaLimit)
}

// publicReason is what GET /api/connectors may show of err: the refusal, never a store's own message.
func publicReason(err error) string {
	var (
		ve *core.ValidationError
		ie *inputError
	)
	switch {
	case errors.As(err, &ve):
		return ve.Message
	case errors.As(err, &ie):
		return ie.msg
	case errors.Is(err, core.ErrWorkspaceNotFound):
		return "the workspace is missing or suspended"
	case errors.Is(err, core.ErrIdeaLimit):
		return "the workspace has reached its idea limit"
	}
	return "see the log"
}

// retryWait is the wait after the given number of failed attempts: queueRetry, doubled after each.
func retryWait(attempts int) time.Duration {
	return queueRetry << min(max(attempts-1, 0), 6)
}
